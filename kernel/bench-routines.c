// SPDX-License-Identifier: MIT
/*
 * bench-routines.c - compiled by kernel/bench.sh with the plugin in
 * kernel mode: defining start_kernel makes this the unit the routines
 * are emitted in (plugin/kernel.c), the same bytes vmlinux gets.
 */
void start_kernel(void);

void start_kernel(void)
{
}
