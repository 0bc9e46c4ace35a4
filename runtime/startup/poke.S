/* SPDX-License-Identifier: MIT */
/*
 * poke.S - the window of the start-up patcher's mprotect route
 * (write_text), which write.c pulls in.  It belongs to the start-up,
 * not to each module: with the shared runtime there is one per process,
 * whichever module's text it writes.
 */
#include "routines/asm.h"

	.section .rodata.repstos, "a", @progbits
	.balign 8
.Lones:
	.quad	-1


/*
 * long __repstos_poke(void *page, size_t plen, void *dst, const void *src,
 *                     size_t n)
 *
 * The mprotect route of the start-up patcher: make [page, page+plen)
 * read-write (never executable while writable), copy n bytes, make it
 * read-execute again.  While the range is not executable nothing on it
 * may run, and the range may hold any code of this module, even libc's
 * mprotect in a static binary or the PLT; so the whole window runs here,
 * with raw system calls, and the caller never opens a window on a page
 * that holds any byte of it, from __repstos_poke to __repstos_poke_end
 * (write.c, holds_poke: the sites there are left calling the stub).
 * In librepstos.a the start-up's code is one section that ends with
 * this routine (runtime.mk), so its pages hold the start-up's own code
 * and the runtime's, which has no sites, rather than the module's.
 *
 * Nor may anything else run during the window: not a signal handler,
 * not another thread (a library constructor that starts a thread
 * calling into the executable made most runs die).  So every signal is
 * blocked first; the caller opens the window only in a process it
 * found alone (write.c, crowded), where with signals blocked no other
 * task can appear before the window closes: only this thread could
 * start one.  No system call to ask the kernel (unshare(CLONE_VM) would
 * tell, but a seccomp filter may kill a process for it).  Returns
 *   0        done
 *   -errno   nothing changed: the first mprotect failed (or blocking
 *            signals did)
 *   errno    the second failed: the range is left read-write, fatal for
 *            code on it, so the caller probes a page first that nothing
 *            executes (write.c, probe_page)
 */
	.text
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
	.globl	__repstos_poke_end
	.hidden	__repstos_poke_end
__repstos_poke_end:

	OBJECT_NOTES
