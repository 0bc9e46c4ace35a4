/* SPDX-License-Identifier: MIT */
/*
 * profrun.h - the runtime's side of size profiles (runtime/profrun.c),
 * for the start-up patcher: recording one under REPSTOS_PROFILE, and
 * reading the one installed for this module.  Per module, like the rest
 * of the runtime; nothing here runs unless a profile is asked for or
 * installed.
 */
#ifndef REPSTOS_PROFRUN_H
#define REPSTOS_PROFRUN_H

#include "profile.h"

/* The profiling routine (variants.S): what every site calls while
 * recording. */
void __repstos_profile(void) __attribute__((visibility("hidden")));

/*
 * Recording, in three steps at start-up: begin (room for nsites sites;
 * path is where to append at exit, made absolute now in case the
 * program changes directory), one call per site to profile, in table
 * order, with the routine it should go on to run, and ready (the
 * routine for calls from anywhere else; the module's hash and name for
 * the section).  From ready on, the profiling routine may be called;
 * the section is written when the module is unloaded or the process
 * exits normally.  begin returns 0, or -1 with errno set (nothing
 * recorded then).
 */
int repstos_prof_begin(const char *path, unsigned nsites);
void repstos_prof_site(unsigned index, uintptr_t site, void *routine);
void repstos_prof_ready(void *fallback, uint64_t hash, const char *name);

/*
 * The profile installed for this module, if any: the file
 * REPSTOS_PROFILE_USE names, else PROFILES/HASH where PROFILES is the
 * directory "profiles" beside the tuning file, read only if it is a
 * regular file owned by root or the real user.  Returns 1 and *hist
 * (one row per site, kept for the life of the process), 0 when there is
 * none, -1 when there is one that cannot be used (*why says why).
 * *path gets the file's name either way.
 */
int repstos_prof_load(const struct repstos_site *begin,
		      const struct repstos_site *end,
		      unsigned long long (**hist)[REPSTOS_NCLASS],
		      const char **path, const char **why);

#endif
