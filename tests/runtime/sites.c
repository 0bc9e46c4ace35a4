// SPDX-License-Identifier: MIT
/*
 * sites.c - the executable's hand-written sites against the byte-loop
 * reference (semcheck.h), and their bytes read back against the form the
 * runtime reports (sitecheck.h).  sites.sh runs it under each
 * REPSTOS_VARIANT, patched and with REPSTOS_PATCH=0.
 *
 *   sites full|quick|forms
 *
 * Exit 0 when every byte and every site is as it should be.
 */
#include "semcheck.h"
#include "sitecheck.h"

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "full";
	unsigned long calls = 0, bad = 0;
	unsigned bad_forms;

	bad_forms = sitecheck_forms(stdout);
	if (strcmp(mode, "forms"))
		bad = semcheck_run(!strcmp(mode, "quick"), &calls);
	printf("variant %s: %lu calls checked, %lu mismatches, %u sites in the "
	       "wrong form\n", repstos_variant_name(repstos_variant()), calls,
	       bad, bad_forms);
	return bad || bad_forms ? 1 : 0;
}
