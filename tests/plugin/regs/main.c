/*
 * main.c - calls fns.c's functions and prints a sum of what they wrote,
 * so that every build of fns.c must print the same line.
 */
#include <stdio.h>
#include <stdlib.h>

void odd_set(char *p, int c, size_t n);
void odd_copy(char *d, const char *s, size_t n);
void plain_set(char *p, int c, size_t n);
void plain_copy(char *d, const char *s, size_t n);

static char a[512], b[512];

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 300;
	unsigned long sum = 0;

	plain_set(a, 7, n);
	odd_set(a + 3, 9, n / 2);
	plain_copy(b, a, n);
	odd_copy(b + 100, a + 1, n / 3);
	for (size_t i = 0; i < sizeof(b); i++)
		sum = sum * 31 + (unsigned char)b[i];
	printf("%lu\n", sum);
	return 0;
}
