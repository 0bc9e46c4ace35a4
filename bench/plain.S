/* SPDX-License-Identifier: MIT */
/*
 * plain.S - benchmark-only routines: "avx512_split" with plain stores
 * below 64 bytes, to see whether a load of bytes just written, which
 * waits for a masked store to commit, can be forwarded without the size
 * branches that cost "avx2" its mispredictions (issue 22, item 3).  From
 * 64 bytes up each jumps to __repstos_avx512_split itself.  Stores that
 * a size does not need go to the routine's own stack below rsp (its red
 * zone, which a called routine owns), so that no size branches:
 *
 *   __bench_plain_ladder  0..63: for each width w of 32, 16, 8, 4, 2
 *                         two w-byte stores, at S and E - w, where n >= w,
 *                         else both below rsp; then a byte at S where
 *                         n >= 1.  Widest last, so that the youngest store
 *                         holding the last byte is the widest.
 *   __bench_plain_four    16..63: four 16-byte stores, at S, E-16,
 *                         E-min(n,32), E-max(n-16,16) (avx512's page-end
 *                         path); 0..15 the ladder from 8 down: one size
 *                         branch, at 16.
 *   __bench_plain_mask16  16..63 the four stores; 0..15 one masked
 *                         16-byte store (the masked form only where the
 *                         ladder would be longest).
 *   __bench_plain_over    0..63: avx512_split's one masked store, then
 *                         the ladder's pairs of 16 and 32 over it: no
 *                         branch, and every byte of 16..63 also in a
 *                         younger plain store a load can forward from.
 *   __bench_plain_redir   0..63: one masked 16-byte store, at S where
 *                         n < 16, else below rsp; four 16-byte stores
 *                         (plain_four's) where n >= 16, else below rsp:
 *                         plain stores from 16 up with no branch at 16.
 * And three that ask what 64-byte stores cost (Zen 5):
 *   __bench_wide          64..256: four plain 64-byte stores, at S,
 *                         S + min(n - 64, 64), S + max(n - 128, 0) and
 *                         E - 64: "avx512"'s stores unmasked, as every
 *                         mask is full there, and no size branch inside
 *                         the range; elsewhere avx512_split.
 *   __bench_wide_y        __bench_wide, then a 32-byte store at E - 32:
 *                         the youngest store of the last byte a plain
 *                         32-byte one.
 *   __bench_rz            0..255: "avx512" with only its first store
 *                         masked; its other three plain, and below rsp
 *                         where n < 64 (where "avx512" masks them to
 *                         nothing): no size branch and no masked-off
 *                         store.  From 256 "avx512".
 *   __bench_rza           __bench_rz with its stores under 64 bytes in a
 *                         64-byte aligned line of the red zone: rz's at
 *                         rsp - 64 cross a line, as rsp is 8 mod 16.
 * And three that are avx512_split to 256 bytes, its branches the same,
 * and reach it through one more jump above (the 64..256 stores are the
 * only difference between them):
 *   __bench_split_c       64..256 avx512_split's own 32-byte stores,
 *                         two from each end to 128, four above: the
 *                         control;
 *   __bench_split_wy      64..256 wide_y's stores: four 64-byte ones
 *                         and a youngest 32-byte one at E - 32, no size
 *                         branch;
 *   __bench_split_e8      64..256 eight 32-byte stores, four from each
 *                         end (split_c's 129..256 stores, clamped into
 *                         [S, E - 32] where n is smaller), no size
 *                         branch at 128: plain 32-byte stores as split_c,
 *                         none wider, none masked.
 * And six that are split_c with plain stores of the ends over its
 * masked one below 64 bytes, so that a load of those bytes meets a
 * younger plain store that holds them, as tail_yc's does from 257 bytes
 * (a load of other bytes still waits for the masked store to commit).
 * The first three aim a store below rsp where n is smaller than it (no
 * branch):
 *   __bench_s0_b          the last byte;
 *   __bench_s0_8b         the last byte, then the last 8 bytes;
 *   __bench_s0_e          the last 1, 8, 16 and 32 bytes, widest last.
 * The other three leave first where n = 0 (one branch more), so that
 * their byte stores need no cmov:
 *   __bench_s0_c          the last byte;
 *   __bench_s0_f          the first and the last byte;
 *   __bench_s0_w          s0_f's, then the first and last 8 bytes where
 *                         n >= 8 (else both below rsp).
 * And two for avx512_split's aligned 257..512, whose last store is masked
 * to the bytes of its 64-byte block, so that a load of them waits:
 *   __bench_tail_plain    that last store a plain 64-byte one at E - 64,
 *                         which never leaves [S, E) as n > 256: aligned
 *                         (and so forwarded) where 64 divides n, across a
 *                         line where it does not;
 *   __bench_tail_branch   the plain one where 64 divides n, else the
 *                         masked one: one branch more.
 *   __bench_tail_y        the masked one, then a plain 32-byte store at
 *                         E - 32, the youngest store of the last byte, as
 *                         __bench_wide_y's: no branch.  avx512_split's
 *                         own since it won;
 *   __bench_tail_yc       tail_y's plain store only where n - P >= 32,
 *                         and so inside P's line; else at P - 32, bytes
 *                         already written: no branch, and no store
 *                         across a line;
 *   __bench_tail_m        the masked one alone: avx512_split's before,
 *                         the control, reached as these are.
 *   Elsewhere these jump to avx512_split.
 * And __bench_a512_m: "avx512"'s 256..512 with no store after its last
 * 64-byte one (before end_in_line's store joined it).
 * And __bench_big_m: avx512_split's aligned loop and its last 256 bytes
 * with no store after them (before tail_yc's store joined them there).
 * And three for its 257..512 where S is not 64-byte aligned:
 *   __bench_mis64_m       "avx512"'s 64-byte stores, crossing lines;
 *   __bench_mis64         the same, then end_in_line's store in E's
 *                         line, so that a load of the last bytes is
 *                         forwarded;
 *   __bench_mis64_y       the same, then a 32-byte store at E - 32
 *                         whether or not it crosses a line: the last
 *                         byte always in a plain store of 32 bytes;
 *   __bench_mis16         385..512 in sixteen 32-byte stores, eight
 *                         from each end, not a loop whose passes depend
 *                         on S's alignment.
 * Same contract as the routines (runtime/routines/set.S); needs what
 * "avx512" needs, and is only run where that is there.
 */
