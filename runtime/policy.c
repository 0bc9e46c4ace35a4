// SPDX-License-Identifier: MIT
/*
 * policy.c - which routine each site gets, per CPU.
 *
 * The rule is measured, not read off feature flags (tests/perf has the
 * numbers): on AMD Zen 3 (ERMS+FSRM, no FSRS) inline `rep stosb` costs
 * 2-13x glibc's memset below 4 KiB, although the 2022 kernel inlined it
 * for FSRM and today's kernel, which sets FSRS on AMD CPUs with FSRM,
 * still would.  So:
 *
 *  - the module-wide choice (the stub's target, and every site whose
 *    size the compiler did not bound) is "vec": size-dispatched
 *    overlapping stores, with rep stosb only from vec_rep_min up, and
 *    only where ERMS says rep stosb is a good large-size engine;
 *  - a site whose size the compiler proved to be at least inline_min
 *    bytes becomes inline `rep stosb`, where ERMS makes that as fast as
 *    anything at that size and the call would only add its own cost.
 *
 * CPUs measured (the table below) get what was measured there; unknown
 * CPUs get the conservative rule: "vec" is correct on every x86-64 and
 * does not depend on rep-string microcode for small sizes.  A tuning
 * file written by repstos_tune() on the machine itself overrides both
 * (runtime/tune.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "policy.h"

#define KIB 1024u

struct profile {
	const char *name;
	struct repstos_cpu cpu;
};

#define F(x) REPSTOS_CPU_##x
static const struct profile profiles[] = {
	{ "generic", { REPSTOS_VENDOR_OTHER, 0, 0, 0, 0 } },
	{ "skylake", { REPSTOS_VENDOR_INTEL, 6, 0x55, 0,
		       F(ERMS) | F(REP_GOOD) | F(AVX) | F(AVX2) | F(AVX512F) |
		       F(AVX512BW) | F(BMI2) } },
	{ "icelake", { REPSTOS_VENDOR_INTEL, 6, 0x6a, 0,
		       F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		       F(AVX512F) | F(AVX512BW) | F(BMI2) } },
	{ "sapphirerapids", { REPSTOS_VENDOR_INTEL, 6, 0x8f, 0,
			      F(ERMS) | F(FSRM) | F(FZRM) | F(FSRS) | F(FSRC) |
			      F(REP_GOOD) | F(AVX) | F(AVX2) | F(AVX512F) |
			      F(AVX512BW) | F(BMI2) } },
	{ "zen2", { REPSTOS_VENDOR_AMD, 0x17, 0x31, 0,
		    F(REP_GOOD) | F(AVX) | F(AVX2) | F(BMI2) } },
	{ "zen3", { REPSTOS_VENDOR_AMD, 0x19, 0x01, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(BMI2) } },
	{ "zen4", { REPSTOS_VENDOR_AMD, 0x19, 0x11, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(AVX512F) | F(AVX512BW) | F(BMI2) } },
	{ "zen5", { REPSTOS_VENDOR_AMD, 0x1a, 0x02, 0,
		    F(ERMS) | F(FSRM) | F(REP_GOOD) | F(AVX) | F(AVX2) |
		    F(AVX512F) | F(AVX512BW) | F(BMI2) } },
};
#undef F

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

const struct repstos_cpu *repstos_cpu_profile(const char *name)
{
	unsigned i;

	for (i = 0; i < NPROFILES; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i].cpu;
	return NULL;
}

const char *repstos_cpu_profile_name(unsigned i)
{
	return i < NPROFILES ? profiles[i].name : NULL;
}

/*
 * The measured table: vendor, family, model range and the features the
 * chosen routine needs, to what tests/perf measured there.  Only rows
 * measured on a real machine belong here; every other CPU gets the
 * conservative rule below.
 *
 * AMD family 0x1a (Zen 5): measured on an AMD EPYC family 0x1a model 2
 * (virtualized, 2 cores, glibc 2.36 choosing __memset_avx512_unaligned_erms;
 * tests/perf/results): "avx512" is ~2x glibc on the 1..256 mix and its
 * 64-byte store loop beats rep stosb (glibc's choice from 2 KiB) by
 * 1.5-1.8x from 4 KiB to 256 KiB; rep stosb wins again from 512 KiB
 * (the loop: 8.5 us at 1 MiB, rep stosb 7.2).  So rep stosb from
 * 512 KiB, and a site goes inline only when proven that large.  "vec"
 * loses to rep stosb from 2 KiB.
 */
