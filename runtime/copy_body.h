/* SPDX-License-Identifier: MIT */
/*
 * copy_body.h - the one body of the size-dispatched copy routines.
 *
 *	COPY_BODY name, width
 *
 * is all of a routine after its ENTRY (and REQUIRE).  "vec" (width 16,
 * SSE2), "avx2" (32, VEX) and "avx512" (64, EVEX) in copy.S are its
 * instances, as glibc builds its memmoves from one body per vector width
 * (memmove-vec-unaligned-erms.S).  Every path is a move: correct for any
 * overlap of source and destination, either way.  By size, in widths w:
 *
 *   0..w-1	sizes n..2n-1 two n-byte moves, for n from w/2 down to 4;
 *		2..3 a word and the last byte; 1 a byte
 *   w..2w	two w-byte vectors, the first and the last
 *   2w+1..4w	four, two at each end
 *		(all of these load every byte before they store one, so
 *		they are correct for any overlap: no direction test)
 *   4w+1..8w	eight, four at each end, where the regions do not
 *		overlap; four are loaded, stored, then the other four, as
 *		only four registers are scratch; overlapping: the loops
 *   8w+1..	forwards (destination below the source, or no overlap): a
 *		loop of 4w-byte blocks, then the rest (< 4w) by the sizes
 *		above.  The destination is made w-aligned first by one
 *		unaligned vector at the start, unless the destination is
 *		less than w below the source (that vector would overwrite
 *		source bytes the loop has yet to read).
 *		From __repstos_copy_rep_min on, rep movsb, except where the
 *		destination is less than 64 bytes below the source (rep
 *		movsb is slow at short distances on AMD: glibc's "avoid
 *		short distance rep movsb"); from __repstos_copy_nt_min on,
 *		and only where the regions do not overlap, a loop of
 *		non-temporal stores (the copy would push the whole cache
 *		out).
 *		backwards (destination inside the source): the same loop
 *		from the end, its end aligned by one vector at the end
 *		(unless the distance is below w); the rest (< 4w) at the
 *		start by a second copy of the small sizes' code, whose ways
 *		out go to one exit.  rep movsb backwards (std) is slow
 *		everywhere, so never.
 *
 * The loops keep rdi, rsi as the start of what is left (forwards) or as
 * the start of the whole copy (backwards, counting rcx down), so that the
 * small sizes' exit, rdi += rcx, rsi += rcx, rcx = 0, ends every path;
 * the backward one keeps the count on the stack (pushed, popped: no
 * aligned spill), the only memory it needs.
 *
 * Why each loop block is loaded whole before it is stored: forwards, a
 * store at dst+i can only overwrite source bytes below i + 4w when the
 * destination is below the source, all of them already read; backwards
 * the mirror image.  So four registers are enough for every overlap.
 *
 * Scratch: rax, vector registers 0..3 (the whole zmm), the flags; no
 * mask register.  Labels say which sizes reach them: .L<name>_<lo>_<hi>.
 */
#ifndef REPSTOS_COPY_BODY_H
#define REPSTOS_COPY_BODY_H

#include "asm.h"

/* rdi += rcx; rsi += rcx; rcx = 0; return: every copy routine's exit. */
.macro copy_finish
	add	%rcx, %rdi
	add	%rcx, %rsi
	xor	%ecx, %ecx
	ret
.endm

/* Vector register r (0..3) of a width: loaded (ld), stored (st), stored
 * non-temporally (nt).  Unaligned instructions even where the address is
 * aligned: as fast there on every CPU since 2008, and one loop serves
 * both. */
.macro copy_ld16 r, addr:vararg
	movdqu	\addr, %xmm\r
.endm
.macro copy_st16 r, addr:vararg
	movdqu	%xmm\r, \addr
.endm
.macro copy_nt16 r, addr:vararg
	movntdq	%xmm\r, \addr
.endm
.macro copy_ld32 r, addr:vararg
	vmovdqu	\addr, %ymm\r
.endm
.macro copy_st32 r, addr:vararg
	vmovdqu	%ymm\r, \addr
.endm
.macro copy_nt32 r, addr:vararg
	vmovntdq %ymm\r, \addr
.endm
.macro copy_ld64 r, addr:vararg
	vmovdqu64 \addr, %zmm\r