#include "routines/set_body.h"
#include "bench_asm.h"

	.section .rodata.bench_plain, "a", @progbits
	.balign 8
.Lm64:	.quad	-64
.Lm32:	.quad	-32
.Lm16:	.quad	-16
.Lones:	.quad	-1
.L64:	.quad	64
.L96:	.quad	96
.L0:	.quad	0

	.text

/* A w-byte store of the fill at addr. */
.macro st1 addr:vararg
	vpextrb	$0, %xmm16, \addr
.endm
.macro st2 addr:vararg
	vpextrw	$0, %xmm16, \addr
.endm
.macro st4 addr:vararg
	vmovd	%xmm16, \addr
.endm
.macro st8 addr:vararg
	vmovq	%xmm16, \addr
.endm
.macro st16 addr:vararg
	vmovdqu64 %xmm16, \addr
.endm
.macro st32 addr:vararg
	vmovdqu64 %ymm16, \addr
.endm

/* Where n >= w: two w-byte stores at S and E - w; else both at
 * rsp - 64.  rdi holds S - rsp; rax is scratch.  Flags: from one cmp. */
.macro pair w
	cmp	$\w, %rcx
	mov	%rdi, %rax
	cmovb	.Lm64(%rip), %rax
	st\w	(%rsp,%rax)
	lea	-\w(%rdi,%rcx), %rax
	cmovb	.Lm64(%rip), %rax
	st\w	(%rsp,%rax)
.endm

/* The byte at S where n >= 1. */
.macro first_byte
	cmp	$1, %rcx
	mov	%rdi, %rax
	cmovb	.Lm64(%rip), %rax
	vpextrb	$0, %xmm16, (%rsp,%rax)
.endm

/* rdi += n, rcx 0, rax the fill byte: the way out. */
.macro fill_out
	add	%rcx, %rdi
	xor	%ecx, %ecx
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	ret
.endm

/* rdi = S - rsp on the way in; S + n, rcx 0, rax the fill byte out. */
.macro ladder_out
	add	%rsp, %rdi
	fill_out
