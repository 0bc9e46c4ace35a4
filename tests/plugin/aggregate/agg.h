/* agg.h - the main() that tests/plugin/aggregate/agg.c includes: every function of
 * each size on patterned buffers, exact overlap (a struct assigned to
 * itself) included, a digest of every byte printed; the plain build
 * must print the same.  At -O0 main's own `r = site_ret(b)` is a
 * result copy too. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long digest = 1469598103934665603ULL;

static void mix(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		digest = (digest ^ c[i]) * 1099511628211ULL;
}

static void fill(void *p, size_t n, unsigned seed)
{
	unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		c[i] = (unsigned char)(i * 31 + seed);
}

#define RUN(n) do {							\
	struct s##n *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), r; \
	fill(b, n, 1); fill(a, n, 2);					\
	site_cp##n(a, b); mix(a, n);					\
	fill(a, n, 3); site_cp##n(a, a); mix(a, n);			\
	fill(&g##n##_b, n, 4); site_gl##n(); mix(&g##n##_a, n);	\
	fill(&g##n##_a, n, 5); site_mc##n(); mix(&g##n##_b, n);	\
	fill(a, n, 6); site_clr##n(a); mix(a, n);			\
	fill(a, n, 7); site_init##n(a, 9); mix(a, n);			\
	fill(b, n, 8); r = site_ret##n(b); mix(&r, n);			\
	fill(b, n, 11); site_res##n(b); mix(&g##n##_a, n);		\
	fill(a, n, 10); keep_vol##n(a, b); mix(a, n);			\
	digest += keep_arg##n(b);					\
	free(a); free(b);						\
} while (0)

int main(void)
{
	RUN(16); RUN(136); RUN(256); RUN(8192); RUN(8193); RUN(9000);
	RUN(16384);
	printf("digest %016llx\n", digest);
	return 0;
}
