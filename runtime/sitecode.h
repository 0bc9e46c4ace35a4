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

#define REPSTOS_SITE_MAX_LEN	15	/* longest site we write or accept */

enum repstos_form {
	REPSTOS_FORM_BAD = 0,	/* none of the contract's forms */
	REPSTOS_FORM_CALL,	/* e8 rel32 (+ NOPs): target says which routine */
	REPSTOS_FORM_INLINE,	/* f3 aa + NOPs */
};

/* Write `len` bytes of NOPs (the recommended multi-byte forms). */
void repstos_nops(uint8_t *out, unsigned len);

/* The inline form of a site of `len` bytes. Returns 0, or -1 if len is
 * out of range. */
int repstos_encode_inline(uint8_t *out, unsigned len);

/* A call from a site at `site` to `target`, NOP-filled to `len` bytes.
 * Returns 0, or -1 if len is out of range or rel32 cannot reach. */
int repstos_encode_call(uint8_t *out, unsigned len, uint64_t site,
			uint64_t target);

/* Which form the bytes are; for a call, *target gets its destination. */
enum repstos_form repstos_decode(const uint8_t *b, unsigned len,
				 uint64_t site, uint64_t *target);

#endif