.endm

/* To `to` where [S, S+w) may cross a page; rax is scratch. */
.macro near_page_end w, to
	mov	%edi, %eax
	and	$4095, %eax
	cmp	$(4096 - \w), %eax
	ja	\to
.endm

/* Near a page end: the fill byte back in rax, and avx512_split's own
 * page-end path. */
.macro to_split
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	jmp	__repstos_avx512_split
.endm

/* Near a page end: the fill byte back in rax, and avx512's own
 * page-end path. */
.macro to_avx512
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	jmp	__repstos_avx512
.endm

/* 0..15 (rdi S, rcx n, xmm16 the fill): the ladder from 8 down. */
.macro below16
	sub	%rsp, %rdi
	first_byte
	pair	2
	pair	4
	pair	8
	ladder_out
.endm

ENTRY_ALIGN(__bench_plain_ladder, 64)
	cmp	$64, %rcx
	leave_if ae, plain_ladder_64_up, __repstos_avx512_split
	path_mark plain_ladder_0_63
	vpbroadcastb %eax, %ymm16
	sub	%rsp, %rdi
	first_byte
	pair	2
	pair	4
	pair	8
	pair	16
	pair	32
	ladder_out
	leave_to plain_ladder_64_up, __repstos_avx512_split
END(__bench_plain_ladder)

ENTRY_ALIGN(__bench_plain_four, 64)
	cmp	$64, %rcx
	leave_if ae, plain_four_64_up, __repstos_avx512_split
	vpbroadcastb %eax, %xmm16
	cmp	$16, %rcx
	jb	1f
	path_mark plain_four_16_63
	set_four16 vmovdqu64, %xmm16, .Lm32, .Lm16
1:	path_mark plain_four_0_15
	below16
	leave_to plain_four_64_up, __repstos_avx512_split
END(__bench_plain_four)

ENTRY_ALIGN(__bench_plain_mask16, 64)
	cmp	$64, %rcx
	leave_if ae, plain_mask16_64_up, __repstos_avx512_split
	vpbroadcastb %eax, %xmm16
	cmp	$16, %rcx
	jb	1f
	path_mark plain_mask16_16_63
	set_four16 vmovdqu64, %xmm16, .Lm32, .Lm16
1:	near_page_end 16, 2f
	path_mark plain_mask16_0_15_masked
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %xmm16, (%rdi){%k1}
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	FINISH
2:	path_mark plain_mask16_0_15_page_end
	below16
	leave_to plain_mask16_64_up, __repstos_avx512_split
END(__bench_plain_mask16)

ENTRY_ALIGN(__bench_plain_over, 64)
	cmp	$64, %rcx
	leave_if ae, plain_over_64_up, __repstos_avx512_split
	vpbroadcastb %eax, %ymm16
	near_page_end 64, 1f
	path_mark plain_over_0_63
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	sub	%rsp, %rdi
	pair	16
	pair	32
	ladder_out
1:	path_mark plain_over_0_63_page_end
	to_split
	leave_to plain_over_64_up, __repstos_avx512_split
END(__bench_plain_over)

ENTRY_ALIGN(__bench_plain_redir, 64)
	cmp	$64, %rcx
	leave_if ae, plain_redir_64_up, __repstos_avx512_split
	vpbroadcastb %eax, %xmm16
	near_page_end 64, 1f
	path_mark plain_redir_0_63
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	lea	-64(%rsp), %rax
	cmp	$16, %rcx
	cmovb	%rdi, %rax		/* the masked store: S below 16 */
	vmovdqu8 %xmm16, (%rax){%k1}
	lea	(%rdi,%rcx), %rdi	/* not add: the flags are cmp $16's */
	vmovq	%rdi, %xmm17		/* E, the way out */
	lea	-48(%rsp), %rax
	cmovb	%rax, %rdi		/* below 16 the four land in [rsp-64, rsp-32) */
	mov	%rcx, %rax
	neg	%rax
	vmovdqu64 %xmm16, (%rdi,%rax)
	vmovdqu64 %xmm16, -16(%rdi)
	cmp	$-32, %rax
	cmovl	.Lm32(%rip), %rax
	vmovdqu64 %xmm16, (%rdi,%rax)
	sub	$16, %rcx
	neg	%rcx
	cmp	$-16, %rcx
	cmovg	.Lm16(%rip), %rcx
	vmovdqu64 %xmm16, (%rdi,%rcx)
	vmovq	%xmm17, %rdi
	xor	%ecx, %ecx
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	ret
1:	path_mark plain_redir_0_63_page_end
	to_split
	leave_to plain_redir_64_up, __repstos_avx512_split
