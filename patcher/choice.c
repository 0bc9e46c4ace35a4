// SPDX-License-Identifier: MIT
/*
 * choice.c - what each site gets, for `patch` and `dump --profile`: the
 * tuning for a --cpu name, and a size profile read against the file's
 * table.  The deciding itself is the runtime's own function
 * (repstos_policy_site), so ahead of time and at start-up a site gets
 * the same form from the same profile, pins and costs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patcher.h"
#include "policy/profile.h"

/* --cpu=native chooses as the runtime would here: the policy for this
 * CPU, overridden by the tuning file `repstos tune` wrote for it.  A
 * malformed one (or one too large to be read whole) is an error: the
 * runtime ignores it, and a file patched ahead of time should not be
 * chosen from numbers nobody meant. */
static int native_tuning(struct rs_choice *c)
{
	const char *path = repstos_tuning_path();
	int other;

	repstos_cpu_detect(&c->native);
	c->cpu = &c->native;
	if (repstos_tuning_load(path, c->cpu, &c->tuning, &other) >= 0)
		return 0;
	rs_err(path, "malformed tuning file (at most %u bytes, every line "
	       "ended by a newline)", REPSTOS_TUNING_MAX - 1);
	return -1;
}

bool rs_cpu_known(const char *name)
{
	int f;

	for (f = 0; f < REPSTOS_NFAMILY; f++)
		if (repstos_family_by_name(&repstos_families[f], name) >= 0)
			return true;
	return !strcmp(name, "native") || repstos_cpu_profile(name);
}

/*
 * A routine's name forces it on the sites of its family (set or copy;
 * most names are both).  A name only one family has, "erms" say, leaves
 * the other family to this CPU's choice, as REPSTOS_VARIANT=erms does at
 * run time.
 */
int rs_choice_cpu(struct rs_choice *c, const char *file, const char *name)
{
	int f, v;

	memset(c, 0, sizeof(*c));
	for (f = 0; f < REPSTOS_NFAMILY; f++) {
		v = repstos_family_by_name(&repstos_families[f], name);
		c->mods.fam[f].variant = v;
		c->mods.fam[f].forced = v >= 0;
		c->native_other |= v < 0;
	}
	if (rs_choice_forced(c)) {
		if (c->native_other && native_tuning(c))
			return -1;
		for (f = 0; f < REPSTOS_NFAMILY; f++)
			if (!c->mods.fam[f].forced)
				c->mods.fam[f].variant = c->tuning.fam[f].variant;
		return 0;
	}
	c->native_other = false;
	if (!strcmp(name, "native")) {
		if (native_tuning(c))
			return -1;
	} else {
		c->cpu = repstos_cpu_profile(name);
		if (c->cpu)
			repstos_policy_tuning(c->cpu, &c->tuning);
	}
	if (!c->cpu) {
		rs_err(file, "unknown --cpu profile '%s' (see repstos --help)",
		       name);
		return -1;
	}
	for (f = 0; f < REPSTOS_NFAMILY; f++)
		c->mods.fam[f].variant = c->tuning.fam[f].variant;
	return 0;
}

/* The hash the runtime computes over its table in memory: the same
 * entries, in the same order, as the file holds them. */
uint64_t rs_table_hash(const struct rs_table *t)
{
	uint64_t h = REPSTOS_HASH_INIT;
	size_t i;

	for (i = 0; i < t->n; i++)
		h = repstos_hash(h, &t->site[i].e, sizeof(t->site[i].e));
	return h;
}

/* The profile's text, NUL-terminated; NULL after one line saying why. */
static char *read_profile(const char *path, size_t *len)
{
	struct stat st;
	char *text = NULL;
	ssize_t k = 1;
	size_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rs_err(path, "cannot open the profile: %s", strerror(errno));
		return NULL;
	}
	/* the runtime's limit: what one reads, the other does */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > REPSTOS_PROFILE_MAX)
		rs_err(path, "profile refused: not a regular file of at most "
		       "%u MiB", REPSTOS_PROFILE_MAX_MIB);
	else if (!(text = malloc((size_t)st.st_size + 1)))
		rs_err(path, "out of memory");
	while (text && n < (size_t)st.st_size && k > 0) {
		k = read(fd, text + n, (size_t)st.st_size - n);
		n += k > 0 ? (size_t)k : 0;
	}
	close(fd);
	if (text) {
		text[n] = 0;
		*len = n;
	}
	return text;
}

int rs_choice_profile(struct rs_choice *c, const struct rs_elf *f,
		      const struct rs_table *t, const char *path)
{
	struct repstos_profile p = { .hash = rs_table_hash(t),
				     .nsites = (unsigned)t->n };
	char msg[160];
	size_t len;
	char *text;
	int r;

	if (f->rel) {
		rs_err(f->path, "an object file has no profile: profile the "
		       "executable or shared object it goes into");
		return -1;
	}
	if (!(text = read_profile(path, &len)))
		return -1;
	r = repstos_profile_accept(text, len, t->n ? &t->site[0].e : NULL,
				   sizeof(t->site[0]), &p, msg, sizeof(msg));
	free(text);
	if (r == -2)
		rs_err(path, "out of memory");
	else if (r < 0)
		rs_err(path, "profile refused for %s: %s", f->path, msg);
	if (r < 0)
		return -1;
	c->hist = p.hist;
	c->pin = p.pin;
	c->sections = p.sections;
	c->pins = p.pins;
	return 0;
}

const struct repstos_costs *rs_choice_table(const struct rs_choice *c,
					    unsigned op)
{
	return &c->tuning.fam[repstos_family_of(op)->id].costs;
}

int rs_choice_module(const struct rs_choice *c, unsigned op)
{
	return c->mods.fam[repstos_family_of(op)->id].variant;
}

bool rs_choice_costs(const struct rs_choice *c, unsigned op)
{
	return repstos_cost_forms(rs_choice_table(c, op)) != 0;
}

struct repstos_decision rs_choice_site(const struct rs_choice *c,
				       const struct rs_site *s)
{
	return repstos_policy_site(&c->tuning, &c->mods, c->cpu,
				   repstos_family_of(s->e.op), &s->e,
				   c->hist ? c->hist[s->entry] : NULL,
				   c->pin ? c->pin[s->entry] : 0);
}

int rs_choice_module_for(const struct rs_choice *c, const struct rs_site *s)
{
	return repstos_policy_module_for(&c->mods, repstos_family_of(s->e.op),
					 repstos_version_narrow(s->e.version));
}

const char *rs_choice_older(const struct rs_choice *c,
			    const struct rs_routine *rt,
			    const struct rs_site *s, int *r)
{
	const struct repstos_family *f = repstos_family_of(s->e.op);
	const char *gone = rs_routines[*r].sym;

	if (rt[*r].have || c->mods.fam[f->id].forced)
		return NULL;
	*r = rs_routine_of(s->e.op, rs_choice_module_for(c, s));
	return gone;
}

void rs_choice_free(struct rs_choice *c)
{
	free(c->hist);
	free(c->pin);
	c->hist = NULL;
	c->pin = NULL;
}
