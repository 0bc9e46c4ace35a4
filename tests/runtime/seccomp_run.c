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
 *
 *   seccomp_run learn FILE program [args...]
 *   seccomp_run allow FILE program [args...]
 *
 *   learn    run the program traced (ptrace), no filter; write to FILE
 *            the number of each system call it made (it, its threads
 *            and its children), one a line, and exit as it did (128 +
 *            the signal that killed it)
 *   allow    kill the process on any system call whose number FILE does
 *            not list: a default-kill allow-list, as sandboxed services
 *            have (the numbers learn wrote, and any added)
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
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

/* Kill the process on any system call whose number is not in FILE:
 * the arch, then the number against each listed one, a match jumping
 * over the rest to the ALLOW at the end. */
static int allow(const char *file)
{
	static struct sock_filter f[256 + 6];
	struct sock_fprog prog = { 0, f };
	unsigned n = 0, nr, i;
	FILE *in = fopen(file, "r");

	if (!in) {
		perror(file);
		return -1;
	}
	while (n <= 255 && fscanf(in, "%u", &nr) == 1)
		f[4 + n++] = (struct sock_filter)JEQ(nr, 0, 0);
	fclose(in);
	if (n > 255) {		/* a jump is a byte */
		fprintf(stderr, "seccomp_run: %s: too many numbers\n", file);
		return -1;
	}
	for (i = 0; i < n; i++)
		f[4 + i].jt = (unsigned char)(n - i);
	f[0] = (struct sock_filter)LD(offsetof(struct seccomp_data, arch));
	f[1] = (struct sock_filter)JEQ(AUDIT_ARCH_X86_64, 1, 0);
	f[2] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
	f[3] = (struct sock_filter)LD(offsetof(struct seccomp_data, nr));
	f[4 + n] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
	f[5 + n] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)(n + 6);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return -1;
	}
	return 0;
}

#define MAX_NR 1024		/* x86-64's numbers are below 512 */

/* Until the child and every task it starts are gone: each system call
 * any enters (or leaves) is marked in seen; signals pass on, but not
 * the traps of exec and of system calls, nor a new task's first stop.
 * The child's exit status, or 128 + the signal that killed it. */
static int trace(pid_t pid, unsigned char *seen)
{
	struct user_regs_struct r;
	int status, sig, rc = -1;
	pid_t t;

	ptrace(PTRACE_SYSCALL, pid, NULL, NULL);
	while ((t = waitpid(-1, &status, __WALL)) > 0) {
		if (!WIFSTOPPED(status)) {
			if (t == pid)
				rc = WIFEXITED(status) ? WEXITSTATUS(status) :
				     128 + WTERMSIG(status);
			continue;
		}
		sig = WSTOPSIG(status);
		if (sig == (SIGTRAP | 0x80) &&
		    !ptrace(PTRACE_GETREGS, t, NULL, &r) && r.orig_rax < MAX_NR)
			seen[r.orig_rax] = 1;
		if (sig == (SIGTRAP | 0x80) || sig == SIGTRAP || sig == SIGSTOP)
			sig = 0;
		ptrace(PTRACE_SYSCALL, t, NULL, (void *)(long)sig);
	}
	return rc;
}

/* The system calls of argv, run to its end, into FILE. */
static int learn(const char *file, char **argv)
{
	static unsigned char seen[MAX_NR];
	FILE *out;
	int status, rc;
	unsigned nr;
	pid_t pid = fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(125);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(
		    PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
		    PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
		    PTRACE_O_TRACEVFORK | PTRACE_O_EXITKILL))) {
		fprintf(stderr, "seccomp_run: cannot trace %s\n", argv[0]);
		return 125;
	}
	rc = trace(pid, seen);
	if (rc < 0 || !(out = fopen(file, "w"))) {
		perror(rc < 0 ? "ptrace" : file);
		return 125;
	}
	for (nr = 0; nr < MAX_NR; nr++)
		if (seen[nr])
			fprintf(out, "%u\n", nr);
	return fclose(out) ? 125 : rc;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "nowx", "refuse", "execmod",
					     "nounshare", "wxtest" };
	int mode;

	if (argc < 2)
		goto usage;
	if (argc > 3 && !strcmp(argv[1], "learn"))
		return learn(argv[2], argv + 3);
	if (argc > 3 && !strcmp(argv[1], "allow")) {
		if (allow(argv[2]))
			return 2;
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
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
	fprintf(stderr, "usage: seccomp_run nowx|refuse|execmod|nounshare|wxtest PROGRAM [ARGS]\n"
		"       seccomp_run learn|allow FILE PROGRAM [ARGS]\n");
	return 2;
}
