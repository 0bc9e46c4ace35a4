// SPDX-License-Identifier: MIT
/*
 * seccomp_run.c - run a program under a seccomp filter that watches how
 * it asks for memory protections.  The start-up patcher's write window
 * runs raw system calls from pages of its own (a libc mprotect() may sit
 * on the very page being written), so a link-time --wrap=mprotect would
 * miss them; the kernel's filter sees every request, whoever makes it.
 *
 *   seccomp_run MODE program [args...]
 *
 *   nowx     kill the process on any mprotect/pkey_mprotect/mmap asking
 *            for PROT_WRITE and PROT_EXEC at once
 *   refuse   nowx, and pwrite64 fails EPERM (a hardened /proc/self/mem),
 *            and mprotect with PROT_WRITE fails EACCES
 *   execmod  nowx, and pwrite64 fails EPERM, and mprotect with PROT_EXEC
 *            fails EACCES (SELinux denying execmod)
 *   nounshare nowx, and unshare fails EPERM (as under Docker's default
 *            filter without CAP_SYS_ADMIN: "cannot tell if alone")
 *   wxtest   nowx, then try mprotect(RWX) itself: must die (proves the
 *            filter bites)
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARG(n) offsetof(struct seccomp_data, args[n])
#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JSET(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

enum { NOWX, REFUSE, EXECMOD, NOUNSHARE, WXTEST };

static int install(int mode)
{
	unsigned pwrite_action = mode == NOWX || mode == NOUNSHARE ?
				 SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;
	unsigned unshare_action = mode == NOUNSHARE ?
				  SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW;
	unsigned deny_bits = mode == REFUSE ? PROT_WRITE :
			     mode == EXECMOD ? PROT_EXEC : 0;
	/* prot is args[2] for mprotect, pkey_mprotect and mmap. */
	struct sock_filter f[] = {
		LD(offsetof(struct seccomp_data, arch)),
		JEQ(AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD(offsetof(struct seccomp_data, nr)),
		JEQ(__NR_pwrite64, 0, 1),
		RET(pwrite_action),
		JEQ(__NR_unshare, 0, 1),
		RET(unshare_action),
		JEQ(__NR_mprotect, 3, 0),
		JEQ(__NR_pkey_mprotect, 2, 0),
		JEQ(__NR_mmap, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		LD(ARG(2)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
		JEQ(PROT_WRITE | PROT_EXEC, 0, 1),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD(offsetof(struct seccomp_data, nr)),
		JEQ(__NR_mprotect, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		LD(ARG(2)),
		JSET(deny_bits, 0, 1),
		RET(SECCOMP_RET_ERRNO | EACCES),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "nowx", "refuse", "execmod",
					     "nounshare", "wxtest" };
	int mode;

	if (argc < 2)
		goto usage;
	for (mode = 0; mode <= WXTEST; mode++)
		if (!strcmp(argv[1], modes[mode]))
			break;
	if (mode > WXTEST || (mode != WXTEST && argc < 3))
		goto usage;
	if (install(mode == WXTEST ? NOWX : mode))
		return 2;
	if (mode == WXTEST) {
		static char page[8192];
		void *p = (void *)(((unsigned long)page + 4095) & ~4095ul);

		mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
		printf("still alive after asking for W+X: the filter does not work\n");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
usage:
	fprintf(stderr, "usage: seccomp_run nowx|refuse|execmod|nounshare|wxtest PROGRAM [ARGS]\n");
	return 2;
}
