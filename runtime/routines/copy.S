/* SPDX-License-Identifier: MIT */
/*
 * copy.S - the copy routines: what copy sites and the copy stub call.
 *
 * Every routine keeps the copy contract (repstos_site.h, "Copy sites"):
 *   in  rdi dest, rsi source, rcx count
 *   out rdi dest + count, rsi source + count, rcx 0
 *   may change rax, xmm0..xmm7 (whole registers: ymm, zmm), the flags,
 *   and, under the vector-state rule (repstos_site.h), the upper halves
 *   of ymm0-15 and xmm16-31 and k1, which "avx2" ends with vzeroupper and
 *   "avx512" uses; the direction flag stays clear.  No routine leaves
 *   the upper state dirty.
 * Every routine is a move: correct for any overlap, in either direction,
 * since the copy stub serves copy and move sites alike.  Leaf code,
 * reached by `call` with the stack 8 bytes off alignment; the only
 * stack use is the 8 bytes below the stack pointer (repstos_site.h): a
 * push of the count in the backward paths.
 */
#include "asm.h"
#include "copy_body.h"

	.text

/*
 * The size-dispatched routines start on a cache line and their ladder's
 * steps on 16 bytes (copy_body.h): small copies are a handful of
 * compares and branches, and on Zen 4 where those fall moved a batch of
 * calls by up to 20% either way between builds of the same code.
 * Measured as "x4" against the 16-byte-aligned, unpadded build (AMD EPYC
 * 0x19/0x11, three interleaved runs): 128 B moves 0.90 -> 1.00-1.03x,
 * published distributions +0.02..0.05x, nothing worse beyond the noise.
 */

/*
 * "original": the copy stub's initial target, correct on every x86-64
 * and needing nothing of it: 8 bytes at a time through rax, then bytes;
 * forwards unless the destination lies inside the source, then from the
 * end (each 8-byte word is loaded before it is stored, so a distance
 * below 8 is no problem either way).  The count is pushed for the exit,
 * as the backward loop counts rcx down to 0.
 */
ENTRY(__repstos_copy_original)
	mov	%rdi, %rax
	sub	%rsi, %rax
	cmp	%rcx, %rax
	jb	.Loriginal_backward	/* src <= dst < src + n */
.Loriginal_8_up:
	path_mark copy_original_8_up
	cmp	$8, %rcx
	jb	.Loriginal_0_7
	mov	(%rsi), %rax
	mov	%rax, (%rdi)
	add	$8, %rsi
	add	$8, %rdi
	sub	$8, %rcx
	jmp	.Loriginal_8_up
.Loriginal_0_7:
	path_mark copy_original_0_7
	test	%rcx, %rcx
	jz	.Loriginal_done
	movzbl	(%rsi), %eax
	mov	%al, (%rdi)
	inc	%rsi
	inc	%rdi
	dec	%rcx
	jmp	.Loriginal_0_7
.Loriginal_done:
	path_mark copy_original_done
	ret
.Loriginal_backward:
	path_mark copy_original_backward
	push	%rcx
	.cfi_adjust_cfa_offset 8
.Loriginal_back_8_up:
	path_mark copy_original_back_8_up
	cmp	$8, %rcx
	jb	.Loriginal_back_0_7
	mov	-8(%rsi,%rcx), %rax
	mov	%rax, -8(%rdi,%rcx)
	sub	$8, %rcx
	jmp	.Loriginal_back_8_up
.Loriginal_back_0_7:
	path_mark copy_original_back_0_7
	test	%rcx, %rcx
	jz	.Loriginal_back_done
	movzbl	-1(%rsi,%rcx), %eax
	mov	%al, -1(%rdi,%rcx)
	dec	%rcx
	jmp	.Loriginal_back_0_7
.Loriginal_back_done:
	path_mark copy_original_back_done
	pop	%rcx
	.cfi_adjust_cfa_offset -8
	copy_finish
END(__repstos_copy_original)

/*
 * "inline", called: rep movsb, what the inline form does, for the stub
 * when text stays as it is.  The stub serves move sites too, so a
 * destination inside the source (which a forward rep movsb would
 * corrupt; std + rep movsb is slow everywhere) goes to "vec".
 */
