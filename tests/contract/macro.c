// SPDX-License-Identifier: MIT
/* Sites REPSTOS_MEMSET, REPSTOS_MEMCPY and their kin make without the
 * plugin. */
#include "repstos.h"

void *set(void *p, int c, unsigned long n) { return REPSTOS_MEMSET(p, c, n); }
void zero(void *p, unsigned long n) { REPSTOS_BZERO(p, n); }
void clear(void *p, unsigned long n) { REPSTOS_CLEAR(p, n); }
void *copy(void *d, const void *s, unsigned long n) { return REPSTOS_MEMCPY(d, s, n); }
void *move(void *d, const void *s, unsigned long n) { return REPSTOS_MEMMOVE(d, s, n); }
