/* SPDX-License-Identifier: MIT */
/*
 * module.h - the module side: what every module with sites defines for
 * the start-up to find (its table, record, statistics and handle).
 *
 * Every module with sites has a module side (module.c: the constructor;
 * dispatch.S: a stub and a dispatch record per family of sites it has;
 * the routines; record.S: the record and this description) and needs a
 * start-up (runtime/startup/: CPU detection, the policy, the tuning
 * file, the text writer, and size profiles where they are linked).  With
 * librepstos.a both are in the module; with the shared runtime
 * (librepstos.so.0) each module carries only its side and one start-up
 * serves the whole process, so CPUID and the tuning file are read once
 * however many modules it maps.
 *
 * The description and the start-up's names it calls are the module ABI
 * (abi.h), which the start-up includes too; this header is the module
 * side's own.
 */
#ifndef REPSTOS_MODULE_H
#define REPSTOS_MODULE_H

#include "abi.h"

#ifndef __ASSEMBLER__
#include "policy/profile.h"

/* The module side's own symbols (module.c, api.c, record.S).  The
 * table's bounds are defined in every module module.c is linked into:
 * the stubs' objects define the section, empty, and keep the bounds out
 * of the dynamic symbol table (dispatch.S). */
extern const struct repstos_site REPSTOS_SITES_START[] REPSTOS_HIDDEN;
extern const struct repstos_site REPSTOS_SITES_STOP[] REPSTOS_HIDDEN;
extern const volatile struct repstos_module_info REPSTOS_MODULE_SYMBOL REPSTOS_HIDDEN;
extern const struct repstos_module_desc __repstos_module_desc REPSTOS_HIDDEN;
extern struct repstos_stats __repstos_module_stats REPSTOS_HIDDEN;
extern void *__repstos_module_handle REPSTOS_HIDDEN;	/* the start-up's */

#endif /* !__ASSEMBLER__ */
#endif