struct measured {
	unsigned vendor, family, model_lo, model_hi;
	unsigned need;			/* features the row needs */
	enum repstos_variant variant;
	unsigned long long vec_rep_min, wide_rep_min;
	unsigned inline_min;
	const char *source;
};

#define F(x) REPSTOS_CPU_##x
static const struct measured table[] = {
	{ REPSTOS_VENDOR_AMD, 0x1a, 0x00, 0xff,
	  F(ERMS) | F(AVX512F) | F(AVX512BW) | F(BMI2),
	  REPSTOS_VARIANT_AVX512, 2 * KIB, 512 * KIB, 512 * KIB,
	  "measured: AMD family 0x1a (EPYC model 2)" },
};
#undef F

static const struct measured *lookup(const struct repstos_cpu *cpu)
{
	unsigned i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct measured *m = &table[i];

		if (m->vendor == cpu->vendor && m->family == cpu->family &&
		    cpu->model >= m->model_lo && cpu->model <= m->model_hi &&
		    (cpu->features & m->need) == m->need)
			return m;
	}
	return NULL;
}

void repstos_policy_tuning(const struct repstos_cpu *cpu,
			   struct repstos_tuning *t)
{
	const struct measured *m = lookup(cpu);

	if (m) {
		t->variant = m->variant;
		t->vec_rep_min = m->vec_rep_min;
		t->wide_rep_min = m->wide_rep_min;
		t->inline_min = m->inline_min;
		t->source = m->source;
		return;
	}
	/* The conservative rule: "vec" (SSE2, correct on every x86-64, no
	 * rep-string microcode below 4 KiB, no dirty upper halves); rep
	 * stosb from 4 KiB where ERMS says it is a good large-size engine
	 * (on the Zen 3 reference it matches glibc from 4 KiB), never
	 * without ERMS. */
	t->variant = REPSTOS_VARIANT_VEC;
	t->wide_rep_min = ~0ull;
	if (!(cpu->features & REPSTOS_CPU_ERMS)) {
		t->vec_rep_min = ~0ull;
		t->inline_min = ~0u;
		t->source = "auto: sized stores at every size (no erms)";
		return;
	}
	t->vec_rep_min = 4 * KIB;
	t->wide_rep_min = 4 * KIB;
	t->inline_min = 4 * KIB;
	t->source = "auto: sized stores, rep stosb from 4 KiB (erms)";
}

int repstos_policy_supported(const struct repstos_cpu *cpu,
			     enum repstos_variant v)
{
	unsigned f = cpu->features;

	switch (v) {
	case REPSTOS_VARIANT_AVX2:
		return (f & REPSTOS_CPU_AVX2) != 0;
	case REPSTOS_VARIANT_AVX512:
		return (f & (REPSTOS_CPU_AVX512F | REPSTOS_CPU_AVX512BW |
			     REPSTOS_CPU_BMI2)) ==
		       (REPSTOS_CPU_AVX512F | REPSTOS_CPU_AVX512BW |
			REPSTOS_CPU_BMI2);
	default:
		return (unsigned)v < REPSTOS_VARIANT_COUNT;
	}
}

enum repstos_variant repstos_policy_site_tuned(const struct repstos_tuning *t,
					       enum repstos_variant module,
					       int forced,
					       const struct repstos_site *e)
{
	if (forced)
		return module;
	if (e->size_kind != REPSTOS_SIZE_UNKNOWN && e->size_min >= t->inline_min)
		return REPSTOS_VARIANT_INLINE;
	return module;
}

/* The names REPSTOS_VARIANT, --cpu and the tuning file spell. */
const char *const repstos_variant_names[REPSTOS_VARIANT_COUNT] = {
#define REPSTOS_X_NAME(e, name, sym) [REPSTOS_VARIANT_##e] = name,
	REPSTOS_VARIANTS(REPSTOS_X_NAME)
#undef REPSTOS_X_NAME
};

/* ---- the tuning file -------------------------------------------------- */

