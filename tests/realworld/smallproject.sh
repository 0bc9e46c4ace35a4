# SPDX-License-Identifier: MIT
# tests/realworld/smallproject.sh - the small project the build-farm
# tests (ccache.sh, distcc.sh) build (sourced after lib.sh).
#
# write_small_project DIR: three C files and a Makefile in DIR.  fill.c
# and wipe.c hold a variable-size memset and a bzero (sites at any
# setting) and a 256-byte constant memset (a site only with
# -fplugin-arg-repstos-min-const=N, N <= 256: GCC 12 expands it inline);
# main.c checks every byte they write and prints $SMALL_WANT.  The
# Makefile takes CC and CFLAGS (default -O2 -g) and links ./prog.

SMALL_OBJS="main.o fill.o wipe.o"
SMALL_NOBJ=3
SMALL_WANT="ok 316"

write_small_project() {
	(cd "$1" || exit 1
cat >fill.c <<'EOF'
#include <string.h>
#include <stddef.h>
void fill(unsigned char *p, int c, size_t n) { memset(p, c, n); }
EOF
cat >wipe.c <<'EOF'
#include <string.h>
#include <strings.h>
#include <stddef.h>
struct rec { unsigned char b[256]; };
void wipe(void *p, size_t n) { bzero(p, n); }
/* A constant size: GCC 12 expands it inline, so it is a site only with
   -fplugin-arg-repstos-min-const=N for N <= 256. */
void reset(struct rec *r) { memset(r, 0, sizeof *r); }
EOF
cat >main.c <<'EOF'
#include <stdio.h>
#include <stddef.h>
struct rec { unsigned char b[256]; };
void fill(unsigned char *p, int c, size_t n);
void wipe(void *p, size_t n);
void reset(struct rec *r);
int main(void)
{
	static unsigned char buf[4096 + 32];
	struct rec r;
	size_t n, i;
	int bad = 0, runs = 0;
	for (n = 0; n <= 4096; n += 13, runs++) {
		for (i = 0; i < sizeof buf; i++) buf[i] = 0xee;
		fill(buf + 16, (int)(n & 0x7f) + 1, n);
		for (i = 0; i < sizeof buf; i++)
			if (buf[i] != (i >= 16 && i < 16 + n ? (n & 0x7f) + 1 : 0xee)) bad++;
		wipe(buf + 16, n);
		for (i = 16; i < 16 + n; i++) if (buf[i]) bad++;
	}
	for (i = 0; i < sizeof r.b; i++) r.b[i] = 1;
	reset(&r);
	for (i = 0; i < sizeof r.b; i++) if (r.b[i]) bad++;
	if (bad) { printf("bad %d\n", bad); return 1; }
	printf("ok %d\n", runs);
	return 0;
}
EOF
cat >Makefile <<'EOF'
CFLAGS = -O2 -g
OBJS = main.o fill.o wipe.o
prog: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS)
%.o: %.c
	$(CC) $(CFLAGS) -c -o $@ $<
EOF
	)
}
