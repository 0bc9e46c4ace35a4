/* SPDX-License-Identifier: MIT */
/*
 * set_body.h - the one body of the size-dispatched memset routines.
 *
 *	SET_BODY name, width, top, rep_min
 *
 * is all of a routine after its ENTRY (and REQUIRE).  "vec" (width 16,
 * SSE2) and "avx2" (width 32, VEX) in set.S and the benchmark's GPR-only
 * "vec" (width 8, bench/gpr.S) are its instances, as glibc builds
 * its memsets from one body per vector width.  By size, in widths w:
 *
 *   0..w-1	sizes n..2n-1 two overlapping n-byte stores, for n from
 *		w/2 down to 4; 0..3 byte stores
 *   w..2w	two overlapping stores of w bytes, one at each end
 *   2w+1..4w	four, two at each end
 *   4w+1..8w	eight
 *   8w+1..12w	only where top is 12w: the first 8w bytes and the last 4w
 *   top+1..	from the value of rep_min (a variable the runtime tunes)
 *		on, rep stosb; below it a loop, then the last block stored
 *		unaligned where it ends
 *
 * Labels say which sizes reach them: .L<name>_<lo>_<hi>.  "avx512" and
 * "avx512_split" jump into avx2's at .Lavx2_0_15; what it expects is
 * said there.  "avx512_split" has its own copy of the sizes from 257 up
 * (set_big, in ymm16).
 *
 * What the width changes is the instructions, each for a reason:
 *  - w 8 has no vector register: the fill is broadcast in rax itself
 *    and every way out restores it with movzbl.  With no register left
 *    to hold the end, its loop counts rcx down and stores 64-byte blocks
 *    where they fall, unaligned.
 *  - w 16 and 32 keep the fill in xmm0/ymm0, so the loop can use rax for
 *    the end and store aligned 4w-byte blocks; rax comes back from xmm0.
 *  - Below w, 8 and 16 store from rax (imul by 0x0101..01), so sizes
 *    below 16 skip SSE2's four-instruction broadcast; 32 broadcasts into
 *    xmm0 first thing (two instructions) and stores from it.
 *  - 32 is VEX-encoded throughout: no SSE/AVX transition on Intel
 *    whatever state the caller's upper halves are in.  From 32 bytes on
 *    it writes ymm0, and every way out from there ends the dirty upper
 *    state with vzeroupper (set_clean; repstos_site.h, "The vector
 *    state"); below 32 bytes it writes only xmm0 (VEX.128 zeroes the
 *    upper half) and pays nothing for it.
 */
#ifndef REPSTOS_SET_BODY_H
#define REPSTOS_SET_BODY_H

#include "asm.h"

/*
 * 16..63 bytes (rdi S, rcx n) as four 16-byte stores of x with st
 * (vmovdqu for xmm0, vmovdqu64 for xmm16), at S, E-16, E-min(n, 32) and
 * E-max(n-16, 16), with no branch; then the exit, rax from x's low
 * byte.  m32 and m16 name constants -32 and -16.  "avx512_plain"'s,
 * "avx512"'s page-end path, and bench/plain.S's.
 */
.macro set_four16 st, x, m32, m16
	add	%rcx, %rdi
	mov	%rcx, %rax
	neg	%rax
	\st	\x, (%rdi,%rax)
	\st	\x, -16(%rdi)
	cmp	$-32, %rax
	cmovl	\m32(%rip), %rax
	\st	\x, (%rdi,%rax)
	sub	$16, %rcx
	neg	%rcx
	cmp	$-16, %rcx
	cmovg	\m16(%rip), %rcx
	\st	\x, (%rdi,%rcx)
	xor	%ecx, %ecx
	vmovd	\x, %eax
	movzbl	%al, %eax
	ret
.endm

/* The fill in every byte of the register the stores of a width use. */
.macro set_fill8
	imul	__repstos_bytes01(%rip), %rax
.endm
.macro set_fill16
	movd	%eax, %xmm0
	punpcklbw %xmm0, %xmm0
	punpcklwd %xmm0, %xmm0
	pshufd	$0, %xmm0, %xmm0
.endm
.macro set_fill32			/* xmm0 holds it already */
	vpbroadcastb %xmm0, %ymm0
.endm

/*
 * 32 bytes wide the fill is in ymm0 (VEX), or, between `.set
 * .Lset_evex, 1` and `.set .Lset_evex, 0`, in ymm16 (EVEX, AVX512VL):
 * avx512_split's own copy of the large sizes (set_big), which then needs
 * no vzeroupper.
 */
	.set	.Lset_evex, 0

/* End the dirty upper state the width's ymm0 began. */
.macro set_clean w
	.if \w == 32 && !.Lset_evex
	vzeroupper
	.endif
.endm

/* rax back to the fill byte, from the vector register that holds it. */
.macro set_rax w
	.if \w == 16
	movd	%xmm0, %eax
	.elseif .Lset_evex
	vmovd	%xmm16, %eax
	.else
	vmovd	%xmm0, %eax
	.endif
	movzbl	%al, %eax
.endm

