/* SPDX-License-Identifier: MIT */
/*
 * set.S - the memset routines: the variants a site may call.
 *
 * Every routine keeps the site contract (repstos_site.h):
 *   in  rdi dest, rcx count, rax fill byte zero-extended
 *   out rdi dest + count, rcx 0, rax unchanged
 *   may change rdi, rcx, flags, xmm0 (the whole register: ymm0, zmm0)
 *   and, under the vector-state rule (repstos_site.h), the upper halves
 *   of ymm0-15, xmm16-31 and k1; nothing else.  None leaves the upper
 *   state dirty: "avx2" and "stosb_avx2" end with vzeroupper where they
 *   wrote ymm0, "avx512" and "avx512_split" keep their vectors in
 *   zmm16 (and ymm16), which the state does not cover.
 * They are reached by `call` with the stack 8 bytes off alignment, so
 * they spill nothing aligned and call nothing.  Each starts with endbr64
 * because the stub reaches it by an indirect jump (a NOP without CET).
 *
 * rax is free to use as long as it ends as movzbl %al: its input is the
 * byte zero-extended, so that restores it exactly.
 */
#include "asm.h"
#include "set_body.h"

	.section .rodata.repstos, "a", @progbits
	.balign 8
	/* eight copies of a byte, by multiplication (set_body.h's too) */
	.globl __repstos_bytes01
	.hidden __repstos_bytes01
	.type __repstos_bytes01, @object
	.size __repstos_bytes01, 8
__repstos_bytes01:
	.quad	0x0101010101010101
.Lones:
	.quad	-1
.Lzero:
	.quad	0
.Lsixtyfour:
	.quad	64
.Lthirtytwo:
	.quad	32
.Lminus32:
	.quad	-32
.Lminus16:
	.quad	-16

	.text

/*
 * The order is the layout: the routines that start on a 64-byte
 * boundary come first, and the small ones fill the bytes each leaves
 * before the next boundary ("erms" and "inline"'s after "avx2",
 * "rep_good" after "avx512_split"), which took 81 bytes of padding out
 * of every module's text (bench/footprint.sh, issue 21's 12 KiB).  Each
 * aligned routine keeps its offsets within its lines.
 */

/*
 * "vec": overlapping stores sized to the count, no loop below 129 bytes:
 *   0..3 byte stores, 4..7 two 4-byte, 8..15 two 8-byte, 16..32 two
 *   16-byte, 33..64 four, 65..128 eight; above, 64-byte blocks of aligned
 *   16-byte stores and a last unaligned 64; from __repstos_vec_rep_min
 *   on (set from ERMS and measurement), rep stosb.
 * SSE2 only, so it is correct on every x86-64.
 */
ENTRY_ALIGN(__repstos_vec, 64)
	SET_BODY vec, 16, 128, __repstos_vec_rep_min
END(__repstos_vec)

/*
 * "avx512_plain": "avx512_split" with plain stores below 64 bytes, for
 * a site whose sizes vary inside 16..63 (choose.c, spread_16_63).
 * A load of a masked store's bytes waits for the store to commit; a
 * plain store's are forwarded.
 *   0..15: "avx2"'s;
 *   16..63: four 16-byte stores, no size branch, none outside [S, E):
 *     also "avx512"'s and "avx512_split"'s path near a page end;
 *   64 and up: "avx512_split", past its REQUIRE.
 * Zen 4, sizes uniform in 16..63, 17..40 and 24..48, side by side:
 * use after write 1.21-1.30x glibc where "avx512_split" is 1.00-1.01x;
 * back to back 0.98-1.19x against 1.08-1.23x.  On an 8-byte boundary
 * after "vec", with "avx512"'s copy of those stores gone, the routines
 * take the 64-byte lines they took before.  Needs what "avx512" needs.
 */
ENTRY_ALIGN(__repstos_avx512_plain, 8)
	REQUIRE(__repstos_can_avx512, __repstos_vec)
	cmp	$63, %rcx
	ja	1f
	path_mark avx512_plain_0_63
	vpbroadcastb %eax, %xmm0		/* EVEX.128: ymm0's upper half zero */
	cmp	$16, %rcx
	jb	.Lavx2_0_15		/* avx2's tail: xmm0 and al ready */
	path_mark avx512_plain_16_63
