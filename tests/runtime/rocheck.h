/* SPDX-License-Identifier: MIT */
/*
 * rocheck.h - is the calling module's dispatch pointer (the stub's
 * target) read-only after start-up, and does it name the routine the
 * runtime chose?  A header of static functions, so that each module
 * (executable, shared object) checks its own copy of the runtime.
 */
#ifndef ROCHECK_H
#define ROCHECK_H

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "repstos.h"

extern void *REPSTOS_TARGET_SYMBOL __attribute__((visibility("hidden")));

static sigjmp_buf rocheck_jmp;

static void rocheck_segv(int sig)
{
	siglongjmp(rocheck_jmp, 1);
}

/* Write *p's own value back: 1 if that worked, 0 if it faulted. */
static int rocheck_writable(void **p)
{
	struct sigaction sa, old;
	volatile int writable = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rocheck_segv;
	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(rocheck_jmp, 1)) {
		*(void *volatile *)p = *(void *volatile *)p;
		writable = 1;
	}
	sigaction(SIGSEGV, &old, NULL);
	return writable;
}

/* One line to out; 1 when the pointer is read-only and right. */
static int rocheck_target(FILE *out)
{
	void *want = repstos_variant_routine(repstos_variant());
	int writable = rocheck_writable(&REPSTOS_TARGET_SYMBOL);
	int right = REPSTOS_TARGET_SYMBOL == want;

	fprintf(out, "dispatch pointer %s, %s (%s)\n",
		writable ? "WRITABLE" : "read-only",
		right ? "the chosen routine" : "NOT the chosen routine",
		repstos_variant_name(repstos_variant()));
	return !writable && right;
}

#endif