END(__bench_plain_redir)

ENTRY_ALIGN(__bench_wide, 64)
	cmp	$64, %rcx
	leave_if b, wide_0_63, __repstos_avx512_split
	cmp	$256, %rcx
	leave_if a, wide_257_up, __repstos_avx512_split
	path_mark wide_64_256
	vpbroadcastb %eax, %zmm16
	vmovdqu64 %zmm16, (%rdi)
	lea	-64(%rcx), %rax
	cmp	$64, %rax
	cmova	.L64(%rip), %rax
	vmovdqu64 %zmm16, (%rdi,%rax)	/* S + min(n - 64, 64) */
	lea	-128(%rcx), %rax
	cmp	$128, %rcx
	cmovb	.L0(%rip), %rax
	vmovdqu64 %zmm16, (%rdi,%rax)	/* S + max(n - 128, 0) */
	vmovdqu64 %zmm16, -64(%rdi,%rcx)	/* the last byte's, youngest */
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	FINISH
	leave_to wide_0_63, __repstos_avx512_split
	leave_to wide_257_up, __repstos_avx512_split
END(__bench_wide)

ENTRY_ALIGN(__bench_wide_y, 64)
	cmp	$64, %rcx
	leave_if b, wide_y_0_63, __repstos_avx512_split
	cmp	$256, %rcx
	leave_if a, wide_y_257_up, __repstos_avx512_split
	path_mark wide_y_64_256
	vpbroadcastb %eax, %zmm16
	vmovdqu64 %zmm16, (%rdi)
	lea	-64(%rcx), %rax
	cmp	$64, %rax
	cmova	.L64(%rip), %rax
	vmovdqu64 %zmm16, (%rdi,%rax)
	lea	-128(%rcx), %rax
	cmp	$128, %rcx
	cmovb	.L0(%rip), %rax
	vmovdqu64 %zmm16, (%rdi,%rax)
	vmovdqu64 %zmm16, -64(%rdi,%rcx)
	vmovdqu64 %ymm16, -32(%rdi,%rcx)	/* youngest: a load can forward */
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	FINISH
	leave_to wide_y_0_63, __repstos_avx512_split
	leave_to wide_y_257_up, __repstos_avx512_split
END(__bench_wide_y)

ENTRY_ALIGN(__bench_rz, 64)
	cmp	$255, %rcx
	leave_if a, rz_256_up, __repstos_avx512
	vpbroadcastb %eax, %zmm16
	near_page_end 64, 1f
	path_mark rz_0_255
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	sub	%rsp, %rdi		/* S - rsp */
	lea	-128(%rcx), %rax
	cmp	$128, %rcx
	cmovb	.L0(%rip), %rax
	lea	(%rdi,%rax), %rax	/* S + max(n - 128, 0) */
	cmp	$64, %rcx
	cmovb	.Lm64(%rip), %rax
	vmovdqu64 %zmm16, (%rsp,%rax)
	lea	-64(%rcx), %rax
	cmp	$128, %rcx
	cmovae	.L64(%rip), %rax
	lea	(%rdi,%rax), %rax	/* S + min(n - 64, 64) */
	cmp	$64, %rcx
	cmovb	.Lm64(%rip), %rax
	vmovdqu64 %zmm16, (%rsp,%rax)
	lea	-64(%rdi,%rcx), %rax	/* E - 64, youngest */
	cmovb	.Lm64(%rip), %rax
	vmovdqu64 %zmm16, (%rsp,%rax)
	ladder_out
1:	path_mark rz_0_255_page_end
	to_avx512
	leave_to rz_256_up, __repstos_avx512
END(__bench_rz)

