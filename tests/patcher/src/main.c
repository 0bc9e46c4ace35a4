// SPDX-License-Identifier: MIT
/*
 * main.c - semantics of every site after patching: memsets over sizes,
 * offsets and fill bytes through each site function and compares the
 * whole buffer, guard bytes included, with libc's memset.  Then the
 * runtime's status: argv[1] "static" requires REPSTOS_ST_STATIC for the
 * executable, argv[2] "static" the same for the shared library (when
 * linked with one).
 */
#include <stdio.h>
#include <string.h>
#include "repstos.h"

void *t_memset(void *p, int c, unsigned long n);
void t_bzero(void *p, unsigned long n);
void t_clear(void *p, unsigned long n);
void t_two(char *p, unsigned long n, void (*fn)(char *));
struct big { long v[64]; };
void t_gcc_inline(struct big *b);
int lib_run(unsigned *status) __attribute__((weak));

#define BUF 8320
static unsigned char buf[BUF], want[BUF];
static int fails;

static void same(const char *what, unsigned long at, unsigned long n, int c)
{
	unsigned long i;

	if (!memcmp(buf, want, BUF))
		return;
	for (i = 0; buf[i] == want[i]; i++)
		;
	if (fails++ < 10)
		printf("FAIL %s at=%lu n=%lu c=%#x: byte %lu is %#x, not %#x\n",
		       what, at, n, c, i, buf[i], want[i]);
}

static void reset(void)
{
	memset(buf, 0xee, BUF);
	memset(want, 0xee, BUF);
}

static void nothing(char *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void run(unsigned long at, unsigned long n)
{
	static const int fills[] = { 0, 1, 0x5a, 0x80, 0xff };
	unsigned f;

	for (f = 0; f < sizeof(fills) / sizeof(fills[0]); f++) {
		reset();
		memset(want + at, fills[f], n);
		if (t_memset(buf + at, fills[f], n) != buf + at)
			printf("FAIL t_memset return value\n"), fails++;
		same("t_memset", at, n, fills[f]);
	}
	reset();
	memset(want + at, 0, n);
	t_bzero(buf + at, n);
	same("t_bzero", at, n, 0);
	reset();
	memset(want + at, 0, n);
	t_clear(buf + at, n);
	same("t_clear", at, n, 0);
	reset();
	memset(want + at, 0x5a, n / 2);
	memset(want + at + n / 2, 0, n - n / 2);
	t_two((char *)buf + at, n, nothing);
	same("t_two", at, n, 0x5a);
}

static int check_status(const char *who, const char *expect, unsigned status)
{
	printf("%s status %u\n", who, status);
	if (expect && !strcmp(expect, "static") && status != REPSTOS_ST_STATIC) {
		printf("FAIL %s status %u is not REPSTOS_ST_STATIC\n", who, status);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned long sizes[] = { 0, 1, 2, 3, 7, 8, 15, 16, 17,
		31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 2048,
		4095, 4096, 4097, 8000 };
	const struct repstos_stats *st = repstos_stats();
	unsigned s, at, lib_status = 0;
	struct big b;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (at = 0; at < 4; at++)
			run(at, sizes[s]);
	memset(&b, 1, sizeof(b));
	t_gcc_inline(&b);
	if (b.v[0] || b.v[63])
		printf("FAIL t_gcc_inline\n"), fails++;
	printf("exe sites %u patched %u kept %u fixed %u skipped %u\n",
	       st->sites, st->patched, st->kept, st->fixed, st->skipped);
	fails += check_status("exe", argc > 1 ? argv[1] : NULL, st->status);
	if (lib_run) {
		if (lib_run(&lib_status))
			printf("FAIL library sites\n"), fails++;
		fails += check_status("lib", argc > 2 ? argv[2] : NULL, lib_status);
	}
	printf("%s\n", fails ? "FAILED" : "OK");
	return fails != 0;
}
