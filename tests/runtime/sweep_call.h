/* SPDX-License-Identifier: MIT */
/*
 * sweep_call.h - the layout of struct sweep_regs (sweep.c), which
 * sweep_call (sweep_call.S) loads before it calls a routine and fills
 * after: offsets shared by C and assembler.
 */
#ifndef SWEEP_CALL_H
#define SWEEP_CALL_H

#define SR_FN		0	/* the routine */
#define SR_RDI		8	/* in: rdi, rsi, rcx, rax */
#define SR_RSI		16
#define SR_RCX		24
#define SR_RAX		32
#define SR_GPR		40	/* in: rbx rbp rdx r8..r15 (11) */
#define SR_OUT_RDI	128	/* out: rdi, rsi, rcx, rax */
#define SR_OUT_RSI	136
#define SR_OUT_RCX	144
#define SR_OUT_RAX	152
#define SR_OUT_GPR	160	/* out: the 11 above */
#define SR_OUT_FLAGS	248
#define SR_XMM_IN	256	/* xmm1..xmm15, 16 bytes each */
#define SR_XMM_OUT	496
#define SR_OUT_BELOW	736	/* out: words changed below the allowed 8 */
#define SR_SIZE		744

#define SR_NGPR		11
#define SR_NXMM		15

#endif