/* One store of the fill, unaligned (u) or aligned (a), of a width. */
.macro set_u8 addr:vararg
	mov	%rax, \addr
.endm
.macro set_u16 addr:vararg
	movdqu	%xmm0, \addr
.endm
.macro set_a16 addr:vararg
	movdqa	%xmm0, \addr
.endm
.macro set_u32 addr:vararg
	.if .Lset_evex
	vmovdqu64 %ymm16, \addr
	.else
	vmovdqu	%ymm0, \addr
	.endif
.endm
.macro set_a32 addr:vararg
	.if .Lset_evex
	vmovdqa64 %ymm16, \addr
	.else
	vmovdqa	%ymm0, \addr
	.endif
.endm

/* n stores of w bytes, of kind u or a, at base + first and on up. */
.macro set_run kind, w, n, first, base:vararg
	.set	.Lset_at, \first
	.rept	\n
	set_\kind\w .Lset_at(\base)
	.set	.Lset_at, .Lset_at + \w
	.endr
.endm

/*
 * Sizes lo..hi: head stores from the start and tail up to the end;
 * larger sizes go on to hi+1..next, or (next "last") come no more.
 */
.macro set_class name, w, lo, hi, head, tail, next
	size_label \name, \lo, \hi
	.ifnc \next, last
	cmp	$(\hi), %rcx
	size_jump ja, \name, \hi+1, \next
	.endif
	set_run	u, \w, \head, 0, %rdi
	set_run	u, \w, \tail, -(\tail)*\w, %rdi,%rcx
	.if \w == 8
	movzbl	%al, %eax		/* the fill was broadcast in rax */
	.endif
	set_clean \w
	FINISH
.endm

/*
 * Sizes n..2n-1 (n 16, 8 or 4): two n-byte stores of xmm0, one at each
 * end; smaller sizes go on to .L<name>_0_<n-1>, which follows.
 */
.macro set_halves name, n, insn
	cmp	$\n, %rcx
	size_jump jb, \name, 0, \n-1
	\insn	%xmm0, (%rdi)
	\insn	%xmm0, -\n(%rdi,%rcx)
	FINISH
	size_label \name, 0, \n-1
.endm

/* Sizes 0..3: the first and the last byte, and the second for 3. */
.macro set_bytes name
	test	%rcx, %rcx
	jz	.L\name\()_0
	path_mark \name\()_1_3
	mov	%al, (%rdi)
	mov	%al, -1(%rdi,%rcx)
	cmp	$3, %rcx
	jb	1f
	path_mark \name\()_3
	mov	%al, 1(%rdi)
1:	FINISH
.L\name\()_0:
	path_mark \name\()_0
	ret
.endm

/*
 * Sizes from 4w+1 (top 8w) or 8w+1 (top 12w) up: the classes left, the
 * loop, rep stosb.  The fill is ready in the width's register.
 */
.macro set_big name, w, top, rep_min
	.if \top == 8*\w
	set_class \name, \w, 4*\w+1, 8*\w, 4, 4, up
	.elseif \top == 12*\w
	/* 8w+1..12w with no loop: the loop's overlapping last block cost
	 * 0.3 ns at 300 B in avx2 on Zen 4 */
	set_class \name, \w, 8*\w+1, 12*\w, 8, 4, up
	.else
	/* top 16w: 12w+1..16w with no loop either, eight stores from each
	 * end, where the loop's passes depend on where S falls in a w-byte
	 * unit.  Only bench/plain.S's mis16 has it: in avx512_split's own
	 * copy it lost, 0.74x glibc against the loop's 0.86-0.91x at +3
	 * and random offsets (Zen 5), as eight of its 32-byte stores cross
	 * a line where the loop's aligned ones cross none */
	set_class \name, \w, 8*\w+1, 12*\w, 8, 4, 16*\w
	set_class \name, \w, 12*\w+1, 16*\w, 8, 8, up
	.endif

	size_label \name, \top+1, up
	cmp	\rep_min(%rip), %rcx
	jae	.L\name\()_rep
	.if \w == 8
	/* n > top >= 64: a block fits before the test */
.L\name\()_loop:
	path_mark \name\()_loop
	set_run	u, 8, 8, 0, %rdi
	add	$64, %rdi
	sub	$64, %rcx
	cmp	$64, %rcx
	ja	.L\name\()_loop
	set_run	u, 8, 8, -64, %rdi,%rcx
	movzbl	%al, %eax
	FINISH
	.else
	/* rax = end; rdi = first w-aligned address after the head stores;
	 * rcx = end - 4w, the last block's start, stored unaligned.  At
	 * least one aligned block fits before the test, as n > top >= 8w.
	 * The head: one store, or in "avx2" four, as glibc's AVX2 memset
	 * does.  Measured on Zen 4 with AVX-512 hidden, against that memset:
	 * with one, 448..1000 bytes at a 4 KiB-aligned destination were
	 * 0.89-0.95x (one more store and loop pass where the end falls),
	 * though 385..400 were 1.28x and 511 at +3 1.22x; with four, every
	 * size from 385 on is 1.00x and the distributions are as they were
	 * (1.20-1.22x).  avx512_split's own copy (ymm16, destinations not
	 * 64-byte aligned, against glibc's evex memset) and "vec" keep one:
	 * four took avx512_split to 0.82x at 511 bytes at +3. */
	lea	(%rdi,%rcx), %rax
	.if \w == 32 && !.Lset_evex
	set_run	u, \w, 4, 0, %rdi
	add	$4*\w, %rdi
	.else
	set_run	u, \w, 1, 0, %rdi
	add	$\w, %rdi
	.endif
	and	$-\w, %rdi
	lea	-4*\w(%rax), %rcx