/* rdx is saved in xmm17 (xmm16-31 are scratch at every site); it holds
 * the aligned red-zone line's offset from S, which the stores a size
 * does not need take instead of their place in [S, E). */
ENTRY_ALIGN(__bench_rza, 64)
	cmp	$255, %rcx
	leave_if a, rza_256_up, __repstos_avx512
	vpbroadcastb %eax, %zmm16
	near_page_end 64, 1f
	path_mark rza_0_255
	vmovq	%rdx, %xmm17
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	lea	-64(%rsp), %rdx
	and	$-64, %rdx		/* in [rsp - 120, rsp - 72] */
	sub	%rdi, %rdx		/* that line - S */
	lea	-128(%rcx), %rax
	cmp	$128, %rcx
	cmovb	.L0(%rip), %rax		/* max(n - 128, 0) */
	cmp	$64, %rcx
	cmovb	%rdx, %rax
	vmovdqu64 %zmm16, (%rdi,%rax)
	lea	-64(%rcx), %rax
	cmp	$128, %rcx
	cmovae	.L64(%rip), %rax	/* min(n - 64, 64) */
	cmp	$64, %rcx
	cmovb	%rdx, %rax
	vmovdqu64 %zmm16, (%rdi,%rax)
	lea	-64(%rcx), %rax		/* E - 64, youngest */
	cmovb	%rdx, %rax
	vmovdqu64 %zmm16, (%rdi,%rax)
	vmovq	%xmm17, %rdx
	fill_out
1:	path_mark rza_0_255_page_end
	to_avx512
	leave_to rza_256_up, __repstos_avx512
END(__bench_rza)

/* S 64-byte aligned (or with mis = z, not) and 257..512 bytes, else
 * avx512_split: rcx, rdi kept for it; rax is scratch. */
.macro tail_entry id, mis=nz
	cmp	$256, %rcx
	leave_if be, \id\()_other, __repstos_avx512_split
	cmp	$512, %rcx
	leave_if a, \id\()_other2, __repstos_avx512_split
	test	$63, %dil
	leave_if \mis, \id\()_other3, __repstos_avx512_split
.endm
.macro tail_exits id
	leave_to \id\()_other, __repstos_avx512_split
	leave_to \id\()_other2, __repstos_avx512_split
	leave_to \id\()_other3, __repstos_avx512_split
.endm

/* avx512_split's aligned 257..512 but its last store: the first 256
 * bytes and the three blocks below P = (n - 1) & -64, which is in rax. */
.macro tail_blocks
	vpbroadcastb %eax, %zmm16
	vmovdqa64 %zmm16, (%rdi)
	vmovdqa64 %zmm16, 64(%rdi)
	vmovdqa64 %zmm16, 128(%rdi)
	vmovdqa64 %zmm16, 192(%rdi)
	lea	-1(%rcx), %rax
	and	$-64, %rax
	vmovdqa64 %zmm16, -64(%rdi,%rax)
	vmovdqa64 %zmm16, -128(%rdi,%rax)
	vmovdqa64 %zmm16, -192(%rdi,%rax)
.endm

/* Then the block at P masked to its n - P bytes; rdi = S + P, rcx = n - P
 * after it. */
.macro tail_masked
	sub	%rax, %rcx		/* n - P: 1..64 */
	add	%rax, %rdi
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
.endm

ENTRY_ALIGN(__bench_tail_plain, 64)
	tail_entry tail_plain
	path_mark tail_plain_257_512_aligned
	tail_blocks
	vmovdqu64 %zmm16, -64(%rdi,%rcx)	/* E - 64: plain */
	fill_out
	tail_exits tail_plain
END(__bench_tail_plain)

ENTRY_ALIGN(__bench_tail_yc, 64)
	tail_entry tail_yc
	path_mark tail_yc_257_512_aligned
	tail_blocks
	tail_masked
	lea	-32(%rcx), %rax
	cmp	$32, %rcx
	cmovb	.Lm32(%rip), %rax	/* E - 32, or P - 32 where it crosses P */
	vmovdqu64 %ymm16, (%rdi,%rax)
	fill_out
	tail_exits tail_yc
END(__bench_tail_yc)

ENTRY_ALIGN(__bench_tail_m, 64)
	tail_entry tail_m
	path_mark tail_m_257_512_aligned
	tail_blocks
	tail_masked
	fill_out
	tail_exits tail_m