.endm
.macro copy_st64 r, addr:vararg
	vmovdqu64 %zmm\r, \addr
.endm
.macro copy_nt64 r, addr:vararg
	vmovntdq %zmm\r, \addr
.endm

/* n vectors of w bytes into registers first.. (of 0..3), from base +
 * at and on up (ld), or out of them to there (st, nt). */
.macro copy_run what, w, n, first, at, base:vararg
	.set	.Lcopy_at, \at
	.irp	r, 0, 1, 2, 3
	.if \r >= \first && \r < \first + \n
	copy_\what\w \r, .Lcopy_at(\base)
	.set	.Lcopy_at, .Lcopy_at + \w
	.endif
	.endr
.endm

/* head vectors from the start and tail up to the end, all loaded before
 * any is stored (head + tail <= 4). */
.macro copy_ends w, head, tail
	copy_run ld, \w, \head, 0, 0, %rsi
	copy_run ld, \w, \tail, \head, -(\tail)*\w, %rsi,%rcx
	copy_run st, \w, \head, 0, 0, %rdi
	copy_run st, \w, \tail, \head, -(\tail)*\w, %rdi,%rcx
.endm

/* One 4w-byte block from source s to destination d (plus index idx,
 * when given), loaded whole, then stored (st) or streamed (nt). */
.macro copy_block what, w, s, d, idx
	.ifb \idx
	copy_run ld, \w, 4, 0, 0, \s
	copy_run \what, \w, 4, 0, 0, \d
	.else
	copy_run ld, \w, 4, 0, 0, \s,\idx
	copy_run \what, \w, 4, 0, 0, \d,\idx
	.endif
.endm

/* The end of each way out of the small sizes: return, or (`back`, the
 * routine's name, given) go to the backward path's exit. */
.macro copy_exit back
	.ifb \back
	copy_finish
	.else
	jmp	.L\back\()_back_done
	.endif
.endm

/*
 * Sizes n..2n-1 (n 32, 16, 8 or 4) in register pair 0, 1 of the named
 * kind; smaller sizes go on to .L<name>_0_<n-1>, which follows.
 */
.macro copy_halves name, n, insn, reg, back
	cmp	$\n, %rcx
	size_jump jb, \name, 0, \n-1
	\insn	(%rsi), %\reg\()0
	\insn	-\n(%rsi,%rcx), %\reg\()1
	\insn	%\reg\()0, (%rdi)
	\insn	%\reg\()1, -\n(%rdi,%rcx)
	copy_exit \back
	size_label \name, 0, \n-1
.endm

/*
 * Sizes 0..4w (and 4w+1.. to `big` when it is given): every byte loaded
 * before any is stored.  Each way out ends in copy_exit \back.
 */
.macro copy_small name, w, big, back
	cmp	$\w, %rcx
	size_jump jb, \name, 0, \w-1
	cmp	$2*\w, %rcx
	size_jump ja, \name, 2*\w+1, 4*\w
	copy_ends \w, 1, 1
	copy_exit \back
	size_label \name, 2*\w+1, 4*\w
	.ifnb \big
	cmp	$4*\w, %rcx
	ja	\big
	.endif
	copy_ends \w, 2, 2
	copy_exit \back

	size_label \name, 0, \w-1
	.if \w == 64
	copy_halves \name, 32, vmovdqu, ymm, \back
	.endif
	.if \w >= 32
	copy_halves \name, 16, vmovdqu, xmm, \back
	copy_halves \name, 8, vmovq, xmm, \back
	copy_halves \name, 4, vmovd, xmm, \back
	.else
	copy_halves \name, 8, movq, xmm, \back
	copy_halves \name, 4, movd, xmm, \back
	.endif
	/* 0..3: the last byte above the first word, in eax; 1 alone, as
	 * the word would read past it */
	cmp	$1, %rcx
	jb	.L\name\()_0
	je	.L\name\()_1
	movzbl	-1(%rsi,%rcx), %eax
	shl	$16, %eax
	mov	(%rsi), %ax
	mov	%ax, (%rdi)
	shr	$16, %eax
	mov	%al, -1(%rdi,%rcx)
	copy_exit \back
.L\name\()_1:
	movzbl	(%rsi), %eax
	mov	%al, (%rdi)
