/* SPDX-License-Identifier: MIT */
/*
 * variants.S - the start-up's side of the routines: the module record,
 * the profiling routine, and the isolated pages the start-up patcher
 * runs and probes on.  patch.c, which the stub (dispatch.S) pulls into
 * every module with sites, pulls this in.
 */
#include "repstos_site.h"
#include "profile.h"
#include "asm.h"

	.section .rodata.repstos, "a", @progbits
	.balign 8
.Lones:
	.quad	-1


	/* The per-module record `repstos patch` fills in (repstos_site.h). */
	REPSTOS_MODULE_RECORD

	.text


/*
 * __repstos_profile: what every site of the module calls while
 * REPSTOS_PROFILE records its sizes (runtime/profrun.c).  It keeps the
 * site contract exactly: rdx, rsi, r8 and r9 are saved on the stack and
 * restored, rax too (the routine it calls gets the fill byte back in
 * it).  It pushes below the site's stack pointer as the site's own call
 * did: code with sites is built without a red zone (the plugin's
 * -mno-red-zone; REPSTOS_MEMSET steps over it), and nothing here is
 * spilled aligned.
 *   1. the site: its return address, site + 5, binary-searched among
 *      the n sorted ones of __repstos_prof; its slot beside it;
 *   2. the size class of rcx as repstos_size_class() computes it:
 *      0 for 0, else the bit length of rcx, at most the last class;
 *   3. one more call in that class: a locked add, as threads share
 *      the slots;
 *   4. the slot's routine (or the fallback for a call from no profiled
 *      site), called rather than jumped to, since no register is free
 *      to hold its address once everything is restored; call and ret
 *      stay paired, as a shadow stack wants.
 */
ENTRY(__repstos_profile)
	push	%rax
	.cfi_adjust_cfa_offset 8
	push	%rdx
	.cfi_adjust_cfa_offset 8
	push	%rsi
	.cfi_adjust_cfa_offset 8
	push	%r8
	.cfi_adjust_cfa_offset 8
	push	%r9
	.cfi_adjust_cfa_offset 8
	mov	40(%rsp), %r9			/* the return address */
	mov	__repstos_prof+REPSTOS_PROF_RET(%rip), %rsi
	mov	__repstos_prof+REPSTOS_PROF_N(%rip), %r8	/* hi */
	xor	%eax, %eax			/* lo */
.Lprof_search:
	cmp	%r8, %rax
	jae	.Lprof_miss
	lea	(%rax,%r8), %rdx
	shr	$1, %rdx			/* mid */
	cmp	%r9, (%rsi,%rdx,8)
	je	.Lprof_found
	jb	.Lprof_above
	mov	%rdx, %r8			/* ret[mid] > ours: hi = mid */
	jmp	.Lprof_search
.Lprof_above:
	lea	1(%rdx), %rax			/* lo = mid + 1 */
	jmp	.Lprof_search
.Lprof_found:
	lea	(%rdx,%rdx,2), %rdx
	shl	$6, %rdx			/* mid * REPSTOS_PROF_SLOT_SIZE */
	add	__repstos_prof+REPSTOS_PROF_SLOTS(%rip), %rdx
	xor	%eax, %eax
	test	%rcx, %rcx
	jz	.Lprof_count
	bsr	%rcx, %rax
	inc	%eax
	cmp	$REPSTOS_PROF_LAST_CLASS, %eax
	jbe	.Lprof_count
	mov	$REPSTOS_PROF_LAST_CLASS, %eax
.Lprof_count:
	lock addq $1, REPSTOS_PROF_SLOT_HIST(%rdx,%rax,8)
	mov	(%rdx), %rsi			/* the slot's routine */
	jmp	.Lprof_call
.Lprof_miss:
	mov	__repstos_prof+REPSTOS_PROF_FALLBACK(%rip), %rsi
.Lprof_call:
	mov	32(%rsp), %rax			/* the fill byte */
	call	*%rsi
	pop	%r9
	.cfi_adjust_cfa_offset -8
	pop	%r8
	.cfi_adjust_cfa_offset -8
	pop	%rsi
	.cfi_adjust_cfa_offset -8
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	pop	%rax				/* as the routine left it */
	.cfi_adjust_cfa_offset -8
	ret