.Lavx512_16_63_plain:			/* xmm0 the fill, rcx 16..63 */
	set_four16 vmovdqu, %xmm0, .Lminus32, .Lminus16
1:	path_mark avx512_plain_64_up
	jmp	.Lavx512_split_any
END(__repstos_avx512_plain)

/*
 * "avx2": "vec" with 32-byte stores, VEX-encoded throughout:
 *   0..31 two overlapping 16-, 8- or 4-byte stores of xmm0 (VEX.128,
 *   which leaves ymm0's upper half zero) or bytes, 32..64 two 32-byte
 *   stores, 65..128 four, 129..256 eight, 257..384 twelve; above,
 *   128-byte blocks of aligned 32-byte stores and a last unaligned 128;
 *   from __repstos_wide_rep_min on, rep stosb.
 * Needs AVX2; the policy chooses it only where the CPU has it, and on
 * another CPU it runs "vec" (REQUIRE).
 */
ENTRY_ALIGN(__repstos_avx2, 64)
	REQUIRE(__repstos_can_avx2, __repstos_vec)
	SET_BODY avx2, 32, 384, __repstos_wide_rep_min
END(__repstos_avx2)

/*
 * "erms": like the kernel's clear_user_erms: below 64 bytes the start-up
 * cost of rep stosb dominates, so the store loops; above, rep stosb.
 */
ENTRY(__repstos_erms)
	cmp	$64, %rcx
	jb	__repstos_original
	path_mark erms_64_up
	rep stosb
	ret
END(__repstos_erms)

/* "inline", called: the stub's target for inline when text stays as is.
 * On an 8-byte boundary, so that it fits after "erms" in "avx2"'s last
 * line. */
ENTRY_ALIGN(__repstos_stosb, 8)
	path_mark stosb
	rep stosb
	ret
END(__repstos_stosb)

/*
 * "avx512": 64-byte stores of zmm0, and no size test below 256 bytes.
 *   0..255: four masked 64-byte stores whose masks and places come from
 *     the count with no branch: bytes [0, min(n, 64)) at S; and, masked
 *     to all bytes when n >= 64 and to none below, stores at S + q,
 *     S + min(q, 64) and S + max(n - 128, 0), q = max(n - 64, 0), which
 *     with the first cover [S, S+n) for every n <= 256.  Sizes that vary
 *     from call to call (what a memset routine shared by every site of
 *     a program sees) cost no branch misprediction: bench measured
 *     the small-size mix at ~2x glibc on Zen 5, where a size-tested
 *     version of this routine lost to glibc on it.
 *     k1 is declared scratch where a caller may use mask registers
 *     (repstos_site.h), so it is not saved.
 *     A masked-off byte on another page costs a fault-suppression
 *     assist (and may be unmapped), so below 64 bytes a store that could
 *     reach the next page takes the sized stores instead, as glibc's
 *     evex memset does for its masked store.
 *     Measured on Zen 5: a branch to one masked store below 64 bytes
 *     saves 0.25 ns at fixed small sizes but makes the 1..256 mix 2.2x
 *     slower (mispredictions).  256 cannot take this path: bzhi reads
 *     only the low 8 bits of the count (tests/runtime caught it).
 *   256..320: five stores (the first 256 bytes and the last 64);
 *   321..512: eight; above, 256-byte blocks of aligned 64-byte
 *     stores, a last unaligned 256 and a 32-byte store in E's line
 *     (end_in_line); from __repstos_wide_rep_min on, rep stosb.
 * The fill lives in zmm16, EVEX-encoded, so the routine leaves the
 * upper state clean with no vzeroupper (which cost 0.1-0.2 ns a call on
 * Zen 4); near a page end it copies the fill to xmm0 for "avx2"'s
 * 16-byte stores.  On Intel 512-bit stores may lower the clock, so the
 * policy gives this routine to AMD CPUs only.  Needs AVX512F, AVX512BW
 * (byte masks, vpbroadcastb from a GPR, kmovq), AVX512VL (ymm16) and
 * BMI2 (bzhi); on a CPU without them it runs "vec" (REQUIRE).
 */
