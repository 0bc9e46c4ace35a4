/* SPDX-License-Identifier: MIT */
/*
 * rocheck.h - once start-up is done, can anything but a write of text
 * send the calling module's set stub anywhere, and does it go to the
 * routine the runtime chose?  A header of static functions, so that
 * each module (executable, shared object) checks its own copy of the
 * runtime.
 *
 * The stub has no pointer (runtime/module/dispatch.S): its jump, in
 * text, is rewritten to the chosen routine where text may be written;
 * elsewhere (REPSTOS_PATCH=0, refused) it goes to its fallback, which
 * takes routine[byte] from a constant table, and a byte past the
 * table's end takes "original".  So: a jump straight to the chosen
 * routine, on text that does not take a write; or the fallback, whose
 * byte names the chosen routine, and which with the byte at 255 still
 * runs a routine of the family, right.
 */
#ifndef ROCHECK_H
#define ROCHECK_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "repstos.h"
#include "module/module.h"
#include "routines/routines.h"

static sigjmp_buf rocheck_jmp;

static void rocheck_segv(int sig)
{
	siglongjmp(rocheck_jmp, 1);
}

/* Write *p's own value back: 1 if that worked, 0 if it faulted. */
static int rocheck_writable(volatile uint8_t *p)
{
	struct sigaction sa, old;
	volatile int writable = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rocheck_segv;
	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(rocheck_jmp, 1)) {
		*p = *p;
		writable = 1;
	}
	sigaction(SIGSEGV, &old, NULL);
	return writable;
}

/* A 100-byte memset of 0x5a through the stub itself: right? */
static int rocheck_call_stub(void)
{
	unsigned char b[128];
	void *d = b + 1;
	unsigned long n = 100, a = 0x5a;
	int i, ok = 1;

	memset(b, 0, sizeof(b));
	__asm__ __volatile__(REPSTOS_RED_ZONE_ENTER
			     "call " REPSTOS_STR(REPSTOS_STUB_SYMBOL)
			     REPSTOS_RED_ZONE_LEAVE
			     : "+D"(d), "+c"(n), "+a"(a) : : "memory", "cc", "xmm0");
	for (i = 0; i < 128; i++)
		ok &= b[i] == (i >= 1 && i <= 100 ? 0x5a : 0);
	return ok && d == b + 101 && !n && a == 0x5a;
}

/* One line to out; 1 when the stub goes only where it should. */
static int rocheck_target(FILE *out)
{
	enum repstos_variant v = repstos_variant();
	void *want = repstos_variant_routine(v);
	volatile uint8_t *jump = (uint8_t *)REPSTOS_STUB_SYMBOL + REPSTOS_STUB_JUMP_AT;
	uintptr_t next = (uintptr_t)jump + 5, to = next;
	unsigned char byte = __repstos_set_choice;
	int right, bounded;

	if (jump[0] != 0xe9) {
		fprintf(out, "dispatch: the stub's jump is not a jump\n");
		return 0;
	}
	to += (uintptr_t)(intptr_t)*(volatile int32_t *)(jump + 1);
	if (to != next) {
		right = to == (uintptr_t)want;
		bounded = !rocheck_writable(jump);
		fprintf(out, "dispatch: the stub jumps %s, in text %s, %s (%s)\n",
			right ? "to the chosen routine" : "ELSEWHERE",
			bounded ? "that takes no write" : "THAT IS WRITABLE",
			right ? "the chosen routine" : "NOT the chosen routine",
			repstos_variant_name(v));
		return right && bounded;
	}
	/* Through the fallback: its byte, then the byte at its worst. */
	right = byte < REPSTOS_VARIANT_COUNT &&
		repstos_variant_routine((enum repstos_variant)byte) == want;
	__repstos_set_choice = 255;
	bounded = rocheck_call_stub();
	__repstos_set_choice = byte;
	bounded &= rocheck_call_stub();
	fprintf(out, "dispatch: the stub's fallback, its byte %s (%s); "
		"the byte at 255 %s\n",
		right ? "the chosen routine" : "NOT the chosen routine",
		repstos_variant_name(v),
		bounded ? "runs a routine of the family, right" :
			  "runs something WRONG");
	return right && bounded;
}

#endif
