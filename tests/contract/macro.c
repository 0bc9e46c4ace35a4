// SPDX-License-Identifier: MIT
/* Sites REPSTOS_MEMSET and its kin make without the plugin. */
#include "repstos.h"

void *set(void *p, int c, unsigned long n) { return REPSTOS_MEMSET(p, c, n); }
void zero(void *p, unsigned long n) { REPSTOS_BZERO(p, n); }
void clear(void *p, unsigned long n) { REPSTOS_CLEAR(p, n); }
