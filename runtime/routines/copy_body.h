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
 * overlap of source and destination, either way.  By size:
 *
 *   0..15	sizes n..2n-1 two n-byte moves, for n 8 and 4; 2..3 a word
 *		and the last byte; 1 a byte (a chain n >= 8, n >= 4, n vs 1)
 *   16..8w	a ladder of steps a+1..2a (16..32 first), each two runs of
 *		a/v vectors of v = min(a, w) bytes, one at each end: 16..32
 *		in xmm pairs, 33..64 in ymm pairs (w >= 32), ..., 4w+1..8w
 *		in eight w-byte vectors
 *		(all of these load every byte before they store one, so
 *		they are correct for any overlap: no direction test)
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
 * the mirror image.  So four registers are enough for the loops.
 *
 * Scratch: rax, the flags, no mask register, and vector registers: w 16
 * and 32 xmm0..7 and ymm0..7; w 64 zmm20..27 and ymm20..27, EVEX-encoded,
 * where they leave the upper state clean (repstos_site.h, "The vector
 * state"), and for its small sizes VEX xmm0..1, which zero their upper
 * halves.  w 32 ends every path that wrote a ymm register with
 * vzeroupper (copy_clean), and only those: a copy below 33 bytes pays
 * nothing for it.  Labels say which sizes reach them:
 * .L<name>_<lo>_<hi>.
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

/*
 * 16..64 bytes (rcx n) as four 16-byte loads, at S, min(16, n-16),
 * max(n-32, 0) and n-16, then four stores there, with no branch: every
 * load before any store, so a move; no byte outside [S, S+n).  Then the
 * exit.  sixteen and zero name constants 16 and 0.  The copy
 * "avx512_plain"'s, and bench/plaincopy.S's mask16.
 */
.macro copy_four16 sixteen, zero
	vmovdqu	(%rsi), %xmm0
	vmovdqu	-16(%rsi,%rcx), %xmm3
	lea	-16(%rcx), %rax
	cmp	$16, %rax
	cmova	\sixteen(%rip), %rax	/* min(16, n - 16) */
	vmovdqu	(%rsi,%rax), %xmm1
	lea	-32(%rcx), %rax
	cmp	$32, %rcx
	cmovb	\zero(%rip), %rax	/* max(n - 32, 0) */
	vmovdqu	(%rsi,%rax), %xmm2
	vmovdqu	%xmm0, (%rdi)
	vmovdqu	%xmm2, (%rdi,%rax)
	lea	-16(%rcx), %rax
	cmp	$16, %rax
	cmova	\sixteen(%rip), %rax
	vmovdqu	%xmm1, (%rdi,%rax)
	vmovdqu	%xmm3, -16(%rdi,%rcx)
	copy_finish
.endm

/* End the dirty upper state a width's registers began: w 32's ymm0..7.
 * (w 64's live in zmm20..27, which the state does not cover.) */
.macro copy_clean w
	.if \w == 32
	vzeroupper
	.endif
.endm

/* Vector register r (0..7) of a width: loaded (ld), stored (st), stored
 * non-temporally (nt); 64 bytes wide it is zmm20+r.  Unaligned
 * instructions even where the address is aligned: as fast there on
 * every CPU since 2008, and one loop serves both. */
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
	vmovdqu64 \addr, %zmm2\r
.endm
.macro copy_st64 r, addr:vararg
	vmovdqu64 %zmm2\r, \addr
.endm
.macro copy_nt64 r, addr:vararg
	vmovntdq %zmm2\r, \addr
.endm
/* 32 bytes in the 64-byte routine: ymm20+r, EVEX (AVX512VL). */
.macro copy_ld32e r, addr:vararg
	vmovdqu64 \addr, %ymm2\r
.endm
.macro copy_st32e r, addr:vararg
	vmovdqu64 %ymm2\r, \addr
.endm

/* 16-byte moves in the VEX encoding, for the wider routines' small
 * sizes: no legacy SSE instruction between their VEX ones. */
.macro copy_ld16v r, addr:vararg
	vmovdqu	\addr, %xmm\r
.endm
.macro copy_st16v r, addr:vararg
	vmovdqu	%xmm\r, \addr
.endm

/* n vectors of v bytes (encoding e: copy_ld<e>...) into registers
 * first.. (of 0..7), from base + at and on up (ld), or out of them to
 * there (st, nt). */
.macro copy_run what, e, v, n, first, at, base:vararg
	.set	.Lcopy_at, \at
	.irp	r, 0, 1, 2, 3, 4, 5, 6, 7
	.if \r >= \first && \r < \first + \n
	copy_\what\e \r, .Lcopy_at(\base)
	.set	.Lcopy_at, .Lcopy_at + \v
	.endif
	.endr
.endm

/* head vectors of v bytes from the start and tail up to the end, all
 * loaded before any is stored (head + tail <= 8).  e: the encoding. */
.macro copy_ends_v e, v, head, tail
	copy_run ld, \e, \v, \head, 0, 0, %rsi
	copy_run ld, \e, \v, \tail, \head, -(\tail)*\v, %rsi,%rcx
	copy_run st, \e, \v, \head, 0, 0, %rdi
	copy_run st, \e, \v, \tail, \head, -(\tail)*\v, %rdi,%rcx
.endm

/* The same in the routine's own width w. */
.macro copy_ends w, head, tail
	copy_ends_v \w, \w, \head, \tail
.endm

/* One 4w-byte block from source s to destination d (plus index idx,
 * when given), loaded whole, then stored (st) or streamed (nt). */
.macro copy_block what, w, s, d, idx
	.ifb \idx
	copy_run ld, \w, \w, 4, 0, 0, \s
	copy_run \what, \w, \w, 4, 0, 0, \d
	.else
	copy_run ld, \w, \w, 4, 0, 0, \s,\idx
	copy_run \what, \w, \w, 4, 0, 0, \d,\idx
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
 * Sizes n..2n-1 (n 8 or 4) in register pair 0, 1 of the named kind,
 * reached by a jae from the chain in copy_small.
 */
.macro copy_halves name, n, insn, reg, back
	.p2align 4
	size_label \name, \n, 2*\n-1
	\insn	(%rsi), %\reg\()0
	\insn	-\n(%rsi,%rcx), %\reg\()1
	\insn	%\reg\()0, (%rdi)
	\insn	%\reg\()1, -\n(%rdi,%rcx)
	copy_exit \back
.endm

/*
 * One step of the ladder: sizes a+1..2a (16..32 for a = 16) in vectors
 * of v = min(a, w) bytes, a/v from each end, all loaded before any is
 * stored, so correct for any overlap.  Larger sizes jump to the next
 * step, or, after the last step (a = top), to `big` when it is given.
 */
.macro copy_step name, w, a, top, big, back
	.p2align 4
	.if \a == 16
	size_label \name, 16, up
	.else
	size_label \name, \a+1, up
	.endif
	cmp	$2*\a, %rcx
	.if \a < \top
	size_jump ja, \name, 2*\a+1, up
	.else
	.ifnb \big
	ja	\big
	.endif
	.endif
	.if \w == 16
	copy_ends_v 16, 16, \a/16, \a/16
	.elseif \a == 16
	copy_ends_v 16v, 16, 1, 1
	.elseif \a < \w			/* 33..64 in the 64-byte routine */
	copy_ends_v 32e, 32, 1, 1
	.else
	copy_ends_v \w, \w, \a/\w, \a/\w
	.ifb \back			/* (the backward path's exit cleans) */
	copy_clean \w
	.endif
	.endif
	copy_exit \back
.endm

/*
 * Sizes 0..3: 1 a byte; 2..3 the last byte above the first word, in
 * eax.  Each way out ends in copy_exit \back.
 */
.macro copy_0_3 name, back
	cmp	$1, %rcx
	ja	.L\name\()_2_3
	jb	.L\name\()_0
	path_mark \name\()_1
	movzbl	(%rsi), %eax
	mov	%al, (%rdi)
	copy_exit \back
.L\name\()_0:
	path_mark \name\()_0
	.ifb \back
	ret				/* rcx 0: nothing moves */
	.else
	copy_exit \back
	.endif
	.p2align 4
.L\name\()_2_3:
	path_mark \name\()_2_3
	movzbl	-1(%rsi,%rcx), %eax
	shl	$16, %eax
	mov	(%rsi), %ax
	mov	%ax, (%rdi)
	shr	$16, %eax
	mov	%al, -1(%rdi,%rcx)
	copy_exit \back
.endm

/*
 * Sizes 0..2*top (and larger to `big` when it is given, top 4w there):
 * every byte loaded before any is stored, so no direction test.  Each
 * way out ends in copy_exit \back.
 *
 * The order is the one that measured best on Zen 4 (bench, the copy
 * results): below 16 bytes a chain that tests n >= 8, then 4, as glibc's
 * does, each jae leaving for its class, so the smallest sizes take no
 * branch but the return; from 16 bytes a ladder of steps 16..32, 33..64,
 * 65..128, ... whose vectors widen with the size up to w.  Every routine
 * thus decides sizes below 64 in the same few branches as "vec", whatever
 * its width: with random sizes (the published distributions) each extra
 * level is a misprediction now and then.
 */
.macro copy_small name, w, top, big, back
	cmp	$16, %rcx
	size_jump jae, \name, 16, up
	cmp	$8, %rcx
	size_jump jae, \name, 8, 15
	cmp	$4, %rcx
	size_jump jae, \name, 4, 7
	copy_0_3 \name, \back

	.if \w >= 32
	copy_halves \name, 4, vmovd, xmm, \back
	copy_halves \name, 8, vmovq, xmm, \back
	.else
	copy_halves \name, 4, movd, xmm, \back
	copy_halves \name, 8, movq, xmm, \back
	.endif

	.irp a, 16, 32, 64, 128, 256
	.if \a <= \top
	copy_step \name, \w, \a, \top, \big, \back
	.endif
	.endr
.endm


.macro COPY_BODY name, w
.L\name\()_small:
	copy_small \name, \w, 4*\w, .L\name\()_8w_up

.L\name\()_8w_up:
	size_label \name, 8*\w+1, up
	mov	%rdi, %rax
	sub	%rsi, %rax		/* dst - src */
	cmp	%rcx, %rax
	jb	.L\name\()_backward	/* src <= dst < src + n */
	cmp	__repstos_copy_rep_min(%rip), %rcx
	jae	.L\name\()_big

.L\name\()_forward:
	path_mark \name\()_forward
	.if \w == 64
	/* the last 4w bytes into registers 4..7 before any store (a
	 * destination below the source may overwrite them), stored after
	 * the loop, so the rest takes no size branch: 576..900 bytes went
	 * from 8.1-11.2 to 5.5-9.4 ns (Zen 4, the fastest of eight runs),
	 * nothing slower.  avx2 keeps the ladder: this way it was 0.3-1 ns
	 * slower at 400..544 bytes, faster at 576..1500. */
	copy_run ld, \w, \w, 4, 4, -4*\w, %rsi,%rcx
	.endif
	/* the destination w-aligned, by one vector at the start, unless it
	 * is less than w below the source */
	mov	%rsi, %rax
	sub	%rdi, %rax
	cmp	$\w, %rax
	jb	.L\name\()_forward_loop
	path_mark \name\()_forward_align
	copy_ends \w, 1, 0
	mov	%edi, %eax
	and	$(\w-1), %eax
	sub	$\w, %rax		/* -(bytes to the next boundary) */
	sub	%rax, %rdi
	sub	%rax, %rsi
	add	%rax, %rcx
.L\name\()_forward_loop:
	.if \w == 64			/* rcx > 4w here: n > 8w */
1:	path_mark \name\()_forward_loop
	copy_block st, \w, %rsi, %rdi
	add	$4*\w, %rsi
	add	$4*\w, %rdi
	sub	$4*\w, %rcx
	cmp	$4*\w, %rcx
	ja	1b
	copy_run st, \w, \w, 4, 4, -4*\w, %rdi,%rcx
	copy_finish
	.else
	sub	$4*\w, %rcx
	jb	2f
1:	path_mark \name\()_forward_loop
	copy_block st, \w, %rsi, %rdi
	add	$4*\w, %rsi
	add	$4*\w, %rdi
	sub	$4*\w, %rcx
	jae	1b
2:	path_mark \name\()_forward_rest
	add	$4*\w, %rcx
	copy_clean \w			/* the rest may take no vector */
	jmp	.L\name\()_small	/* the rest, below 4w */
	.endif

.L\name\()_big:				/* forwards or no overlap, rax = dst - src */
	path_mark \name\()_big
	cmp	__repstos_copy_nt_min(%rip), %rcx
	jae	.L\name\()_huge
	cmp	$-64, %rax
	ja	.L\name\()_forward	/* less than 64 below: no rep movsb */
	path_mark \name\()_rep
	rep movsb
	ret

.L\name\()_huge:			/* not backwards: overlap if src - dst < n */
	path_mark \name\()_huge
	neg	%rax
	cmp	%rcx, %rax
	jb	.L\name\()_forward	/* overlap: the cached loop */
	path_mark \name\()_nt
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
1:	path_mark \name\()_nt_loop
	prefetcht0 16*\w(%rsi)
	prefetcht0 16*\w+64(%rsi)
	copy_block nt, \w, %rsi, %rdi
	add	$4*\w, %rsi
	add	$4*\w, %rdi
	sub	$4*\w, %rcx
	jae	1b
	sfence
	add	$4*\w, %rcx
	copy_clean \w
	jmp	.L\name\()_small

.L\name\()_backward:			/* 0 <= dst - src < n, n > 4w */
	path_mark \name\()_backward
	test	%rax, %rax
	jz	.L\name\()_same
	push	%rcx			/* the count, for the exit */
	.cfi_adjust_cfa_offset 8
	cmp	$\w, %rax
	jb	.L\name\()_backward_loop	/* closer than w: unaligned */
	path_mark \name\()_backward_align
	copy_ends \w, 0, 1
	lea	(%rdi,%rcx), %rax
	and	$-\w, %rax
	sub	%rdi, %rax
	mov	%rax, %rcx		/* up to the last w boundary */
.L\name\()_backward_loop:
	sub	$4*\w, %rcx
	jb	2f
1:	path_mark \name\()_backward_loop
	copy_block st, \w, %rsi, %rdi, %rcx
	sub	$4*\w, %rcx
	jae	1b
2:	add	$4*\w, %rcx
	copy_small \name\()_back, \w, 2*\w, , \name
.L\name\()_back_done:
	copy_clean \w
	pop	%rcx
	.cfi_adjust_cfa_offset -8
.L\name\()_same:
	path_mark \name\()_same
	copy_finish
.endm

#endif /* REPSTOS_COPY_BODY_H */