ENTRY(__repstos_copy_movsb)
	mov	%rdi, %rax
	sub	%rsi, %rax
	cmp	%rcx, %rax
	jb	__repstos_copy_vec	/* src <= dst < src + n */
	path_mark copy_movsb_rep
	rep movsb
	ret
END(__repstos_copy_movsb)

/*
 * "vec": 16-byte SSE2 moves by size (copy_body.h): no loop up to 128
 * bytes, whatever the overlap; rep movsb from __repstos_copy_rep_min,
 * non-temporal stores from __repstos_copy_nt_min.  Correct on every
 * x86-64: the fallback of the routines below.
 */
ENTRY_ALIGN(__repstos_copy_vec, 64)
	COPY_BODY copy_vec, 16
END(__repstos_copy_vec)

/*
 * "avx2": "vec" with 32-byte VEX moves (no loop to 256 bytes), VEX
 * throughout, and vzeroupper after every path that wrote a ymm register:
 * the dirty upper state it would leave costs the caller's later SSE code
 * (Zen 4, zlib -6: 0.95x without it).  Needs AVX2
 * (AVX would do; the can byte is the set routines'); else "vec".
 */
ENTRY_ALIGN(__repstos_copy_avx2, 64)
	REQUIRE(__repstos_can_avx2, __repstos_copy_vec)
	COPY_BODY copy_avx2, 32
END(__repstos_copy_avx2)

/*
 * "avx512": 0..64 bytes as one masked 64-byte load and store, with no
 * size branch, unless the source or the destination is within 64 bytes
 * of a page end (a masked-off byte on the next page costs an assist, or
 * may be unmapped); then, and above 64, 64-byte moves of zmm20..27 (no
 * loop to 512 bytes), 32-byte ones and smaller below 64.  Its vectors
 * are zmm16-31 and VEX xmm, which leave the upper state clean with no
 * vzeroupper (zlib -6 on Zen 4: 407 ms, as plain; zmm0..7 took 424).  The masked
 * pair loads before it stores, so it is a move too.  Most copies are
 * short and their sizes vary call to call (60-90% of the published
 * distributions are below 64 bytes), where the ladder's branches
 * mispredicted: measured on Zen 4 (AMD EPYC 0x19/0x11, copybench, two
 * runs interleaved with the ladder's build), the five distributions
 * went from 0.88-1.09x glibc to 1.61-3.15x; fixed sizes to 64 bytes
 * stayed at 1.4-1.7x, 65..128 went from 1.2 to 1.1x (one more compare).
 * Needs AVX512F, AVX512BW, AVX512VL and BMI2 (the can byte is the set
 * "avx512"'s, which needs the same); else "vec".
 */
ENTRY_ALIGN(__repstos_copy_avx512, 64)
	REQUIRE(__repstos_can_avx512, __repstos_copy_vec)
	cmp	$64, %rcx
	ja	.Lcopy_avx512_65_up	/* the body's ladder past its 64 */
.Lcopy_avx512_0_64_any:			/* avx512_plain's 0..15 */
	mov	%esi, %eax
	or	%edi, %eax		/* either within 64 bytes of a page end? */
	and	$4095, %eax
	cmp	$(4096 - 64), %eax
	ja	.Lcopy_avx512_body
	path_mark copy_avx512_0_64_masked
	bzhi	%rcx, .Lcopy_ones(%rip), %rax	/* bytes [0, n) */
	kmovq	%rax, %k1
	vmovdqu8 (%rsi), %zmm16{%k1}{z}
	vmovdqu8 %zmm16, (%rdi){%k1}
	copy_finish
.Lcopy_avx512_body:
	path_mark copy_avx512_0_64_page_end
	COPY_BODY copy_avx512, 64
END(__repstos_copy_avx512)

