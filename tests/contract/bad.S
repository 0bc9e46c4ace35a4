/* SPDX-License-Identifier: MIT */
/*
 * A producer that writes its entry by hand, right (BAD=0) or with one
 * thing wrong (BAD=1..10): the contract test's own controls, which show
 * that tests/contract/check notices each kind of drift.
 */
#include "repstos_site.h"

	.text
	.globl	f
f:
#if BAD != 6		/* the stub not hidden */
	.hidden	__repstos_stub
#endif
#if BAD == 5		/* calls memset, not the stub */
.Ls:	call	memset
#else
.Ls:	call	__repstos_stub
#endif
	ret

#if BAD == 1		/* aligned to 8 */
	.pushsection repstos_sites, "ao", @progbits, .Ls
	.balign 8
#elif BAD == 2		/* not SHF_LINK_ORDER */
	.pushsection repstos_sites, "a", @progbits
	.balign 4
#else
	.pushsection repstos_sites, "ao", @progbits, .Ls
	.balign 4
#endif
	.long	.Ls - .
#if BAD == 3		/* a version from before the vector-state rule */
	.byte	REPSTOS_SITE_VERSION_NARROW, 5, 0, 0
#elif BAD == 7		/* a copy op in a set entry */
	.byte	REPSTOS_SITE_VERSION, 5, 3, 0
#elif BAD == 8		/* a copy entry whose site calls the set stub */
	.byte	REPSTOS_COPY_VERSION, 5, 3, 0
#elif BAD == 9		/* a reserved use bit */
	.byte	REPSTOS_SITE_VERSION, 5, 0, 0x20
#elif BAD == 10		/* a use in a version that has none */
	.byte	REPSTOS_SITE_VERSION_NO_USE, 5, 0, REPSTOS_USE_READ
#else
	.byte	REPSTOS_SITE_VERSION, 5, 0, 0
#endif
	.long	0, 0xffffffff
#if BAD == 4		/* a 17-byte entry */
	.byte	0
#endif
	.popsection
	.section .note.GNU-stack, "", @progbits