ENTRY_ALIGN(__repstos_avx512, 64)
	REQUIRE(__repstos_can_avx512, __repstos_vec)
	vpbroadcastb %eax, %zmm16
	cmp	$255, %rcx
	ja	.Lavx512_256_512
	mov	%edi, %eax
	and	$4095, %eax
	cmp	$(4096 - 64), %eax
	ja	.Lavx512_0_255_page_end	/* [S, S+64) may cross a page */
.Lavx512_0_255:
	path_mark avx512_0_255
	bzhi	%rcx, .Lones(%rip), %rax	/* bytes [0, min(n, 64)) */
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	cmp	$64, %rcx
	sbb	%rax, %rax
	not	%rax			/* n >= 64: all bytes, else none */
	kmovq	%rax, %k1
	lea	-64(%rcx), %rax
	cmp	$64, %rcx
	cmovb	.Lzero(%rip), %rax	/* q = max(n - 64, 0) */
	vmovdqu8 %zmm16, (%rdi,%rax){%k1}
	cmp	$64, %rax
	cmova	.Lsixtyfour(%rip), %rax	/* min(q, 64) */
	vmovdqu8 %zmm16, (%rdi,%rax){%k1}
	lea	-128(%rcx), %rax
	cmp	$128, %rcx
	cmovb	.Lzero(%rip), %rax	/* max(n - 128, 0) */
	vmovdqu8 %zmm16, (%rdi,%rax){%k1}
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	FINISH
.Lavx512_0_255_page_end:
	path_mark avx512_0_255_page_end
	cmp	$64, %rcx
	jae	.Lavx512_0_255		/* every mask full: no byte off [S, E) */
.Lavx512_0_63_page_end:			/* avx512_split's 0..63 join here */
	path_mark avx512_0_63_page_end
	vmovd	%xmm16, %eax		/* the fill byte back in rax */
	movzbl	%al, %eax
	vmovdqa64 %xmm16, %xmm0		/* EVEX.128: ymm0's upper half zero */
	cmp	$16, %rcx
	jb	.Lavx2_0_15		/* avx2's tail: xmm0 and al ready */
	path_mark avx512_16_63_page_end
	jmp	.Lavx512_16_63_plain
.Lavx512_256_512:
	path_mark avx512_256_512
	cmp	$512, %rcx
	ja	.Lavx512_513_up
	vmovdqu64 %zmm16, (%rdi)
	vmovdqu64 %zmm16, 64(%rdi)
	vmovdqu64 %zmm16, 128(%rdi)
	vmovdqu64 %zmm16, 192(%rdi)
	vmovdqu64 %zmm16, -64(%rdi,%rcx)
	cmp	$320, %rcx		/* [0, 256) and the last 64 cover it */
	jbe	1f
	path_mark avx512_321_512
	vmovdqu64 %zmm16, -256(%rdi,%rcx)
	vmovdqu64 %zmm16, -192(%rdi,%rcx)
	vmovdqu64 %zmm16, -128(%rdi,%rcx)
1:	FINISH				/* no end_in_line: see there */
.Lavx512_513_up:
	path_mark avx512_513_up
	cmp	__repstos_wide_rep_min(%rip), %rcx
	jae	.Lavx512_rep
	/* rax = end; rdi = first 64-aligned address after the head store;
	 * rcx = end - 256, the last block's start, stored unaligned.  At
	 * least one aligned block fits, as n > 512. */
	lea	(%rdi,%rcx), %rax
	vmovdqu64 %zmm16, (%rdi)
	add	$64, %rdi
	and	$-64, %rdi
	lea	-256(%rax), %rcx
