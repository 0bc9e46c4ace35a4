/*
 * fns.c - a memset and a memcpy in a function built as ATTR says (one of
 * the target attributes regs.sh names, or nothing), and the same in a
 * plain function.  main.c calls them with sizes the compiler cannot
 * know; this unit alone is built with each case's options (-ffixed-rax
 * would refuse main's printf, which passes the vector count in al).
 */
#include <string.h>

#ifndef ATTR
#define ATTR
#endif

__attribute__((noinline, ATTR)) void odd_set(char *p, int c, size_t n)
{
	memset(p, c, n);
}

__attribute__((noinline, ATTR)) void odd_copy(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
}

__attribute__((noinline)) void plain_set(char *p, int c, size_t n)
{
	memset(p, c, n);
}

__attribute__((noinline)) void plain_copy(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
}

