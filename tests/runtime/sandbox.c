// SPDX-License-Identifier: MIT
/*
 * sandbox.c - a program whose memset and memcpy calls become sites when
 * built through the plugin, and which prints what they stored.  Built
 * plain too, for the system calls a program without sites makes
 * (sandbox.sh).
 *
 *   sandbox [thread|unshare]
 *
 * thread   a preinit_array function starts a thread and joins it, before
 *          any constructor: glibc then no longer says the process is
 *          single-threaded, and the start-up must find out otherwise
 * unshare  after the work, calls unshare(CLONE_VM): the one system call
 *          the program makes beyond the plain run's (does the filter
 *          bite?)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *nothing(void *arg)
{
	return arg;
}

/* Before every constructor, the runtime's among them. */
static void early(int argc, char **argv, char **envp)
{
	pthread_t t;

	(void)envp;
	if (argc > 1 && !strcmp(argv[1], "thread") &&
	    (pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL)))
		exit(3);
}
__attribute__((section(".preinit_array"), used))
static void (*const early_fn)(int, char **, char **) = early;

/* Sizes the compiler cannot know: the calls stay calls, sites here. */
__attribute__((noinline)) static void work(unsigned char *a, unsigned char *b,
					   size_t n)
{
	memset(a, 0x5a, n);
	memcpy(b, a, n / 2);
	memset(a + n / 4, 0, n / 4);
}

int main(int argc, char **argv)
{
	static unsigned char a[4096], b[4096];
	unsigned long sum = 0;
	size_t i, n = 1000 + (size_t)argc;

	work(a, b, n);
	for (i = 0; i < sizeof(a); i++)
		sum = sum * 31 + a[i] + 7 * b[i];
	printf("sum %lx\n", sum);
	if (argc > 1 && !strcmp(argv[1], "unshare")) {
		fflush(stdout);
		unshare(CLONE_VM);
		printf("unshare did not kill\n");
	}
	return 0;
}