.Lavx512_loop:
	path_mark avx512_loop
	vmovdqa64 %zmm16, (%rdi)
	vmovdqa64 %zmm16, 64(%rdi)
	vmovdqa64 %zmm16, 128(%rdi)
	vmovdqa64 %zmm16, 192(%rdi)
	add	$256, %rdi
	cmp	%rcx, %rdi
	jb	.Lavx512_loop
	vmovdqu64 %zmm16, (%rcx)
	vmovdqu64 %zmm16, 64(%rcx)
	vmovdqu64 %zmm16, 128(%rcx)
	vmovdqu64 %zmm16, 192(%rcx)
	mov	%rax, %rdi
	end_in_line avx512_loop_end
.Lavx512_rep:
	path_mark avx512_rep
	rep stosb
	ret
END(__repstos_avx512)

/*
 * "avx512_split": "avx512" split by size for CPUs whose 64-byte stores
 * cost twice when they cross a cache line (measured: Zen 4):
 *   0..63: one masked 64-byte store, no size branch (sizes that vary
 *     below 64 bytes cost no misprediction); "avx512"'s three further
 *     masked-off stores cost 3.5 ns at 16 bytes at offset 3, glibc's
 *     memset 3.0, this 1.9;
 *   64..256: "avx2"'s 32-byte stores (2.2-3.0 ns misaligned, where
 *     "avx512"'s 64-byte ones took 3.3-3.5);
 *   257 and up: "avx512"'s where the destination is 64-byte aligned
 *     (4.6 ns at 512 bytes, "avx2" 4.9), else "avx2"'s (4.9 ns at 512
 *     bytes at offset 3, "avx512" 5.4); a site's alignment seldom
 *     changes from call to call, so the test is well predicted.
 * Needs what "avx512" needs.
 */
ENTRY_ALIGN(__repstos_avx512_split, 64)
	REQUIRE(__repstos_can_avx512, __repstos_vec)
.Lavx512_split_any:			/* avx512_plain's 64 and up */
	vpbroadcastb %eax, %zmm16
	cmp	$256, %rcx
	ja	.Lavx512_split_257_up
	/* 64..256 before the page test: its plain stores never leave
	 * [S, S+n), and the page-end path it would otherwise take is
	 * avx512's, written for 0..255 (its bzhi sees the count's low 8
	 * bits: 256 there wrote nothing of the first 64 bytes) */
	cmp	$64, %rcx
	jae	.Lavx512_split_64_256
	mov	%edi, %eax
	and	$4095, %eax
	cmp	$(4096 - 64), %eax
	ja	.Lavx512_0_63_page_end	/* [S, S+64) may cross a page */
	path_mark avx512_split_0_63
	bzhi	%rcx, .Lones(%rip), %rax	/* bytes [0, n) */
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	FINISH
.Lavx512_split_64_256:
	path_mark avx512_split_64_256
	/* "avx2"'s 32-byte stores, two from each end to 128 bytes, four
	 * above, in ymm16: one size branch, as these are the last sizes
	 * here (jumping into "avx2" itself, whose 129..256 class tests for
	 * 256, measured 1.20x glibc at 256 bytes aligned against 1.33x, and
	 * D 1.015x against 1.04x: Zen 4, six runs side by side) */
	vmovd	%xmm16, %eax		/* the fill byte back in rax */
	movzbl	%al, %eax
	.set	.Lset_evex, 1
	set_class avx512_split, 32, 64, 128, 2, 2, 256
	set_class avx512_split, 32, 129, 256, 4, 4, last
	.set	.Lset_evex, 0
