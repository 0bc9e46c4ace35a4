/* SPDX-License-Identifier: MIT */
/*
 * regs_harness.h - the register file regs_harness.S loads before it
 * calls a routine and stores after (regs.c, fuzz_routines.c): every GPR
 * but rsp, the flags, MXCSR, k0-7 and the vector registers.
 */
#ifndef REGS_HARNESS_H
#define REGS_HARNESS_H

#include <stdint.h>

struct regfile {
	uint64_t gpr[16];
	uint64_t flags;
	uint32_t mxcsr, pad;
	uint64_t k[8];
	uint8_t fill_to_vec[0x100 - 0xd0];
	uint8_t vec[32][64];
};

_Static_assert(__builtin_offsetof(struct regfile, vec) == 0x100, "layout");
_Static_assert(__builtin_offsetof(struct regfile, k) == 0x90, "layout");

/* Load the registers from in (xmm, ymm or zmm wide), call fn, store
 * them to out. */
void regs_call_xmm(const struct regfile *in, struct regfile *out, void (*fn)(void));
void regs_call_ymm(const struct regfile *in, struct regfile *out, void (*fn)(void));
void regs_call_zmm(const struct regfile *in, struct regfile *out, void (*fn)(void));

#endif
