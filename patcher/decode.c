// SPDX-License-Identifier: MIT
/*
 * decode.c - what the bytes at a site are, by Capstone.
 *
 * A site is one of two shapes (repstos_site.h): `call rel32` or
 * `rep stosb`, followed in both cases by NOPs that fill the site's
 * recorded length exactly.  Anything else - another instruction, a
 * NOP run that spills past the end, bytes that do not decode - is not a
 * contract form, nor is a fill the runtime would not recognize (it
 * compares bytes with runtime/sitecode.c).  Which call it is (stub or variant) is the caller's
 * business: it needs symbols or relocations.
 */
#include <string.h>
#include <capstone.h>

#include "patcher.h"
#include "../runtime/sitecode.h"

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

int rs_decode_site(const uint8_t *p, size_t len, uint64_t addr,
		   uint64_t *target, const char **why)
{
	const uint8_t *q = p;
	size_t n = len;
	uint64_t a = addr;
	int form;

	if (!cs_disasm_iter(cs, &q, &n, &a, insn)) {
		*why = "bytes do not decode";
		return 0;
	}
	if (insn->id == X86_INS_CALL && insn->size == 5 && p[0] == REPSTOS_OPC_CALL) {
		int32_t rel;

		memcpy(&rel, p + 1, 4);
		*target = addr + 5 + (int64_t)rel;
		form = 1;
	} else if (insn->id == X86_INS_STOSB && insn->size == 2 &&
		   p[0] == 0xf3) {
		/* f3 aa: rep stosb, the inline form (not repne, not a bare stosb) */
		form = 2;
	} else {
		*why = insn->id == X86_INS_CALL ? "call is not `call rel32`" :
		       "not a call or rep stosb";
		return 0;
	}
	if (!all_nops(q, n, a)) {
		*why = "bytes after the instruction are not NOPs filling the site";
		return 0;
	}
	/* The runtime recognizes only the NOPs it writes itself. */
	if (repstos_decode(p, len, addr, NULL) == REPSTOS_FORM_BAD) {
		*why = len > REPSTOS_SITE_MAX_LEN ?
		       "site longer than the runtime patches" :
		       "NOP fill differs from the runtime's (it would skip the site)";
		return 0;
	}
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
