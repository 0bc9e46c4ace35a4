// SPDX-License-Identifier: MIT
/*
 * race.c - other code runs on this executable's pages while its runtime
 * patches them (issue 10, D4).  32 sites, each in a function on a page
 * of its own, so start-up writes 32 pages; race_touch() runs all 32.
 *
 *   race thread|fork|alarm
 *
 * thread  librace.so's constructor (which runs before this executable's)
 *         started a thread that calls race_touch() in a loop
 * fork    ... a thread that forks children which call race_touch()
 * alarm   a preinit_array function arms a 20 us interval timer whose
 *         SIGALRM handler calls race_touch()
 *
 * While a page is read-write and not executable, any of them dies of
 * SIGSEGV.  Exit 0 when the sites worked and nothing else died; prints
 * how the runtime patched, for race.sh to check.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "repstos.h"

#define NPAGES 32

/* From librace.so: stop its thread; how many calls it made, how many
 * children died of a signal. */
void race_stop(unsigned long *calls, unsigned long *deaths);

#define PAGE_FN(x, y)							\
	__attribute__((noinline, aligned(4096)))			\
	static void page_##x##y(unsigned char *p)			\
	{								\
		REPSTOS_MEMSET(p + x * 8 + y, x * 8 + y + 1, 1);	\
	}
#define EIGHT(x) PAGE_FN(x, 0) PAGE_FN(x, 1) PAGE_FN(x, 2) PAGE_FN(x, 3) \
	PAGE_FN(x, 4) PAGE_FN(x, 5) PAGE_FN(x, 6) PAGE_FN(x, 7)
EIGHT(0) EIGHT(1) EIGHT(2) EIGHT(3)

#define REFS(x) page_##x##0, page_##x##1, page_##x##2, page_##x##3, \
	page_##x##4, page_##x##5, page_##x##6, page_##x##7
static void (*const pages[NPAGES])(unsigned char *) = {
	REFS(0), REFS(1), REFS(2), REFS(3),
};

/* Every page once; 0 when every site stored its byte. */
int race_touch(unsigned char *p)
{
	unsigned i;
	int bad = 0;

	memset(p, 0, NPAGES);
	for (i = 0; i < NPAGES; i++)
		pages[i](p);
	for (i = 0; i < NPAGES; i++)
		bad |= p[i] != i + 1;
	return bad;
}

static volatile sig_atomic_t alarms, alarm_bad;

static void on_alarm(int sig)
{
	unsigned char b[NPAGES];

	alarms++;
	alarm_bad |= race_touch(b);
}

static void set_timer(long usec)
{
	struct itimerval it = { { 0, usec }, { 0, usec } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* Before any constructor: the handler is live through all of start-up. */
static void arm(int argc, char **argv, char **envp)
{
	struct sigaction sa;

	if (argc < 2 || strcmp(argv[1], "alarm"))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	set_timer(20);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = arm;

int main(int argc, char **argv)
{
	const struct repstos_stats *st = repstos_stats();
	unsigned long calls = 0, deaths = 0;
	unsigned char b[NPAGES];
	int bad;

	set_timer(0);
	race_stop(&calls, &deaths);
	bad = race_touch(b) | alarm_bad;
	printf("%s: status %u, %u of %u sites patched via '%s' (error %d); "
	       "%lu calls from the thread, %d from the handler, %lu children "
	       "killed, %s\n", argc > 1 ? argv[1] : "-", st->status,
	       st->patched, st->sites, st->method, st->error, calls,
	       (int)alarms, deaths, bad ? "WRONG BYTES" : "bytes right");
	return bad || deaths ? 1 : 0;
}