int repstos_tuning_format(char *buf, unsigned len, const struct repstos_cpu *cpu,
			  const struct repstos_tuning *t)
{
	int n = snprintf(buf, len,
		"# repstos tuning (repstos_tune): applies only to this cpu\n"
		"cpu %x %x %x %x %x\n"
		"variant %s\nvec_rep_min %llu\nwide_rep_min %llu\ninline_min %u\n",
		cpu->vendor, cpu->family, cpu->model, cpu->stepping,
		cpu->features, (unsigned)t->variant < REPSTOS_VARIANT_COUNT ?
		repstos_variant_names[t->variant] : "vec", t->vec_rep_min, t->wide_rep_min,
		t->inline_min);

	return n < 0 || (unsigned)n >= len ? -1 : n;
}

/* Parsing without stdio's sscanf: it runs in every program's start-up. */
static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *word(const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p[n] == ' ' || p[n] == '\t') ?
		skip_blank(p + n) : NULL;
}

static const char *number(const char *p, int base, unsigned long long *v)
{
	const char *s = p;

	*v = 0;
	for (;; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			break;
		*v = *v * (unsigned)base + d;
	}
	return p == s ? NULL : skip_blank(p);
}

int repstos_tuning_parse(const char *text, const struct repstos_cpu *cpu,
			 struct repstos_tuning *t)
{
	const unsigned want[5] = { cpu->vendor, cpu->family, cpu->model,
				   cpu->stepping, cpu->features };
	struct repstos_tuning n = *t;
	const char *p = text, *q;
	int have_cpu = 0;

	while (*p) {
		unsigned long long v;
		int i;

		p = skip_blank(p);
		if ((q = word(p, "cpu"))) {
			for (i = 0; i < 5; i++) {
				if (!(q = number(q, 16, &v)))
					return -1;
				if (v != want[i])
					return 0;
			}
			have_cpu = 1;
		} else if ((q = word(p, "variant"))) {
			for (i = 0; i < REPSTOS_VARIANT_COUNT; i++) {
				size_t l = strlen(repstos_variant_names[i]);

				if (!strncmp(q, repstos_variant_names[i], l) &&
				    (q[l] == '\n' || q[l] == ' ' || !q[l]))
					break;
			}
			if (i == REPSTOS_VARIANT_COUNT)
				return -1;
			n.variant = i;
			q += strlen(repstos_variant_names[i]);
		} else if ((q = word(p, "vec_rep_min"))) {
			if (!(q = number(q, 10, &v)))
				return -1;
			n.vec_rep_min = v;
		} else if ((q = word(p, "wide_rep_min"))) {
			if (!(q = number(q, 10, &v)))
				return -1;
			n.wide_rep_min = v;
		} else if ((q = word(p, "inline_min"))) {
			if (!(q = number(q, 10, &v)) || v > ~0u)
				return -1;
			n.inline_min = (unsigned)v;
		} else if (*p == '#' || *p == '\n') {
			q = p;
		} else {
			return -1;
		}
		q = strchr(q, '\n');
		p = q ? q + 1 : "";
	}
	if (!have_cpu)
		return -1;
	if (!repstos_policy_supported(cpu, (enum repstos_variant)n.variant))
		return -1;
	n.source = "tuning file";
	*t = n;
	return 1;
}

/* Not in a secure execution (set-user-ID...): there the user may not
 * name a file for the program to open. */
const char *repstos_tuning_path(void)
{
	const char *path = secure_getenv("REPSTOS_TUNING");

	return path ? path : "/etc/repstos/tuning";
}

/* Only a regular file, so that no path (a FIFO, a device) can make
 * start-up wait or act; only root's or the real user's, so that nobody
 * else's file steers the program. */
static int trusted(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       (st.st_uid == 0 || st.st_uid == getuid());
}

/* Plain system calls, one open() when there is no file: this runs in
 * every module's start-up.  O_NONBLOCK: opening a FIFO must not wait
 * for a writer before trusted() turns it away. */
int repstos_tuning_load(const char *path, const struct repstos_cpu *cpu,
			struct repstos_tuning *t, int *other)
{
	char text[1024];
	ssize_t n;
	int fd, r;

	repstos_policy_tuning(cpu, t);
	*other = 0;
	if (!path || !*path)
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (!trusted(fd)) {
		close(fd);
		return 0;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	r = repstos_tuning_parse(text, cpu, t);
	*other = r == 0;
	return r;
}