END(__bench_tail_m)

ENTRY_ALIGN(__bench_tail_y, 64)
	tail_entry tail_y
	path_mark tail_y_257_512_aligned
	tail_blocks
	tail_masked
	vmovdqu64 %ymm16, -32(%rdi,%rcx)	/* E - 32: plain, the youngest */
	fill_out
	tail_exits tail_y
END(__bench_tail_y)

/* S 64-byte aligned, 513 bytes up to rep stosb: avx512_split's loop and
 * last 256 bytes as they were before the plain 32-byte store over the
 * last bytes (tail_yc's) joined them: the control for that. */
ENTRY_ALIGN(__bench_big_m, 64)
	cmp	$512, %rcx
	leave_if be, big_m_other, __repstos_avx512_split
	test	$63, %dil
	leave_if nz, big_m_other2, __repstos_avx512_split
	cmp	__repstos_wide_rep_min(%rip), %rcx
	leave_if ae, big_m_other3, __repstos_avx512_split
	path_mark big_m_513_up_aligned
	vpbroadcastb %eax, %zmm16
	lea	(%rdi,%rcx), %rax
	lea	-256(%rax), %rcx
1:	vmovdqa64 %zmm16, (%rdi)
	vmovdqa64 %zmm16, 64(%rdi)
	vmovdqa64 %zmm16, 128(%rdi)
	vmovdqa64 %zmm16, 192(%rdi)
	add	$256, %rdi
	cmp	%rcx, %rdi
	jb	1b
	vmovdqu64 %zmm16, (%rcx)
	vmovdqu64 %zmm16, 64(%rcx)
	vmovdqu64 %zmm16, 128(%rcx)
	vmovdqu64 %zmm16, 192(%rcx)
	mov	%rax, %rdi
	xor	%ecx, %ecx
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	ret
	leave_to big_m_other, __repstos_avx512_split
	leave_to big_m_other2, __repstos_avx512_split
	leave_to big_m_other3, __repstos_avx512_split
END(__bench_big_m)

/* "avx512"'s stores for 256..512 bytes (rdi S, rcx n): the first 256
 * and the last 64, and from 321 bytes the three 64-byte blocks below. */
.macro a512_stores id
	vpbroadcastb %eax, %zmm16
	vmovdqu64 %zmm16, (%rdi)
	vmovdqu64 %zmm16, 64(%rdi)
	vmovdqu64 %zmm16, 128(%rdi)
	vmovdqu64 %zmm16, 192(%rdi)
	vmovdqu64 %zmm16, -64(%rdi,%rcx)
	cmp	$320, %rcx
	jbe	1f
	path_mark \id\()_321_512
	vmovdqu64 %zmm16, -256(%rdi,%rcx)
	vmovdqu64 %zmm16, -192(%rdi,%rcx)
	vmovdqu64 %zmm16, -128(%rdi,%rcx)
1:
.endm

/* "avx512"'s 256..512 as they were before end_in_line's store joined
 * them: the control for it; elsewhere "avx512" itself. */
ENTRY_ALIGN(__bench_a512_m, 64)
	cmp	$256, %rcx
	leave_if b, a512_m_other, __repstos_avx512
	cmp	$512, %rcx
	leave_if a, a512_m_other2, __repstos_avx512
	path_mark a512_m_256_512
	a512_stores a512_m
	add	%rcx, %rdi
	xor	%ecx, %ecx
	ret
	leave_to a512_m_other, __repstos_avx512
	leave_to a512_m_other2, __repstos_avx512
END(__bench_a512_m)

/* Not 64-byte aligned and 257..512 bytes: "avx512"'s 64-byte stores,
 * which cross lines there (mis64_m), then end_in_line's 32-byte store in
 * E's line (mis64); else avx512_split.  avx512_split takes 32-byte
 * stores there, because on Zen 4 a 64-byte store that crosses a line
 * cost twice. */
.macro mis64_body id
	tail_entry \id, z
	path_mark \id\()_257_512_mis
	a512_stores \id
.endm

ENTRY_ALIGN(__bench_mis64, 64)
	mis64_body mis64
	add	%rcx, %rdi
	end_in_line mis64_end
	tail_exits mis64
