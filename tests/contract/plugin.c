// SPDX-License-Identifier: MIT
/* Sites the plugin makes: each kind of size knowledge and each op.
 * PLUGIN_SITES in contract.sh is how many. */
#define _GNU_SOURCE
#include <string.h>
#include <strings.h>

void unknown(char *p, int c, size_t n) { memset(p, c, n); }
void zero(char *p, size_t n) { bzero(p, n); }
void clear(char *p, size_t n) { explicit_bzero(p, n); }
void bounded(char *p, unsigned char n) { memset(p, 7, n + 300u); }
void constant(char *p) { memset(p, 0, 100000); }
/* With -fplugin-arg-repstos-copy: */
void *copy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
void *pcopy(void *d, const void *s, size_t n) { return mempcpy(d, s, n); }
void *move(void *d, const void *s, size_t n) { return memmove(d, s, n); }
