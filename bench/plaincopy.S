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

	OBJECT_NOTES
