/* SPDX-License-Identifier: MIT */
/*
 * redzone.c - leaf functions that keep live locals in the 128-byte red
 * zone across a memset.  A site is a `call`, whose return address lands
 * at -8(%rsp): with the red zone in use it overwrites a live local.
 * Built with the plugin, every check must hold at every -O level.  Built
 * with -DCONTROL and without the plugin, the memset is a bare asm call to
 * the stub (what a site would be without the plugin's red-zone measure),
 * and the script expects corruption: proof that the checks can fail.
 */
#include <stdio.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

#ifdef CONTROL
#define MEMSET(p, c, n) do {						\
	void *d_ = (p);							\
	unsigned long n_ = (n), a_ = (unsigned char)(c);		\
	__asm__ __volatile__(".hidden __repstos_stub\n\t"		\
			     "call __repstos_stub"			\
			     : "+D" (d_), "+c" (n_), "+a" (a_)		\
			     : : "memory", "cc", "xmm0");		\
} while (0)
#else
#define MEMSET(p, c, n) memset(p, c, n)
#endif

/* Volatile locals live in memory: in a leaf, in the red zone. */
NOIPA long leaf_volatile(char *p, int c, size_t n, long a, long b)
{
	volatile long v[16];
	long bad = 0;

	for (int i = 0; i < 16; i++)
		v[i] = a * (i + 1) + b;
	MEMSET(p, c, n);
	for (int i = 0; i < 16; i++)
		bad += v[i] != a * (i + 1) + b;
	return bad;
}

/* More live values than registers: spilled, in a leaf, to the red zone. */
NOIPA long leaf_pressure(char *p, int c, size_t n, const long *in)
{
	long a0 = in[0], a1 = in[1], a2 = in[2], a3 = in[3], a4 = in[4];
	long a5 = in[5], a6 = in[6], a7 = in[7], a8 = in[8], a9 = in[9];
	long b0 = in[10], b1 = in[11], b2 = in[12], b3 = in[13];
	long b4 = in[14], b5 = in[15], b6 = in[16], b7 = in[17];

	MEMSET(p, c, n);
	return a0 + 3 * a1 + 5 * a2 + 7 * a3 + 11 * a4 + 13 * a5 + 17 * a6 +
	       19 * a7 + 23 * a8 + 29 * a9 + 31 * b0 + 37 * b1 + 41 * b2 +
	       43 * b3 + 47 * b4 + 53 * b5 + 59 * b6 + 61 * b7;
}

/* A plain local array next to the buffer being cleared. */
NOIPA int leaf_array(size_t n, int seed)
{
	char keep[48], wipe[64];
	int bad = 0;

	for (int i = 0; i < 48; i++)
		keep[i] = (char)(seed + i);
	MEMSET(wipe, 0x5a, n);
	for (int i = 0; i < 48; i++)
		bad += keep[i] != (char)(seed + i);
	for (size_t i = 0; i < n; i++)
		bad += wipe[i] != 0x5a;
	return bad;
}

int main(void)
{
	static char buf[4096];
	long in[18], want = 0;
	const int mul[18] = { 1, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37,
			      41, 43, 47, 53, 59, 61 };
	int failures = 0;

	for (int i = 0; i < 18; i++) {
		in[i] = 0x1000 + i * 0x11;
		want += mul[i] * in[i];
	}
	for (size_t n = 0; n <= 64; n += 7) {
		long v = leaf_volatile(buf, 0x33, n * 40, 0x123456789, 42);
		long s = leaf_pressure(buf, 0x44, n * 50, in);
		int a = leaf_array(n, 7);

		if (v || s != want || a) {
			printf("corrupted at n=%zu: volatile %ld, pressure %s, "
			       "array %d\n", n, v, s != want ? "bad" : "ok", a);
			failures++;
		}
	}
	printf("red zone: %d corrupted calls\n", failures);
	return failures != 0;
}