END(__bench_mis64)

ENTRY_ALIGN(__bench_mis64_y, 64)
	mis64_body mis64_y
	vmovdqu64 %ymm16, -32(%rdi,%rcx)	/* youngest over E - 1 */
	fill_out
	tail_exits mis64_y
END(__bench_mis64_y)

ENTRY_ALIGN(__bench_mis64_m, 64)
	mis64_body mis64_m
	fill_out
	tail_exits mis64_m
END(__bench_mis64_m)

/* Not 64-byte aligned and 257..512 bytes: avx512_split's own 32-byte
 * stores with no loop to 512 (set_big's top 16w); else avx512_split. */
ENTRY_ALIGN(__bench_mis16, 64)
	cmp	$256, %rcx
	leave_if be, mis16_other, __repstos_avx512_split
	test	$63, %dil
	leave_if z, mis16_other2, __repstos_avx512_split
	path_mark mis16_257_up
	vpbroadcastb %eax, %zmm16
	.set	.Lset_evex, 1
	set_big mis16, 32, 512, __repstos_wide_rep_min
	.set	.Lset_evex, 0
	leave_to mis16_other, __repstos_avx512_split
	leave_to mis16_other2, __repstos_avx512_split
END(__bench_mis16)

ENTRY_ALIGN(__bench_tail_branch, 64)
	tail_entry tail_branch
	tail_blocks
	test	$63, %cl
	jnz	1f
	path_mark tail_branch_multiple
	vmovdqu64 %zmm16, -64(%rdi,%rcx)	/* E - 64, aligned */
	fill_out
1:	path_mark tail_branch_masked
	sub	%rax, %rcx		/* n - P: 1..63 */
	add	%rax, %rdi
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
	fill_out
	tail_exits tail_branch
END(__bench_tail_branch)

/* Where n >= w, a w-byte store at E - w, else at rsp - 64 (rdi holds
 * S - rsp; rax is scratch): a plain store of the last bytes, younger
 * than the masked one, so that a load of them may be forwarded. */
.macro end_st w
	cmp	$\w, %rcx
	lea	-\w(%rdi,%rcx), %rax
	cmovb	.Lm64(%rip), %rax
	st\w	(%rsp,%rax)
.endm
/* Over avx512_split's masked store below 64 bytes: the last byte; the
 * last byte, then the last 8; the last 1, 8, 16 and 32 (the widest
 * youngest, so that a load of the last w bytes meets one store that
 * holds them all). */
.macro over_b
	end_st	1
.endm
.macro over_8b
	end_st	1
	end_st	8
.endm
.macro over_e
	end_st	1
	end_st	8
	end_st	16
	end_st	32
.endm

/* The same where n >= 1 (rdi S, rcx n, al the fill), ending the call:
 * the last byte from al; the first and the last; those, then the first
 * and last 8 where n >= 8 (else below rsp). */
.macro bytes_c
	mov	%al, -1(%rdi,%rcx)
	add	%rcx, %rdi
	xor	%ecx, %ecx
	ret
.endm
.macro bytes_f
	mov	%al, (%rdi)
	bytes_c
.endm
.macro bytes_w
	mov	%al, (%rdi)
	mov	%al, -1(%rdi,%rcx)
	sub	%rsp, %rdi
	pair	8
	ladder_out
.endm

/* avx512_split's way to its 64..256 (rdi S, rcx n, rax the fill): the
 * fill broadcast, above 256 bytes avx512_split itself, below 64 its one
 * masked store (or its page-end path); then the over stores, or where
 * n >= 1 the bytes ones (n = 0 leaves before them, so that they need
 * no cmov: a branch seldom taken, 0-2.5% of the distributions' calls). */
.macro split_head name, over, bytes
	vpbroadcastb %eax, %zmm16
	cmp	$256, %rcx
	leave_if a, \name\()_257_up, __repstos_avx512_split
	cmp	$64, %rcx
	jae	.L\name\()_64_256
	near_page_end 64, .L\name\()_page_end
	path_mark \name\()_0_63
	bzhi	%rcx, .Lones(%rip), %rax
	kmovq	%rax, %k1
	vmovdqu8 %zmm16, (%rdi){%k1}
