// SPDX-License-Identifier: MIT
/*
 * api.c - the API (repstos.h) as a module sees it: this module's sites
 * and statistics, the process's CPU and choices.  Linked only into a
 * module that calls it, so that the others carry none of it.
 */
#include "module.h"


/* This module's. */
const struct repstos_stats *repstos_stats(void)
{
	return &__repstos_module_stats;
}

const struct repstos_site *repstos_sites_begin(void)
{
	return REPSTOS_SITES_START;
}

const struct repstos_site *repstos_sites_end(void)
{
	return REPSTOS_SITES_STOP;
}

enum repstos_variant repstos_site_variant(const struct repstos_site *e)
{
	return __repstos_module_site_variant(__repstos_module_handle, e);
}

/* ... and the process's. */
const struct repstos_cpu *repstos_cpu(void)
{
	return __repstos_process_cpu();
}

enum repstos_variant repstos_variant(void)
{
	return __repstos_process_variant();
}

enum repstos_copy_variant repstos_copy_variant(void)
{
	return __repstos_process_copy_variant();
}
