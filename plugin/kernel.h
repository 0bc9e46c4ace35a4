/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - the plugin's kernel mode (-fplugin-arg-repstos-kernel), as
 * repstos.c calls into it.  kernel.c says what a kernel site is.
 */
#ifndef REPSTOS_PLUGIN_KERNEL_H
#define REPSTOS_PLUGIN_KERNEL_H

extern bool kernel_mode;

/* Parse one -fplugin-arg-repstos-KEY[=VALUE]; false if KEY is not a
 * kernel-mode option.  Clears *ok on a bad value. */
bool kernel_option(const char *key, const char *value, bool *ok);

/* Register kernel mode's callbacks (alt_instr check, routines). */
void kernel_register(const char *plugin_name);

/* Why no site may replace call here, or NULL. */
const char *kernel_conflict(gcall *call, tree objsz);

/* The site asm for one call: rdi = dst, rcx = len and rax = fill, or
 * rsi = src for copies; *end is rdi after it (dst + len). */
gasm *kernel_build_site(enum repstos_op op, enum repstos_size_kind kind,
			unsigned long long min, unsigned long long max,
			tree dst, tree src, tree len, tree fill, tree *end);

#endif