.ifnb \bytes
	jrcxz	.L\name\()_0
	path_mark \name\()_1_63
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	\bytes
.L\name\()_0:
	path_mark \name\()_0
.endif
.ifnb \over
	sub	%rsp, %rdi
	\over
	add	%rsp, %rdi
.endif
	fill_out
.L\name\()_page_end:
	path_mark \name\()_0_63_page_end
	to_split
.endm

/* avx512_split's own 64..256 after split_head, and above 256 bytes
 * avx512_split itself. */
.macro split_tail name
.L\name\()_64_256:
	path_mark \name\()_64_256
	vmovd	%xmm16, %eax
	movzbl	%al, %eax
	.set	.Lset_evex, 1
	set_class \name, 32, 64, 128, 2, 2, 256
	set_class \name, 32, 129, 256, 4, 4, last
	.set	.Lset_evex, 0
	leave_to \name\()_257_up, __repstos_avx512_split
.endm

ENTRY_ALIGN(__bench_split_c, 64)
	split_head split_c
	split_tail split_c
END(__bench_split_c)

ENTRY_ALIGN(__bench_s0_b, 64)
	split_head s0_b, over_b
	split_tail s0_b
END(__bench_s0_b)

ENTRY_ALIGN(__bench_s0_8b, 64)
	split_head s0_8b, over_8b
	split_tail s0_8b
END(__bench_s0_8b)

ENTRY_ALIGN(__bench_s0_e, 64)
	split_head s0_e, over_e
	split_tail s0_e
END(__bench_s0_e)

ENTRY_ALIGN(__bench_s0_c, 64)
	split_head s0_c, , bytes_c
	split_tail s0_c
END(__bench_s0_c)

ENTRY_ALIGN(__bench_s0_f, 64)
	split_head s0_f, , bytes_f
	split_tail s0_f
END(__bench_s0_f)

ENTRY_ALIGN(__bench_s0_w, 64)
	split_head s0_w, , bytes_w
	split_tail s0_w
END(__bench_s0_w)

/* A store of vr at S + min(n - d, cap), and at S + max(n - d, 0): no
 * branch (rdi S, rcx n, rax scratch; .L<cap> holds cap). */
.macro st_min vr, d, cap
	lea	-\d(%rcx), %rax
	cmp	$\cap, %rax
	cmova	.L\cap(%rip), %rax
	vmovdqu64 \vr, (%rdi,%rax)
.endm
.macro st_max vr, d
	lea	-\d(%rcx), %rax
	cmp	$\d, %rcx
	cmovb	.L0(%rip), %rax
	vmovdqu64 \vr, (%rdi,%rax)
.endm

ENTRY_ALIGN(__bench_split_wy, 64)
	split_head split_wy
.Lsplit_wy_64_256:
	path_mark split_wy_64_256
	vmovdqu64 %zmm16, (%rdi)
	st_min	%zmm16, 64, 64
	st_max	%zmm16, 128
	vmovdqu64 %zmm16, -64(%rdi,%rcx)
	vmovdqu64 %ymm16, -32(%rdi,%rcx)	/* youngest: a load can forward */
	fill_out
	leave_to split_wy_257_up, __repstos_avx512_split
END(__bench_split_wy)

/* Eight stores cover [S, E) for every n of 64..256: those from S cover
 * [0, min(n, 128)), those from E - 32 down [max(n - 128, 0), n).  Only
 * four need a clamp; the one at E - 32 is the youngest, holding the
 * last byte. */
ENTRY_ALIGN(__bench_split_e8, 64)
	split_head split_e8
.Lsplit_e8_64_256:
	path_mark split_e8_64_256
	vmovdqu64 %ymm16, (%rdi)
	vmovdqu64 %ymm16, 32(%rdi)
	st_min	%ymm16, 32, 64
	st_min	%ymm16, 32, 96
	st_max	%ymm16, 128
	st_max	%ymm16, 96
	vmovdqu64 %ymm16, -64(%rdi,%rcx)
	vmovdqu64 %ymm16, -32(%rdi,%rcx)
	fill_out
	leave_to split_e8_257_up, __repstos_avx512_split
END(__bench_split_e8)

	OBJECT_NOTES
