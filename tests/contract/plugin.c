// SPDX-License-Identifier: MIT
/* Sites the plugin makes: each kind of size knowledge and each op.
 * PLUGIN_SITES in contract.sh is how many. */
#include <string.h>
#include <strings.h>

void unknown(char *p, int c, size_t n) { memset(p, c, n); }
void zero(char *p, size_t n) { bzero(p, n); }
void clear(char *p, size_t n) { explicit_bzero(p, n); }
void bounded(char *p, unsigned char n) { memset(p, 7, n + 300u); }
void constant(char *p) { memset(p, 0, 100000); }