.Lavx512_split_257_up:
	path_mark avx512_split_257_up
	test	$63, %dil
	jnz	.Lavx512_split_257_up_mis
	cmp	$512, %rcx
	ja	.Lavx512_split_513_up
	path_mark avx512_split_257_512_aligned
	/* S aligned, 257..512: every store but one aligned, and none
	 * crossing a line.  The first 256 bytes; the block holding the
	 * last byte, at P = (n - 1) & -64, masked to its n - P bytes (a
	 * masked-off byte never leaves that block, so never the page); and,
	 * where P > 256, the three blocks below P, which with the first
	 * four cover [0, P).  "avx512"'s last four stores, at E - 256, all
	 * crossed a line where n is not a multiple of 64: 5.2 ns at 511
	 * bytes, glibc 4.6. */
	vmovdqa64 %zmm16, (%rdi)
	vmovdqa64 %zmm16, 64(%rdi)
	vmovdqa64 %zmm16, 128(%rdi)
	vmovdqa64 %zmm16, 192(%rdi)
	lea	-1(%rcx), %rax
	and	$-64, %rax		/* P: 256..448 */
	/* no branch for 257..320, where P = 256 and these store again
	 * inside [0, 256) */
	vmovdqa64 %zmm16, -64(%rdi,%rax)
	vmovdqa64 %zmm16, -128(%rdi,%rax)
	vmovdqa64 %zmm16, -192(%rdi,%rax)
	sub	%rax, %rcx		/* n - P: 1..64 */
	add	%rax, %rdi
	bzhi	%rcx, .Lones(%rip), %rax	/* all 64 bits at 64 */
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	/* Then, where n - P >= 32, [E - 32, E) again with a plain store,
	 * the youngest of the last bytes, so that a load of them is
	 * forwarded (one of bytes a masked store wrote waits for it to
	 * commit); elsewhere the same store at P - 32, bytes already
	 * written, so that no branch is needed and no store crosses P's
	 * line.  With use after write 0.97x glibc from 0.52x where 32
	 * divides n (glibc's last store forwards then), 1.91-1.93x from
	 * 1.03-1.04x at the other sizes from n - P = 33; back to back the
	 * same (bench/plain.S's tail_yc against tail_m, Zen 5).  Where
	 * n - P < 32 (tail_y) the store at E - 32 crossed the line: those
	 * sizes 1.9x too with use after write, but 0.90x back to back. */
	lea	-32(%rcx), %rax
	cmp	$32, %rcx
	cmovb	.Lminus32(%rip), %rax
	vmovdqu64 %ymm16, (%rdi,%rax)
	vmovd	%xmm16, %eax		/* the fill byte back in rax */
	movzbl	%al, %eax
	FINISH				/* rdi: S + P + (n - P) */
.Lavx512_split_513_up:
	path_mark avx512_split_513_up_aligned
	/* S aligned: 256-byte blocks from S itself (no head store) while a
	 * block starts before E - 256, then the last 256 bytes */
	cmp	__repstos_wide_rep_min(%rip), %rcx
	jae	.Lavx512_rep
	lea	(%rdi,%rcx), %rax
	lea	-256(%rax), %rcx
	jmp	.Lavx512_loop		/* from S: no head store */
	/* On a line of its own: where it fell after the code above moved
	 * distributions M and D at offset 3 by 0.3 and 0.12 ns a call on
	 * Zen 4 (5.62 against 5.91 ns, three runs side by side), with every
	 * fixed size the same: branch prediction, not the stores. */
	.p2align 6
.Lavx512_split_257_up_mis:
	path_mark avx512_split_257_up_mis
	/* not 64-byte aligned: "avx2"'s 32-byte stores, here of ymm16, so
	 * that they need no vzeroupper (which, jumping into "avx2" itself,
	 * cost 0.16 ns a call on distribution D at offset 3, Zen 4) */
	.set	.Lset_evex, 1
	set_big avx512_split, 32, 384, __repstos_wide_rep_min
	.set	.Lset_evex, 0
END(__repstos_avx512_split)

/*
 * "rep_good": like the kernel's clear_user_rep_good: rep stosq for the
 * 8-byte words, rep stosb for the rest.  rcx is needed twice and no GPR
 * is free, so the count waits on the stack.
 */
ENTRY(__repstos_rep_good)
	path_mark rep_good
	imul	__repstos_bytes01(%rip), %rax
	push	%rcx
	.cfi_adjust_cfa_offset 8
	shr	$3, %rcx
	rep stosq
	pop	%rcx
	.cfi_adjust_cfa_offset -8
	and	$7, %ecx
	rep stosb
	movzbl	%al, %eax
	ret
END(__repstos_rep_good)

