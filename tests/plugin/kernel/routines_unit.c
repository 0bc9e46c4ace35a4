// SPDX-License-Identifier: MIT
/*
 * routines_unit.c - the unit tests/plugin/kroutines.sh builds in kernel
 * mode with -fplugin-arg-repstos-kernel-paths: defining start_kernel
 * makes it the one the plugin writes the kernel routines into, as
 * vmlinux's, with their path counters and path notes.  Its one site
 * (never run) makes the plugin end the unit's notes, so that the
 * harness walks them from krt_notes, written before anything else, to
 * that end note.
 */
asm(".pushsection .note.repstos,\"a\",@note\n\t.balign 4\n"
    "\t.globl krt_notes\nkrt_notes:\n\t.popsection");

void start_kernel(void);
void krt_site(char *p, unsigned long n);

void start_kernel(void)
{
}

void krt_site(char *p, unsigned long n)
{
	__builtin_memset(p, 0, n);
}
