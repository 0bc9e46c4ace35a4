/* SPDX-License-Identifier: MIT */
/*
 * plaincopy.S - a benchmark-only copy routine: the copy "avx512" with
 * plain stores for 16..64 bytes, to see whether the copies, which are
 * 2.4x glibc back to back, can spend some of it on the loads after a
 * copy, which wait for a masked store to commit (issue 22, item 3).
 *
 *   __bench_copy_mask16  16..64: four 16-byte loads at S, min(16, n-16),
 *                        max(n-32, 0) and n-16, then four stores there:
 *                        no size branch, and a move (every load before
 *                        any store); 0..15: one masked 16-byte load and
 *                        store; either end within 16 bytes of a page end,
 *                        and above 64 bytes, __repstos_copy_avx512.
 * The copy contract (runtime/routines/copy.S): xmm0..3 and rax, k1.
 */
#include "routines/copy_body.h"
#include "bench_asm.h"

	.section .rodata.bench_plaincopy, "a", @progbits
	.balign 8
.Lsixteen:	.quad	16
.Lzero:		.quad	0
.Lones:		.quad	-1

	.text

ENTRY_ALIGN(__bench_copy_mask16, 64)
	cmp	$64, %rcx
	leave_if a, copy_mask16_65_up, __repstos_copy_avx512
	cmp	$16, %rcx
	jb	1f
	path_mark copy_mask16_16_64
	copy_four16 .Lsixteen, .Lzero
1:	mov	%esi, %eax
	or	%edi, %eax
	and	$4095, %eax
	cmp	$(4096 - 16), %eax
	/* either end near a page end */
	leave_if a, copy_mask16_0_15_page_end, __repstos_copy_avx512
	path_mark copy_mask16_0_15_masked
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 (%rsi), %xmm16{%k1}{z}
	vmovdqu8 %xmm16, (%rdi){%k1}
	copy_finish
	leave_to copy_mask16_65_up, __repstos_copy_avx512
	leave_to copy_mask16_0_15_page_end, __repstos_copy_avx512
END(__bench_copy_mask16)

/*
 * Candidates for issue 43's copy gap on Intel: "avx512"'s masked store
 * is not forwarded to a later load, "avx512_fwd"'s extra stores cost
 * it back to back (four of them until a fifth candidate, fwd1, with only
 * the two byte stores, measured best and became "avx512_fwd").  Other
 * extra stores:
 *   __bench_copy_fwd8   0..64: the masked pair, then the first and the
 *                       last 8-byte word again with plain stores, each
 *                       to the red zone where n < 8 (cmov, no branch)
 *   __bench_copy_fwd8b  the same for 8..64 with no cmov; 0..7 by a
 *                       branch to plain moves (glibc's chain)
 *   __bench_copy_fwd16b 16..64: the masked pair, then the first and the
 *                       last 16 bytes again plainly; 0..15 plain moves
 * Page ends and above 64: __repstos_copy_avx512.
 */
.macro fwd_masked_load id
	path_mark \id
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 (%rsi), %zmm16{%k1}{z}
.endm

.macro fwd_page_check id
	mov	%esi, %eax
	or	%edi, %eax
	and	$4095, %eax
	cmp	$(4096 - 64), %eax
	leave_if a, \id, __repstos_copy_avx512
.endm

/* 0..7 bytes by glibc's chain: copy_body.h's 4..7 and 0..3 */
.macro fwd_small7 id
	cmp	$4, %rcx
	jae	.L\id\()_4_7
	copy_0_3 \id
	copy_halves \id, 4, vmovd, xmm
.endm

/* The first and the last 8-byte word of a copy of 0..64 bytes whose
 * masked load is in zmm16: the last word loaded (before any store: a
 * move), then both stored, each to the red zone where n < 8 (nothing
 * below the stack pointer is live when a routine starts).  Between the
 * two halves nothing may change the flags of their cmp $8. */
.macro fwd_last_word_load
	lea	(%rsi,%rcx), %rax	/* the last word; n < 8: the red zone */
	cmp	$8, %rcx
	cmovb	%rsp, %rax
	vmovq	-8(%rax), %xmm17
.endm
.macro fwd_word_stores
	lea	(%rdi,%rcx), %rax	/* (the flags: cmp $8 still) */
	cmovb	%rsp, %rax
	vmovq	%xmm17, -8(%rax)
	lea	8(%rdi), %rax
	cmovb	%rsp, %rax
	vmovq	%xmm16, -8(%rax)
.endm

ENTRY_ALIGN(__bench_copy_fwd8, 64)
	cmp	$64, %rcx
	leave_if a, copy_fwd8_65_up, __repstos_copy_avx512
	fwd_page_check copy_fwd8_page_end
	fwd_masked_load copy_fwd8_0_64
	fwd_last_word_load
	vmovdqu8 %zmm16, (%rdi){%k1}
	fwd_word_stores
	copy_finish
	leave_to copy_fwd8_65_up, __repstos_copy_avx512
	leave_to copy_fwd8_page_end, __repstos_copy_avx512
END(__bench_copy_fwd8)

/* A size branch at "at" (8 or 16): at..64 the masked pair, then the
 * first and the last at bytes again by plain moves of that width (ins);
 * below "at" on to what follows, .L<id>_small. */
.macro fwd_branch id, at, ins
	cmp	$64, %rcx
	leave_if a, \id\()_65_up, __repstos_copy_avx512
	cmp	$\at, %rcx
	jb	.L\id\()_small
	fwd_page_check \id\()_page_end
	fwd_masked_load \id\()_\at\()_64
	\ins	-\at(%rsi,%rcx), %xmm17
	vmovdqu8 %zmm16, (%rdi){%k1}
	\ins	%xmm16, (%rdi)
	\ins	%xmm17, -\at(%rdi,%rcx)
	copy_finish
.L\id\()_small:
.endm

ENTRY_ALIGN(__bench_copy_fwd8b, 64)
	fwd_branch copy_fwd8b, 8, vmovq
	fwd_small7 copy_fwd8b
	leave_to copy_fwd8b_65_up, __repstos_copy_avx512
	leave_to copy_fwd8b_page_end, __repstos_copy_avx512
END(__bench_copy_fwd8b)

ENTRY_ALIGN(__bench_copy_fwd16b, 64)
	fwd_branch copy_fwd16b, 16, vmovdqu64
	cmp	$8, %rcx
	jb	.Lcopy_fwd16b_0_7
	path_mark copy_fwd16b_8_15
	vmovq	(%rsi), %xmm0
	vmovq	-8(%rsi,%rcx), %xmm1
	vmovq	%xmm0, (%rdi)
	vmovq	%xmm1, -8(%rdi,%rcx)
	copy_finish
.Lcopy_fwd16b_0_7:
	fwd_small7 copy_fwd16b
	leave_to copy_fwd16b_65_up, __repstos_copy_avx512
	leave_to copy_fwd16b_page_end, __repstos_copy_avx512
END(__bench_copy_fwd16b)

	OBJECT_NOTES