/*
 * "stosb_avx2": rep stosb below 32 bytes; 32..128 four 32-byte stores
 * with no size branch; above, "avx2" from __repstos_short_rep_max (rep
 * stosb below it).  Where the microcode starts a short rep stosb fast
 * (measured: Zen 4; on Zen 3 it is 14.5 ns, so the policy never picks
 * these there), it costs one well-predicted branch and no size-dependent
 * ones: sizes that vary call to call, as the published distributions
 * do, pay no misprediction below 32 bytes, where the store routines pay
 * one per change of size class.
 *   32..128: the stores at S, S + min(n - 32, 32), S + max(n - 64, 0)
 * and S + n - 32 cover [S, S+n) for every such n.  rep stosb there took
 * 2.5 to 3.7 ns from run to run on this guest (this routine's own
 * rep stosb, not the inline form, 2.8-4.1): 0.75-0.95x glibc's AVX2
 * memset at 65..127 bytes.  The stores take 2.2 ns (1.5x); 32..64, which
 * had two stores and a branch at 64, went from 1.9 to 2.2-2.4 ns (1.2x),
 * and the distributions are as they were, D better (Zen 4, AVX-512
 * hidden, four runs side by side).
 */
ENTRY_ALIGN(__repstos_stosb_avx2, 64)
	/* no REQUIRE: rep stosb runs everywhere, and "avx2" has its own */
	cmp	$32, %rcx
	jb	2f
	cmp	$128, %rcx
	ja	1f
	cmpb	$0, __repstos_can_avx2(%rip)
	je	2f
	path_mark stosb_avx2_32_128
	vmovd	%eax, %xmm0
	vpbroadcastb %xmm0, %ymm0
	vmovdqu	%ymm0, (%rdi)
	lea	-32(%rcx), %rax
	vmovdqu	%ymm0, (%rdi,%rax)	/* n - 32 */
	cmp	$32, %rax
	cmova	.Lthirtytwo(%rip), %rax
	vmovdqu	%ymm0, (%rdi,%rax)	/* min(n - 32, 32) */
	lea	-64(%rcx), %rax
	cmp	$64, %rcx
	cmovb	.Lzero(%rip), %rax
	vmovdqu	%ymm0, (%rdi,%rax)	/* max(n - 64, 0) */
	vmovd	%xmm0, %eax		/* the fill byte back in rax */
	movzbl	%al, %eax
	vzeroupper			/* "avx2"'s set_clean */
	FINISH
1:	path_mark stosb_avx2_129_up
	cmp	__repstos_short_rep_max(%rip), %rcx
	jae	__repstos_avx2
2:	path_mark stosb_avx2_rep
	rep stosb
	ret
END(__repstos_stosb_avx2)

/*
 * "original": plain store loops, like the kernel's clear_user_original:
 * 64 bytes per iteration in 8-byte stores, then 8 at a time, then bytes.
 */
ENTRY(__repstos_original)
	cmp	$8, %rcx
	jb	.Loriginal_0_7
	imul	__repstos_bytes01(%rip), %rax
.Loriginal_64_up:			/* 64 bytes an iteration */
	path_mark original_64_up
	cmp	$64, %rcx
	jb	.Loriginal_8_63
	mov	%rax, (%rdi)
	mov	%rax, 8(%rdi)
	mov	%rax, 16(%rdi)
	mov	%rax, 24(%rdi)
	mov	%rax, 32(%rdi)
	mov	%rax, 40(%rdi)
	mov	%rax, 48(%rdi)
	mov	%rax, 56(%rdi)
	add	$64, %rdi
	sub	$64, %rcx
	jmp	.Loriginal_64_up
.Loriginal_8_63:			/* 8 bytes an iteration */
	path_mark original_8_63
	cmp	$8, %rcx
	jb	.Loriginal_tail
	mov	%rax, (%rdi)
	add	$8, %rdi
	sub	$8, %rcx
	jmp	.Loriginal_8_63
.Loriginal_tail:			/* 0..7 left: rax back to the byte */
	path_mark original_tail
	movzbl	%al, %eax
.Loriginal_0_7:
	path_mark original_0_7
	test	%rcx, %rcx
	jz	.Loriginal_done
	mov	%al, (%rdi)
	inc	%rdi
	dec	%rcx
	jmp	.Loriginal_0_7
.Loriginal_done:
	path_mark original_done
	ret
END(__repstos_original)


	OBJECT_NOTES