END(__repstos_profile)
#if REPSTOS_PROF_SLOT_SIZE != 3 << 6
#error "__repstos_profile multiplies by 3 << 6"
#endif

/*
 * long __repstos_poke(void *page, size_t plen, void *dst, const void *src,
 *                     size_t n)
 *
 * The mprotect route of the start-up patcher: make [page, page+plen)
 * read-write (never executable while writable), copy n bytes, make it
 * read-execute again.  While the range is not executable nothing on it
 * may run, and the range may hold any code of this module, even libc's
 * mprotect in a static binary or the PLT; so the whole window runs here,
 * on pages of their own, with raw system calls.
 *
 * Nor may anything else run during the window: not a signal handler,
 * not another thread, not a vfork parent sharing the address space (a
 * library constructor that starts a thread calling into the executable
 * made most runs die).  So every signal is blocked first, then
 * unshare(CLONE_VM) must say that no other task shares the address
 * space: it fails with EINVAL if one does and does nothing if none does.
 * With signals blocked and no other task, none can appear before the
 * window closes.  Returns
 *   0        done
 *   -errno   nothing changed: another task shares the address space
 *            (-EINVAL), unshare was refused, or the first mprotect failed
 *   errno    the second failed: the range is left read-write, fatal for
 *            code on it, so the caller probes a page of its own first
 */
	.section .text.repstos_isolated, "ax", @progbits
	.balign 4096
ENTRY(__repstos_poke)
	/* 0: the old signal mask; 8: page, 16: plen, 24: dst, 32: src,
	 * 40: n (8 later holds the result across the last system call). */
	sub	$56, %rsp
	.cfi_adjust_cfa_offset 56
	mov	%rdi, 8(%rsp)
	mov	%rsi, 16(%rsp)
	mov	%rdx, 24(%rsp)
	mov	%rcx, 32(%rsp)
	mov	%r8, 40(%rsp)
	mov	$14, %eax		/* SYS_rt_sigprocmask */
	xor	%edi, %edi		/* SIG_BLOCK */
	lea	.Lones(%rip), %rsi	/* every signal */
	mov	%rsp, %rdx
	mov	$8, %r10d
	syscall
	test	%rax, %rax
	jnz	.Lpoke_out		/* mask unchanged: nothing to undo */
	mov	$272, %eax		/* SYS_unshare */
	mov	$0x100, %edi		/* CLONE_VM */
	syscall
	test	%rax, %rax
	jnz	.Lpoke_unmask
	mov	$10, %eax		/* SYS_mprotect */
	mov	8(%rsp), %rdi
	mov	16(%rsp), %rsi
	mov	$3, %edx		/* PROT_READ | PROT_WRITE */
	syscall
	test	%rax, %rax
	jnz	.Lpoke_unmask
	mov	24(%rsp), %rdi
	mov	32(%rsp), %rsi
	mov	40(%rsp), %rcx
	rep movsb
	mov	$10, %eax
	mov	8(%rsp), %rdi
	mov	16(%rsp), %rsi
	mov	$5, %edx		/* PROT_READ | PROT_EXEC */
	syscall
	neg	%rax			/* 0, or a positive errno */
.Lpoke_unmask:
	mov	%rax, 8(%rsp)
	mov	$14, %eax
	mov	$2, %edi		/* SIG_SETMASK */
	mov	%rsp, %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	syscall
	mov	8(%rsp), %rax
.Lpoke_out:
	add	$56, %rsp
	.cfi_adjust_cfa_offset -56
	ret
END(__repstos_poke)
	/* Fill the rest of the page: nothing else may share it. */
	.balign 4096, 0xcc

	/*
	 * A page that only the probe writes: if the kernel lets a written
	 * private page become executable again (SELinux execmod denies it),
	 * the probe finds out here before any page of real code is touched.
	 * It is never executed.
	 */
	.section .text.repstos_probe, "ax", @progbits
	.balign 4096
	.globl __repstos_probe_page
	.hidden __repstos_probe_page
__repstos_probe_page:
	.fill	4096, 1, 0xcc

	OBJECT_NOTES