/*
 * "avx512_plain": "avx512" with plain moves for 16..64 bytes, for a
 * site whose sizes vary inside 16..63 (choose.c, spread_16_63): four
 * 16-byte loads, then four stores (copy_four16), with no size branch and
 * no byte outside [S, S+n), so no page test.  A load of bytes a
 * masked store wrote waits for it to commit, a plain store's are
 * forwarded.  Zen 4, sizes uniform in 16..63, 17..40, 24..48 and 32..63,
 * side by side: use after write 1.13-1.28x glibc where "avx512" is
 * 0.75-0.88x; back to back 1.16-2.28x against 1.61-2.87x.  0..15 and
 * 65 up: "avx512"'s.  Needs what "avx512" needs.
 */
ENTRY_ALIGN(__repstos_copy_avx512_plain, 16)
	REQUIRE(__repstos_can_avx512, __repstos_copy_vec)
	cmp	$64, %rcx
	ja	.Lcopy_avx512_65_up
	cmp	$16, %rcx
	jb	.Lcopy_avx512_0_15
	path_mark copy_avx512_plain_16_64
	copy_four16 .Lcopy_sixteen, .Lcopy_zero
.Lcopy_avx512_0_15:
	path_mark copy_avx512_plain_0_15
	jmp	.Lcopy_avx512_0_64_any
END(__repstos_copy_avx512_plain)

/*
 * "avx512_fwd": "avx512" whose 1..63 bytes a later load of the first or
 * the last byte can be forwarded from.  The masked store of "avx512" is
 * not forwarded to a load of the bytes it wrote (Zen 4; Intel Emerald
 * Rapids at every placement: the "use" and "first" tables of the copy
 * shapes): the load waits for it to commit.  So after it the last and
 * the first byte are stored again from rax: the youngest store a load of
 * one of them meets is plain and covers it.  A load of a whole word
 * between them waits for the masked store whatever follows it, so no
 * word is stored again: the first and the last word, also stored until
 * it was measured, cost back to back (2.04x glibc against 2.34x without
 * them, read all 1.03x either way; Emerald Rapids, copybench, the five
 * distributions, bench/results/intel-06-cf/copy-fwd-bytes.txt).
 * Above 64 it runs "avx512"'s very instructions (its first compare, then
 * its ladder: entered at 33 behind two more branches, 128 bytes aligned
 * were 1.39x glibc against "avx512"'s 1.72x, now 1.77x against 1.58x in
 * one run), so tune's fixed sizes there tell the two apart by noise
 * alone.  Then one unsigned compare of n - 1 with 62 sends 0 (which
 * wraps) and 64 away together, so the bytes need no cmov; 64 takes
 * "avx512"'s two plain 32-byte moves, as fast as glibc's where one
 * masked store and more were 0.73x glibc back to back at +3.  Every load
 * precedes every store: a move.  Page ends: "avx512"'s.  Needs what
 * "avx512" needs.
 */
ENTRY_ALIGN(__repstos_copy_avx512_fwd, 64)
	REQUIRE(__repstos_can_avx512, __repstos_copy_vec)
	cmp	$64, %rcx
	ja	.Lcopy_avx512_65_up
	lea	-1(%rcx), %rax
	cmp	$62, %rax
	ja	.Lcopy_avx512_fwd_0_or_64_up	/* n 0 wraps to the top */
	mov	%esi, %eax
	or	%edi, %eax
	and	$4095, %eax
	cmp	$(4096 - 64), %eax
	ja	.Lcopy_avx512_body
	path_mark copy_avx512_fwd_1_63
	bzhi	%rcx, .Lcopy_ones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 (%rsi), %zmm16{%k1}{z}
	movzbl	-1(%rsi,%rcx), %eax	/* the last byte */
	vmovdqu8 %zmm16, (%rdi){%k1}
	mov	%al, -1(%rdi,%rcx)
	vmovd	%xmm16, %eax		/* the first byte */
	mov	%al, (%rdi)
	copy_finish
.Lcopy_avx512_fwd_0_or_64_up:
	test	%rcx, %rcx
	jnz	.Lcopy_avx512_33_up	/* 64: two plain 32-byte moves */
	path_mark copy_avx512_fwd_0
	ret
END(__repstos_copy_avx512_fwd)

	.section .rodata.repstos, "a", @progbits
	.balign 8
.Lcopy_ones:
	.quad	-1
.Lcopy_sixteen:
	.quad	16
.Lcopy_zero:
	.quad	0

	OBJECT_NOTES
