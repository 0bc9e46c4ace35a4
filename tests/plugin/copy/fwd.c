/* SPDX-License-Identifier: MIT */
/*
 * fwd.c - memmoves the plugin must and must not prove forward-safe
 * (REPSTOS_OP_MOVE_FWD = 5, else REPSTOS_OP_MOVE = 4); each function's
 * name ends in the op its site must have.  GCC itself turns most
 * memmoves between distinct objects into memcpy when it optimises; at
 * -O0 and -Og the distinct-objects rule is the plugin's.  Runs them too.
 */
#include <stdio.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

char ga[64], gb[64];

NOIPA void distinct_5(size_t i, size_t n) { memmove(ga + i, gb, n); }
NOIPA void local_5(size_t n) { char t[16] = "abcdefghijklmno"; memmove(ga, t, n); }
NOIPA void same_down_5(size_t n) { memmove(&ga[0], &ga[8], n); }
NOIPA void same_equal_5(size_t n) { memmove(ga + 3, ga + 3, n); }
NOIPA void same_up_4(size_t n) { memmove(&ga[8], &ga[0], n); }
NOIPA void same_var_4(size_t i, size_t n) { memmove(ga + i, ga, n); }
NOIPA void params_4(char *d, const char *s, size_t n) { memmove(d, s, n); }
NOIPA void param_down_5(char *p, size_t n) { memmove(p, p + 1, n); }
NOIPA void param_up_4(char *p, size_t n) { memmove(p + 1, p, n); }

int main(void)
{
	char buf[8] = "1234567";

	for (int i = 0; i < 64; i++)
		ga[i] = 'a' + i % 26, gb[i] = 'A' + i % 26;
	distinct_5(1, 4);		/* ga: aABCDf... */
	local_5(1);			/* ga: aABC... -> "a" */
	same_down_5(2);			/* ga[0..1] = ga[8..9] = "ij" */
	same_equal_5(4);
	same_up_4(4);			/* ga[8..11] = "ijAB" */
	same_var_4(2, 3);		/* ga[2..4] = "ijA" */
	params_4(buf, buf + 2, 3);	/* 3454567 */
	param_down_5(buf, 2);		/* 4554567 */
	param_up_4(buf, 3);		/* 4455567 */
	printf("%.12s %s\n", ga, buf);
	return 0;
}
