// SPDX-License-Identifier: MIT
/*
 * decode.c - what the bytes at a site are, by Capstone.
 *
 * A site is one of two shapes (repstos_site.h): `call rel32` or
 * `rep stosb` (`rep movsb` for a copy), followed in both cases by NOPs that fill the site's
 * recorded length exactly.  runtime/policy/sitecode.c, the runtime's own
 * decoder, decides; Capstone only says in words why bytes are not a
 * site, and prints instructions for `dump`.  Which call it is (stub or
 * variant) is the caller's business: it needs symbols or relocations.
 */
#include <string.h>
#include <capstone.h>

#include "patcher.h"
#include "policy/sitecode.h"

static csh cs;
static cs_insn *insn;
static bool ready;

int rs_decode_init(void)
{
	if (ready)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -1;
	/* AT&T, as GCC and objdump print it; details for where an
	 * instruction's displacement is (rs_decode_same_start). */
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	if (!insn) {
		cs_close(&cs);
		return -1;
	}
	ready = true;
	return 0;
}

void rs_decode_fini(void)
{
	if (!ready)
		return;
	cs_free(insn, 1);
	cs_close(&cs);
	ready = false;
}

/* The rest of the site, p[0..len), is NOP instructions exactly. */
static bool all_nops(const uint8_t *p, size_t len, uint64_t addr)
{
	while (len) {
		if (!cs_disasm_iter(cs, &p, &len, &addr, insn) ||
		    insn->id != X86_INS_NOP)
			return false;
	}
	return true;
}

/* Why bytes the runtime's decoder refuses are not a site doing op, in
 * words. */
static const char *why_bad(const uint8_t *p, size_t len, uint64_t addr,
			   unsigned op)
{
	unsigned string = repstos_op_is_copy(op) ? X86_INS_MOVSB : X86_INS_STOSB;
	const char *what = repstos_op_is_copy(op) ? "not a call or rep movsb" :
						    "not a call or rep stosb";
	const uint8_t *q = p;
	size_t n = len;
	uint64_t a = addr;

	if (!cs_disasm_iter(cs, &q, &n, &a, insn))
		return "bytes do not decode";
	if (insn->id == X86_INS_CALL && insn->size != REPSTOS_CALL_LEN)
		return "call is not `call rel32`";
	if (insn->id != X86_INS_CALL && insn->id != string)
		return what;
	/* a bare or repne string instruction */
	if (insn->id == string && (insn->size != REPSTOS_INLINE_LEN ||
				   p[0] != REPSTOS_OPC_REP))
		return what;
	if (!all_nops(q, n, a))
		return "bytes after the instruction are not NOPs filling the site";
	if (len > REPSTOS_SITE_MAX_LEN)
		return "site longer than the runtime patches";
	if (len < REPSTOS_SITE_LEN)
		return "site shorter than a call";
	return "NOP fill differs from the runtime's (it would skip the site)";
}

enum repstos_form rs_decode_site(const uint8_t *p, size_t len, uint64_t addr,
				 unsigned op, uint64_t *target,
				 const char **why)
{
	enum repstos_form form = REPSTOS_FORM_BAD;

	/* The runtime's own decoder says what a site is, so the tool never
	 * calls good what the runtime would skip, nor the other way. */
	if (len <= REPSTOS_SITE_MAX_LEN)
		form = repstos_decode(p, (unsigned)len, addr, op, target);
	if (form == REPSTOS_FORM_BAD)
		*why = why_bad(p, len, addr, op);
	return form;
}

void rs_disasm(const uint8_t *p, size_t len, uint64_t addr, char *buf,
	       size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	while (len && used + 1 < size) {
		int k;

		if (!cs_disasm_iter(cs, &p, &len, &addr, insn)) {
			snprintf(buf + used, size - used, "%s(bad)",
				 used ? "; " : "");
			return;
		}
		k = snprintf(buf + used, size - used, "%s%s%s%s",
			     used ? "; " : "", insn->mnemonic,
			     insn->op_str[0] ? " " : "", insn->op_str);
		if (k < 0)
			return;
		used += (size_t)k;
	}
}

/* Where the current instruction's RIP-relative displacement is:
 * *at and its size, or 0. */
static uint8_t rip_disp(size_t *at)
{
	const cs_x86 *x = &insn->detail->x86;
	uint8_t i;

	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type == X86_OP_MEM &&
		    x->operands[i].mem.base == X86_REG_RIP) {
			*at = x->encoding.disp_offset;
			return x->encoding.disp_size;
		}
	}
	return 0;
}

/*
 * Do the bytes at p start with the same n instructions as the code at
 * ref (fewer when ref returns or jumps away before)?  Both are decoded
 * at address 0, so that a relative branch compares by its distance; a
 * RIP-relative displacement is left out, as it is where the linker put
 * the data, different in every file.
 */
bool rs_decode_same_start(const uint8_t *p, size_t len, const void *ref,
			  unsigned n)
{
	const uint8_t *r = ref;
	size_t rlen = 16 * n, at = 0;
	uint64_t raddr = 0, addr = 0;
	uint8_t want[16], size, dsize;
	unsigned id;

	while (n--) {
		if (!cs_disasm_iter(cs, &r, &rlen, &raddr, insn))
			return false;
		id = insn->id;
		size = insn->size;
		memcpy(want, insn->bytes, size);
		dsize = rip_disp(&at);
		if (dsize && at + dsize <= size)
			memset(want + at, 0, dsize);
		if (!cs_disasm_iter(cs, &p, &len, &addr, insn) ||
		    insn->id != id || insn->size != size)
			return false;
		if (dsize && at + dsize <= size)
			memset(insn->bytes + at, 0, dsize);
		if (memcmp(want, insn->bytes, size))
			return false;
		if (id == X86_INS_RET || id == X86_INS_JMP)
			break;
	}
	return true;
}
