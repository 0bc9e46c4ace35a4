/* SPDX-License-Identifier: MIT */
/*
 * profrun.h - the runtime's side of size profiles (runtime/startup/profrun.c),
 * for the start-up patcher: recording one under REPSTOS_PROFILE, and
 * reading the one installed for a module.  One recorder per module;
 * nothing here runs unless a profile is asked for or installed.
 */
#ifndef REPSTOS_PROFRUN_H
#define REPSTOS_PROFRUN_H

#include "policy/profile.h"

/* The profiling routines (record.S): what every set site, and every
 * copy site, calls while recording. */
void __repstos_profile(void) __attribute__((visibility("hidden")));
void __repstos_copy_profile(void) __attribute__((visibility("hidden")));

/*
 * Recording, in three steps at a module's start-up: begin (room for
 * nsites sites; path is where to write at exit, made absolute now in
 * case the program changes directory), one call per site to profile, in
 * table order, with the routine it should go on to run, and ready (the
 * module's slots for its profiling routines, prof; the set and the copy
 * routine for calls from anywhere else; the module's hash and name for
 * the section).  From ready on, the module's profiling routine may be
 * called.  begin returns a recorder, or NULL with errno set; ready 0, or
 * -1 with errno set, the recorder then gone and prof untouched: nothing
 * is recorded either way.
 *
 * end, from the module's destructor (at exit or when it is unloaded),
 * writes its section and frees the recorder; the section of a recorder
 * never ended is written when the runtime that recorded it goes.
 */
struct repstos_recorder;
struct repstos_recorder *repstos_prof_begin(const char *path, unsigned nsites);
void repstos_prof_site(struct repstos_recorder *rec, unsigned index,
		       uintptr_t site, void *routine);
int repstos_prof_ready(struct repstos_recorder *rec, struct repstos_prof *prof,
		       void *fallback, void *copy_fallback, uint64_t hash,
		       const char *name);
void repstos_prof_end(struct repstos_recorder *rec);

/*
 * The profile installed for this module, if any: the file
 * REPSTOS_PROFILE_USE names, else PROFILES/HASH where PROFILES is the
 * directory "profiles" beside the tuning file, read only if it is a
 * regular file owned by root or the real user.  Returns 1 and *rows
 * (kept for the life of the module), 0 when there is none, -1 when
 * there is one that cannot be used (*why says why).  *path gets a copy
 * of the file's name either way (NULL when there is none, or no
 * memory); the caller frees it and the rows.
 */
struct repstos_prof_rows {
	unsigned long long (*hist)[REPSTOS_NCLASS];	/* one row a site */
	unsigned char *pin;	/* a byte a site (REPSTOS_PIN), or NULL
				 * where no site is pinned */
};
int repstos_prof_load(const struct repstos_site *begin,
		      const struct repstos_site *end,
		      struct repstos_prof_rows *rows, char **path,
		      const char **why);

/* Between profrun.c and profwrite.c: open the profile at path where the
 * user alone decides what it is (*fd; NULL, or why not), lock it, and
 * store a section of len bytes (head_len of them its head line) into
 * it, appending, adding into the last section or merging (NULL, or why
 * not). */
const char *prof_open(const char *path, int *fd)
	__attribute__((visibility("hidden")));
int prof_lock(int fd) __attribute__((visibility("hidden")));
const char *prof_store(int fd, const char *sec, size_t len, size_t head_len,
		       uint64_t hash, unsigned nsites)
	__attribute__((visibility("hidden")));

#endif
