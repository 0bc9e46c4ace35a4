// SPDX-License-Identifier: MIT
/*
 * use.c - the corpus of tests/plugin/use.sh: sites whose written bytes
 * their own function loads back (marked @read) and sites it does not
 * load back before calling out or returning (marked @left).  Every
 * function is noipa, so each site is in the function it is written in.
 */
#include <string.h>
#include "use.h"

#define F __attribute__((noipa))

struct hdr {
	int type, len;
	char body[256];
};

F int parse(const char *p, size_t n)
{
	struct hdr h;

	memcpy(&h, p, n);	/* @read */
	return h.type + h.len;
}

F int clear_then_read(char *p, size_t n)
{
	memset(p, 1, n);	/* @read */
	return p[3];
}

F int offset_read(char *p, size_t n, int k)
{
	memset(p + 8, 0, n);	/* @read */
	if (k > 3)
		return p[k];	/* in a block after */
	return 0;
}

F int moved_then_read(char *p, size_t n)
{
	memmove(p + 1, p, n);	/* @read */
	return p[n];
}

F void clear(char *p, size_t n)
{
	memset(p, 0, n);	/* @left: returns */
}

F int other_object(char *p, char *q, size_t n)
{
	memset(p, 1, n);	/* @left: the load is of another object */
	return q[3];
}

F int call_first(char *p, size_t n)
{
	memset(p, 1, n);	/* @left: calls out first */
	use_bytes(p);
	return p[0];
}

F void stores_only(int *p, size_t n)
{
	memset(p, 0, n * sizeof(*p));	/* @left: stores, no load */
	p[0] = 1;
	p[1] = 2;
}

F int far_read(char *p, size_t n, const int *v)
{
	int s = 0;

	memset(p, 1, n);	/* @left: the load is past the window */
	for (int i = 0; i < 8; i++)
		s += v[i] * v[i + 1] * v[i + 2] * v[i + 3] * v[i + 4] *
		     v[i + 5] * v[i + 6] * v[i + 7] * v[i + 8] * v[i + 9];
	s += v[10] + v[11] + v[12] + v[13] + v[14] + v[15] + v[16] + v[17] +
	     v[18] + v[19] + v[20] + v[21] + v[22] + v[23] + v[24] + v[25] +
	     v[26] + v[27] + v[28] + v[29] + v[30] + v[31] + v[32] + v[33] +
	     v[34] + v[35] + v[36] + v[37] + v[38] + v[39] + v[40] + v[41] +
	     v[42] + v[43] + v[44] + v[45] + v[46] + v[47] + v[48] + v[49] +
	     v[50] + v[51] + v[52] + v[53] + v[54] + v[55] + v[56] + v[57] +
	     v[58] + v[59] + v[60] + v[61] + v[62] + v[63] + v[64] + v[65];
	return s + p[0];
}