.L\name\()_loop:
	path_mark \name\()_loop
	set_run	a, \w, 4, 0, %rdi
	sub	$-4*\w, %rdi		/* an 8-bit immediate, as +128 is not */
	cmp	%rcx, %rdi
	jb	.L\name\()_loop
	set_run	u, \w, 4, 0, %rcx
	mov	%rax, %rdi
	xor	%ecx, %ecx
	set_rax \w
	set_clean \w
	ret
	.endif
.L\name\()_rep:
	path_mark \name\()_rep
	set_clean \w
	rep stosb
	.if \w == 8
	movzbl	%al, %eax
	.endif
	ret
.endm

.macro SET_BODY name, w, top, rep_min
	.if \top != 8*\w && \top != 12*\w
	.error "SET_BODY: top is 8 or 12 widths"
	.endif
	.if \w == 32
	vmovd	%eax, %xmm0
	vpbroadcastb %xmm0, %xmm0
	.endif
	cmp	$\w, %rcx
	size_jump jb, \name, 0, \w-1
	set_fill\w
	set_class \name, \w, \w, 2*\w, 1, 1, 4*\w
	set_class \name, \w, 2*\w+1, 4*\w, 2, 2, 8*\w
	.if \top == 12*\w
	set_class \name, \w, 4*\w+1, 8*\w, 4, 4, 12*\w
	.endif
	set_big \name, \w, \top, \rep_min

	size_label \name, 0, \w-1
	.if \w == 32
	set_halves \name, 16, vmovdqu
	/* .Lavx2_0_15: where avx512 sends 0..15 near a page end, with
	 * xmm0 and al ready */
	set_halves \name, 8, vmovq
	set_halves \name, 4, vmovd
	set_bytes \name
	.else
	cmp	$4, %rcx
	size_jump jae, \name, 4, \w-1
	set_bytes \name
	size_label \name, 4, \w-1
	.if \w == 16
	cmp	$8, %rcx
	jae	.L\name\()_8_15
	path_mark \name\()_4_7
	.endif
	imul	$0x01010101, %eax, %eax
	mov	%eax, (%rdi)
	mov	%eax, -4(%rdi,%rcx)
	movzbl	%al, %eax
	FINISH
	.if \w == 16
.L\name\()_8_15:
	path_mark \name\()_8_15
	set_fill8
	mov	%rax, (%rdi)
	mov	%rax, -8(%rdi,%rcx)
	movzbl	%al, %eax
	FINISH
	.endif
	.endif
.endm

/*
 * end_in_line ID: the way out of "avx512"'s loop (rdi E, the fill in
 * zmm16), whose last store is a 64-byte one at E - 64: where E
 * mod 64 is 32..63, [E - 32, E) again with a plain store in E's line, so
 * that a load of the last bytes is forwarded (the store at E - 64
 * crosses a line, and on Zen 5 a load of bytes such a store wrote waits
 * for it to commit, as for a masked store); where it is 1..31 the same
 * store at (E & -64) - 32, bytes already written (n >= 256), so that
 * the sizes need no branch; none where 64 divides E, whose last store
 * is aligned and forwards (a branch seldom taken where sizes vary).
 * With use after write, 700..1023 bytes aligned went from 1.00x glibc
 * to 1.85-2.06x, back to back the same (Zen 5; bench/plain.S's big_m is
 * the loop's end before).  The sizes 256..512 end without it: there it
 * took "avx512" from 1.50x glibc to 1.37-1.41x back to back at 257..320
 * bytes (1.25-1.29x at random offsets), and from 1.00x to 0.94-0.95x
 * from 330 at random offsets, for its 1.7-2.0x with use after write
 * (bench/plain.S's a512_m, the control).
 */
.macro end_in_line id
	test	$63, %dil
	jz	.L\id\()_aligned
	path_mark \id\()_in_line
	lea	-32(%rdi), %rcx		/* E - 32 */
	mov	%rdi, %rax
	and	$-64, %rax
	sub	$32, %rax		/* (E & -64) - 32 */
	test	$32, %dil
	cmovnz	%rcx, %rax
	vmovdqu64 %ymm16, (%rax)
.L\id\()_out:
	xor	%ecx, %ecx
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	ret
.L\id\()_aligned:			/* one way out for both: 12 bytes less,
					 * which keeps librepstos.a's text in
					 * its goal (bench/footprint.sh) */
	path_mark \id\()_aligned
	jmp	.L\id\()_out
.endm

#endif /* REPSTOS_SET_BODY_H */
