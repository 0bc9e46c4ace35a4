// SPDX-License-Identifier: MIT
/*
 * startup.c - the start-up's files as one translation unit, for
 * librepstos.a's startup.o (runtime.mk): compiled for size, a function
 * called from one file is inlined into another as it was when they were
 * one file, and what is inlined everywhere leaves with --gc-sections
 * (split, the start-up was 450 bytes larger a module).  The shared
 * runtime compiles the files one by one.
 */
#define _GNU_SOURCE
#define REPSTOS_STARTUP_UNITY
#include "config.c"
#include "write.c"
#include "decide.c"
#include "patch.c"
#include "attach.c"
