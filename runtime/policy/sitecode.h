/* SPDX-License-Identifier: MIT */
/*
 * sitecode.h - the bytes of each site form: how to write them and how to
 * recognise them.  Shared by the start-up patcher (addresses are run-time
 * addresses) and `repstos` (addresses are the file's virtual addresses),
 * so both write exactly the same bytes.
 */
#ifndef REPSTOS_SITECODE_H
#define REPSTOS_SITECODE_H

#include <stdint.h>
#include "repstos_site.h"

/*
 * The forms a site can be in.  The bytes tell a call from the inline
 * form; which call it is (the stub or a routine) takes the target's
 * address, so only readers that know the module's symbols say STUB.
 */
enum repstos_form {
	REPSTOS_FORM_BAD = 0,	/* none of the contract's forms */
	REPSTOS_FORM_STUB,	/* call of the dispatch stub */
	REPSTOS_FORM_CALL,	/* call of a routine (the bytes: any call) */
	REPSTOS_FORM_INLINE,	/* rep stosb (rep movsb for a copy) + NOPs */
};

/* Write `len` bytes of NOPs (the recommended multi-byte forms). */
void repstos_nops(uint8_t *out, unsigned len);

/* Each op's name, as the tool and REPSTOS_DEBUG=2 show it. */
extern const char *const repstos_op_names[REPSTOS_OP_COUNT];
/* The size kinds' names, by enum repstos_size_kind (REPSTOS_SIZE_KINDS). */
extern const char *const repstos_size_kind_names[REPSTOS_SIZE_KIND_COUNT];

/* The inline form of a site of `len` bytes doing op: rep stosb, or
 * rep movsb for a copy op.  Returns 0, or -1 if len is out of range
 * [REPSTOS_SITE_LEN, REPSTOS_SITE_MAX_LEN]. */
int repstos_encode_inline(uint8_t *out, unsigned len, unsigned op);

/* A call from a site at `site` to `target`, NOP-filled to `len` bytes.
 * Returns 0, or -1 if len is out of range or rel32 cannot reach. */
int repstos_encode_call(uint8_t *out, unsigned len, uint64_t site,
			uint64_t target);

/* Which form the bytes of a site doing op are: BAD, CALL or INLINE (only
 * op's own string instruction); for a call, *target (when not NULL) gets
 * its destination. */
enum repstos_form repstos_decode(const uint8_t *b, unsigned len,
				 uint64_t site, unsigned op, uint64_t *target);

/* The same for bytes whose op the reader does not know (a kernel-mode
 * site, named by its bytes): either string instruction is the inline
 * form, and *copy (when not NULL) says whether it is rep movsb. */
enum repstos_form repstos_decode_any(const uint8_t *b, unsigned len,
				     uint64_t site, int *copy,
				     uint64_t *target);

#endif