.L\name\()_0:
	copy_exit \back
.endm


.macro COPY_BODY name, w
.L\name\()_small:
	copy_small \name, \w, .L\name\()_4w_up

.L\name\()_4w_up:			/* 4w+1 and up */
	mov	%rdi, %rax
	sub	%rsi, %rax		/* dst - src */
	cmp	%rcx, %rax
	jb	.L\name\()_backward	/* src <= dst < src + n */
	cmp	$8*\w, %rcx
	size_jump ja, \name, 8*\w+1, up
	neg	%rax
	cmp	%rcx, %rax
	jb	.L\name\()_forward	/* dst < src < dst + n */
	copy_ends \w, 4, 0		/* no overlap: the first 4w */
	copy_ends \w, 0, 4		/* and the last 4w */
	copy_finish

	size_label \name, 8*\w+1, up
	cmp	__repstos_copy_rep_min(%rip), %rcx
	jae	.L\name\()_big

.L\name\()_forward:
	/* the destination w-aligned, by one vector at the start, unless it
	 * is less than w below the source */
	mov	%rsi, %rax
	sub	%rdi, %rax
	cmp	$\w, %rax
	jb	.L\name\()_forward_loop
	copy_ends \w, 1, 0
	mov	%edi, %eax
	and	$(\w-1), %eax
	sub	$\w, %rax		/* -(bytes to the next boundary) */
	sub	%rax, %rdi
	sub	%rax, %rsi
	add	%rax, %rcx
.L\name\()_forward_loop:
	sub	$4*\w, %rcx
	jb	2f
1:	copy_block st, \w, %rsi, %rdi
	add	$4*\w, %rsi
	add	$4*\w, %rdi
	sub	$4*\w, %rcx
	jae	1b
2:	add	$4*\w, %rcx
	jmp	.L\name\()_small	/* the rest, below 4w */

.L\name\()_big:				/* forwards or no overlap, rax = dst - src */
	cmp	__repstos_copy_nt_min(%rip), %rcx
	jae	.L\name\()_huge
	cmp	$-64, %rax
	ja	.L\name\()_forward	/* less than 64 below: no rep movsb */
	rep movsb
	ret

.L\name\()_huge:			/* not backwards: overlap if src - dst < n */
	neg	%rax
	cmp	%rcx, %rax
	jb	.L\name\()_forward	/* overlap: the cached loop */
	/* no overlap: the destination aligned (a non-temporal store must
	 * be), then 4w-byte blocks stored around the cache */
	copy_ends \w, 1, 0
	mov	%edi, %eax
	and	$(\w-1), %eax
	sub	$\w, %rax
	sub	%rax, %rdi
	sub	%rax, %rsi
	add	%rax, %rcx
	sub	$4*\w, %rcx
1:	prefetcht0 16*\w(%rsi)
	prefetcht0 16*\w+64(%rsi)
	copy_block nt, \w, %rsi, %rdi
	add	$4*\w, %rsi
	add	$4*\w, %rdi
	sub	$4*\w, %rcx
	jae	1b
	sfence
	add	$4*\w, %rcx
	jmp	.L\name\()_small

.L\name\()_backward:			/* 0 <= dst - src < n, n > 4w */
	test	%rax, %rax
	jz	.L\name\()_same
	push	%rcx			/* the count, for the exit */
	.cfi_adjust_cfa_offset 8
	cmp	$\w, %rax
	jb	.L\name\()_backward_loop	/* closer than w: unaligned */
	copy_ends \w, 0, 1
	lea	(%rdi,%rcx), %rax
	and	$-\w, %rax
	sub	%rdi, %rax
	mov	%rax, %rcx		/* up to the last w boundary */
.L\name\()_backward_loop:
	sub	$4*\w, %rcx
	jb	2f
1:	copy_block st, \w, %rsi, %rdi, %rcx
	sub	$4*\w, %rcx
	jae	1b
2:	add	$4*\w, %rcx
	copy_small \name\()_back, \w, , \name
.L\name\()_back_done:
	pop	%rcx
	.cfi_adjust_cfa_offset -8
.L\name\()_same:
	copy_finish
.endm

#endif /* REPSTOS_COPY_BODY_H */
