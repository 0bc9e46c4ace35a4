// SPDX-License-Identifier: MIT
/*
 * Many hand-written sites in few text sections, for contract.sh: 20
 * functions of three sites in .text, 20 cold ones of two in
 * .text.unlikely, emitted in turn, and one of two in a section of its
 * own; one site of each function through a static inline helper.  102
 * sites; one table section per text section (three, or 41 with
 * -ffunction-sections).  With -DMAIN, a program that runs them all and
 * checks what they stored.
 */
#include "repstos.h"

static inline __attribute__((always_inline))
void wipe(void *p, unsigned long n)
{
	REPSTOS_CLEAR(p, n);
}

#define HOT(i)								\
	__attribute__((noinline))					\
	void hot##i(unsigned char *p, unsigned long n)			\
	{								\
		REPSTOS_MEMSET(p, i, n);				\
		wipe(p + 1, n);						\
		REPSTOS_MEMCPY(p + 2, p + 40, n);			\
	}
#define COLD(i)								\
	__attribute__((cold, noinline))					\
	void cold##i(unsigned char *p, unsigned long n)			\
	{								\
		REPSTOS_BZERO(p, n);					\
		wipe(p + 3, n);						\
	}
#define PAIR(i)		HOT(i) COLD(i)
#define TEN(i)		PAIR(i##0) PAIR(i##1) PAIR(i##2) PAIR(i##3)	\
			PAIR(i##4) PAIR(i##5) PAIR(i##6) PAIR(i##7)	\
			PAIR(i##8) PAIR(i##9)

TEN(1) TEN(2)

__attribute__((noinline, section(".text.handlinks")))
void other(unsigned char *p, unsigned long n)
{
	REPSTOS_MEMMOVE(p + 1, p, n);
	wipe(p, n);
}

#ifdef MAIN
static unsigned char b[64];
static int bad;

static void fill(void)
{
	for (unsigned i = 0; i < sizeof(b); i++)
		b[i] = 0x55;
}

/* hot: b[0] = i, b[1..8] = 0, then b[2..9] = b[40..47]; cold: b[0..10]
 * = 0. */
#define CALL(i)								\
	fill();								\
	hot##i(b, 8);							\
	bad |= b[0] != i || b[1] || b[9] != 0x55 || b[10] != 0x55;	\
	fill();								\
	cold##i(b, 8);							\
	bad |= b[0] || b[10] || b[11] != 0x55;
#define CALL_TEN(i)	CALL(i##0) CALL(i##1) CALL(i##2) CALL(i##3) CALL(i##4) \
			CALL(i##5) CALL(i##6) CALL(i##7) CALL(i##8) CALL(i##9)

/* Each function's stores: exit 1 if one is wrong. */
int main(void)
{
	CALL_TEN(1) CALL_TEN(2)
	fill();
	b[0] = 7;
	other(b, 8);	/* b[1..8] = 7 0x55..., then b[0..7] = 0 */
	bad |= b[7] || b[8] != 0x55;
	return bad;
}
#endif
