/* SPDX-License-Identifier: MIT */
/*
 * check.c - the corpus harness, compiled WITHOUT the plugin.  Calls every
 * operation over sizes, offsets and fill values, and compares each
 * buffer byte for byte, guard bytes included, with the reference; also
 * the returned pointer.  Prints one digest line that a build without the
 * plugin must print identically.  With -DUSE_DLOPEN the operations come
 * from the shared object named in argv[1].
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include "corpus.h"
#ifdef USE_DLOPEN
#include <dlfcn.h>
#endif

#define BUF_SIZE (70000 + 256)

static unsigned char buf[BUF_SIZE];
static unsigned long checks, failures;
static uint64_t digest = 1469598103934665603ull;

static const size_t sizes[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64,
	65, 100, 127, 128, 129, 200, 255, 256, 257, 300, 511, 1000, 2047,
	4095, 4096, 4097, 8192, 8193, 20000, 65535, 70000,
};
static const int fills[] = { 0, 0x7f, 0x80, 0x17f, -129, 0x100 };
static const size_t offsets[] = { 0, 1, 7, 13 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static unsigned char guard(size_t i)
{
	return (unsigned char)(i * 7 + 0x35);
}

static void mix(uint64_t v)
{
	digest = (digest ^ v) * 1099511628211ull;
}

static void check_one(const struct corpus_op *op, size_t off, int c, size_t n)
{
	size_t len = op->fixed ? op->fixed : n;
	size_t end = off + len + 64, i;
	unsigned char want = op->fill >= 0 ? op->fill : (unsigned char)c;
	void *ret;
	int bad = 0;

	if (end > BUF_SIZE)
		return;
	for (i = 0; i < end; i++)
		buf[i] = guard(i);
	ret = op->fn(buf + off, c, n);
	for (i = 0; i < end && !bad; i++) {
		unsigned char e = i >= off && i < off + len ? want : guard(i);

		if (buf[i] != e) {
			printf("FAIL %s off %zu c %#x n %zu: byte %zu is %#x, "
			       "want %#x\n", op->name, off, c, n, i, buf[i], e);
			bad = 1;
		}
	}
	if (op->returns_p && ret != buf + off) {
		printf("FAIL %s off %zu n %zu: returned %p, want %p\n",
		       op->name, off, n, ret, (void *)(buf + off));
		bad = 1;
	}
	checks++;
	failures += bad;
	mix(buf[off]);
	mix(buf[off + len]);
	mix(len);
}

static void check_table(const struct corpus_op *ops)
{
	for (; ops->name; ops++) {
		unsigned long before = failures;

		for (size_t o = 0; o < N(offsets); o++)
			for (size_t f = 0; f < N(fills); f++) {
				if (ops->fill >= 0 && f > 1)
					break;	/* c is ignored: two suffice */
				for (size_t s = 0; s < N(sizes); s++) {
					if (ops->max && sizes[s] > ops->max)
						continue;
					if (ops->fixed && s > 0)
						break;
					check_one(ops, offsets[o], fills[f],
						  sizes[s]);
				}
			}
		if (failures > before && failures - before > 20)
			break;
	}
}

int main(int argc, char **argv)
{
	const struct corpus_op *tabs[3] = {
#ifndef USE_DLOPEN
		corpus_ops, corpus_fills, corpus_helpers
#endif
	};
#ifdef USE_DLOPEN
	const char *names[3] = { "corpus_ops", "corpus_fills", "corpus_helpers" };
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;

	if (!h) {
		printf("FAIL dlopen: %s\n", argc > 1 ? dlerror() : "no file");
		return 1;
	}
	for (int t = 0; t < 3; t++)
		tabs[t] = dlsym(h, names[t]);
#endif
	for (int t = 0; t < 3; t++) {
		if (!tabs[t]) {
			printf("FAIL: operation table %d missing\n", t);
			return 1;
		}
		check_table(tabs[t]);
	}
	printf("corpus: %lu checks, %lu failures, digest %016llx\n", checks,
	       failures, (unsigned long long)digest);
	return failures ? 1 : 0;
}
