# tests/plugin/kernel/tree.sh - kernel trees for the kernel-mode tests,
# sourced after tests/lib.sh.  Kernel mode reads what it writes from the
# tree's headers, found through -I (plugin/ktree.c), so every kernel unit
# a test builds needs one:
#   fixture_tree DIR SIZE   writes, under DIR, the few lines of
#                           asm/alternative.h, asm/cpufeatures.h and
#                           linux/objtool.h (annotate.h, objtool_types.h)
#                           kernel mode reads, as Linux 6.1 (SIZE 12) or
#                           7.3 (SIZE 14) has them: no download needed
#   real_tree VERSION       the folder of Linux VERSION's own headers
#                           (kernel/headers.sh, which fetches Debian's
#                           linux-source-VERSION once), or nothing and
#                           the reason in $W/why
#   tree_flags DIR          the -I flags a kernel build passes for DIR

fixture_tree() {
	mkdir -p "$1/arch/x86/include/asm" "$1/include/linux"
	if [ "$2" = 12 ]; then
		cat >"$1/arch/x86/include/asm/alternative.h" <<'H'
#define ALTINSTR_FLAG_INV	(1 << 15)
#define ALT_NOT(feat)		((feat) | ALTINSTR_FLAG_INV)
struct alt_instr {
	s32 instr_offset;	/* where: comments are no part of it */
	s32 repl_offset;
	u16 cpuid;		/* ALT_NOT in its top bit */
	u8  instrlen;
	u8  replacementlen;
} __packed;
#define ALTINSTR_ENTRY(feature, num)					      \
	".pushsection .altinstructions,\"a\"\n"				      \
	".popsection\n"
H
		printf '#define ANNOTATE_NOENDBR "986:\\n\\t.pushsection .discard.noendbr\\n\\t"\n' \
			>"$1/include/linux/objtool.h"
	else
		cat >"$1/arch/x86/include/asm/alternative.h" <<'H'
#define ALT_FLAGS_SHIFT		16
#define ALT_FLAG_NOT		(1 << 0)
#define ALT_NOT(feature)	((ALT_FLAG_NOT << ALT_FLAGS_SHIFT) | (feature))
#define ALT_FLAG_DIRECT_CALL	(1 << 1)
struct alt_instr {
	s32 instr_offset;	/* where: comments are no part of it */
	s32 repl_offset;

	union {
		struct {
			u32 cpuid: 16;
			u32 flags: 16;	/* ALT_NOT is bit 0 */
		};
		u32 ft_flags;
	};

	u8  instrlen;		/* length of original instruction */
	u8  replacementlen;	/* length of new instruction */
} __packed;
#define ALTINSTR_ENTRY(ft_flags)					      \
	".pushsection .altinstructions, \"aM\", @progbits, "		      \
		      __stringify(ALT_INSTR_SIZE) "\n"			      \
	".popsection\n"
H
		printf '#include <linux/objtool_types.h>\n#define ASM_ANNOTATE_LABEL(label, type) __stringify(__ASM_ANNOTATE(.discard.annotate_insn, label, type))\n' \
			>"$1/include/linux/annotate.h"
		printf '#include <linux/annotate.h>\n' >"$1/include/linux/objtool.h"
		printf '#define ANNOTYPE_NOENDBR\t\t1\n#define ANNOTYPE_RETPOLINE_SAFE\t\t2\n' \
			>"$1/include/linux/objtool_types.h"
	fi
	{
		printf '#define X86_FEATURE_REP_GOOD\t\t( 3*32+16) /* "rep_good" */\n'
		printf '#define X86_FEATURE_ERMS\t\t( 9*32+ 9) /* "erms" */\n'
		[ "$2" = 12 ] || printf '#define X86_FEATURE_FSRS\t\t(12*32+11) /* Fast short REP STOSB */\n'
		printf '#define X86_FEATURE_FSRM\t\t(18*32+ 4) /* "fsrm" */\n'
	} >"$1/arch/x86/include/asm/cpufeatures.h"
}

real_tree() {
	"$top/kernel/headers.sh" "$1" 2>"$W/why" | tail -1
}

tree_flags() {
	echo "-I$1/arch/x86/include -I$1/include"
}
