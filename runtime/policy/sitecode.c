// SPDX-License-Identifier: MIT
/*
 * sitecode.c - site bytes: the only encoder and decoder of the forms in
 * repstos_site.h, used by the runtime, `repstos` and the tests.  The NOPs
 * are the forms Intel's SDM and AMD's APM recommend (0f 1f /0 with a
 * growing address mode).
 */
#include <string.h>
#include "sitecode.h"

#define REPSTOS_X_NAME(e, name, num) [num] = name,
const char *const repstos_op_names[REPSTOS_OP_COUNT] = {
	REPSTOS_OPS(REPSTOS_X_NAME)
};

const char *const repstos_size_kind_names[REPSTOS_SIZE_KIND_COUNT] = {
	REPSTOS_SIZE_KINDS(REPSTOS_X_NAME)
};
#undef REPSTOS_X_NAME

static const uint8_t nop_forms[9][9] = {
	{ 0 },
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

void repstos_nops(uint8_t *out, unsigned len)
{
	while (len) {
		unsigned n = len > 8 ? 8 : len;

		memcpy(out, nop_forms[n], n);
		out += n;
		len -= n;
	}
}

static int len_ok(unsigned len)
{
	return len >= REPSTOS_SITE_LEN && len <= REPSTOS_SITE_MAX_LEN;
}

/* The string instruction that does op. */
static uint8_t string_opcode(unsigned op)
{
	return repstos_op_is_copy(op) ? REPSTOS_OPC_MOVSB : REPSTOS_OPC_STOSB;
}

int repstos_encode_inline(uint8_t *out, unsigned len, unsigned op)
{
	if (!len_ok(len))
		return -1;
	out[0] = REPSTOS_OPC_REP;
	out[1] = string_opcode(op);
	repstos_nops(out + REPSTOS_INLINE_LEN, len - REPSTOS_INLINE_LEN);
	return 0;
}

int repstos_encode_call(uint8_t *out, unsigned len, uint64_t site,
			uint64_t target)
{
	int64_t rel = (int64_t)(target - (site + REPSTOS_CALL_LEN));
	int32_t rel32 = (int32_t)rel;

	if (!len_ok(len) || rel != rel32)
		return -1;
	out[0] = REPSTOS_OPC_CALL;
	memcpy(out + REPSTOS_CALL_REL32, &rel32, sizeof(rel32));
	repstos_nops(out + REPSTOS_CALL_LEN, len - REPSTOS_CALL_LEN);
	return 0;
}

static int is_nops(const uint8_t *b, unsigned len)
{
	uint8_t want[REPSTOS_SITE_MAX_LEN];

	repstos_nops(want, len);
	return !memcmp(b, want, len);
}

/* The inline form with either string instruction: its opcode, or 0. */
static uint8_t inline_opcode(const uint8_t *b, unsigned len)
{
	if (b[0] != REPSTOS_OPC_REP ||
	    (b[1] != REPSTOS_OPC_STOSB && b[1] != REPSTOS_OPC_MOVSB) ||
	    !is_nops(b + REPSTOS_INLINE_LEN, len - REPSTOS_INLINE_LEN))
		return 0;
	return b[1];
}

static enum repstos_form decode_call(const uint8_t *b, unsigned len,
				     uint64_t site, uint64_t *target)
{
	int32_t rel32;

	if (b[0] == REPSTOS_OPC_CALL &&
	    is_nops(b + REPSTOS_CALL_LEN, len - REPSTOS_CALL_LEN)) {
		memcpy(&rel32, b + REPSTOS_CALL_REL32, sizeof(rel32));
		if (target)
			*target = site + REPSTOS_CALL_LEN + (int64_t)rel32;
		return REPSTOS_FORM_CALL;
	}
	return REPSTOS_FORM_BAD;
}

enum repstos_form repstos_decode(const uint8_t *b, unsigned len,
				 uint64_t site, unsigned op, uint64_t *target)
{
	if (!len_ok(len))
		return REPSTOS_FORM_BAD;
	if (inline_opcode(b, len) == string_opcode(op))
		return REPSTOS_FORM_INLINE;
	return decode_call(b, len, site, target);
}

enum repstos_form repstos_decode_any(const uint8_t *b, unsigned len,
				     uint64_t site, int *copy,
				     uint64_t *target)
{
	uint8_t opc;

	if (!len_ok(len))
		return REPSTOS_FORM_BAD;
	if ((opc = inline_opcode(b, len))) {
		if (copy)
			*copy = opc == REPSTOS_OPC_MOVSB;
		return REPSTOS_FORM_INLINE;
	}
	return decode_call(b, len, site, target);
}
