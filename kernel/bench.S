/* SPDX-License-Identifier: MIT */
/*
 * bench.S - what kernel/bench.sh links beside Linux's own memset_64.o:
 * the return thunk RETHUNK kernels jump to (without the retbleed
 * mitigations the kernel patches into it: `ret; int3`, as a machine
 * that needs none runs it), and the path a plain `call memset` takes in
 * a 6.1 kernel on an ERMS CPU once patched: __memset's first instruction
 * is `jmp memset_erms` (after ENDBR under IBT), __memcpy's `jmp
 * memcpy_erms`.
 */
	.text
	.globl __x86_return_thunk
	.type __x86_return_thunk, @function
__x86_return_thunk:
	ret
	int3
	.size __x86_return_thunk, .-__x86_return_thunk

	.p2align 4
	.globl linux_memset_via_jmp
	.type linux_memset_via_jmp, @function
linux_memset_via_jmp:
	endbr64
	jmp linux_memset_erms
	.size linux_memset_via_jmp, .-linux_memset_via_jmp

	.p2align 4
	.globl linux_memcpy_via_jmp
	.type linux_memcpy_via_jmp, @function
linux_memcpy_via_jmp:
	endbr64
	jmp linux_memcpy_erms
	.size linux_memcpy_via_jmp, .-linux_memcpy_via_jmp

	.section .note.GNU-stack,"",@progbits
