// SPDX-License-Identifier: MIT
/*
 * records.c - the demo: a small record parser of the kind that clears
 * buffers all day.  It reads "name,score,secret,payload" lines, keeps a
 * per-record scratch buffer sized to the line (cleared with memset of a
 * size only known at run time), zeroes structs, pads fields, and wipes
 * the secret with explicit_bzero.  Built with the plugin, each of those
 * calls becomes a site; built without, it is the same program.
 *
 *   records [N]   parse N generated records (default 200000) and print
 *                 a checksum that must not depend on how it was built
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIELD 64

struct record {
	char name[FIELD];
	long score;
	char secret[FIELD];
	unsigned char *payload;
	size_t payload_len;
};

static char dots[1601];

/* Deterministic input: line i, with lengths that vary like real data. */
static size_t make_line(char *out, size_t cap, unsigned long i)
{
	unsigned long h = i * 2654435761u;
	int plen = (int)(h % 97) + (i % 50 == 0 ? 1500 : 0);

	return (size_t)snprintf(out, cap, "user%lu,%lu,pw%lx,%.*s", i % 9973,
				h % 1000, h, plen, dots);
}

/* Copy a field and pad the rest of the slot with a fill byte. */
static void put_field(char *slot, size_t cap, const char *src, size_t len,
		      int pad)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(slot, src, len);
	memset(slot + len, pad, cap - len);
	slot[cap - 1] = 0;
}

static int parse(struct record *r, const char *line, size_t len,
		 unsigned char *scratch)
{
	const char *f[4];
	size_t n = 0, i;

	memset(r, 0, sizeof(*r));
	/* The scratch buffer is sized to the line: a run-time size. */
	memset(scratch, 0, len + 1);
	f[n++] = line;
	for (i = 0; i < len && n < 4; i++)
		if (line[i] == ',')
			f[n++] = line + i + 1;
	if (n < 4)
		return -1;
	put_field(r->name, FIELD, f[0], (size_t)(f[1] - f[0] - 1), 0);
	r->score = strtol(f[1], NULL, 10);
	put_field(r->secret, FIELD, f[2], (size_t)(f[3] - f[2] - 1), '*');
	r->payload_len = len - (size_t)(f[3] - line);
	memcpy(scratch, f[3], r->payload_len);
	r->payload = scratch;
	return 0;
}

static unsigned long digest(const struct record *r)
{
	unsigned long h = 5381;
	size_t i;

	for (i = 0; i < FIELD; i++)
		h = h * 33 + (unsigned char)r->name[i] + (unsigned char)r->secret[i];
	for (i = 0; i < r->payload_len; i++)
		h = h * 33 + r->payload[i];
	return h + (unsigned long)r->score;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	unsigned long i, sum = 0, bad = 0;
	static char line[4096];
	static unsigned char scratch[4096];
	struct record r;

	for (i = 0; i < sizeof(dots) - 1; i++)
		dots[i] = '.';
	for (i = 0; i < n; i++) {
		size_t len = make_line(line, sizeof(line), i);

		if (parse(&r, line, len, scratch)) {
			bad++;
			continue;
		}
		sum = sum * 31 + digest(&r);
		explicit_bzero(r.secret, sizeof(r.secret));
		bzero(line, len);
	}
	printf("%lu records, %lu bad, checksum %016lx\n", n, bad, sum);
	return 0;
}
