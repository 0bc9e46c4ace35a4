// SPDX-License-Identifier: MIT
/*
 * race_lib.c - librace.so for race.c.  Its constructor runs before the
 * executable's (the runtime's patcher among them) and, as RACE_MODE
 * says, starts a thread that keeps calling into the executable (thread)
 * or keeps forking children that do (fork).
 *
 * RACE_STEP=1 takes chance out of it: the thread then acts once each
 * time the process asks for memory to become read-execute (the end of
 * the mprotect route's window, when the page is read-write and not
 * executable), while that call waits, through a seccomp user
 * notification.  Every run meets the worst timing, even on one CPU.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int race_touch(unsigned char *p);	/* in the executable */

static pthread_t thread;
static int started, forking, listener = -1, stop_pipe[2] = { -1, -1 };
static volatile int stop;
static unsigned long calls, deaths;

/* Call into the executable, or fork a child that does; count failures. */
static void act(void)
{
	unsigned char b[32];
	int status;
	pid_t pid;

	calls++;
	if (!forking) {
		if (race_touch(b))
			deaths++;
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(race_touch(b));
	if (pid > 0 && waitpid(pid, &status, 0) == pid &&
	    (WIFSIGNALED(status) || WEXITSTATUS(status)))
		deaths++;
}

/* Free running: short sleeps with no timer slack, so that on one CPU a
 * wake-up may preempt the patcher inside its window now and then. */
static void *spin(void *arg)
{
	const struct timespec ts = { 0, 1000 };

	prctl(PR_SET_TIMERSLACK, 1ul);
	while (!stop) {
		act();
		nanosleep(&ts, NULL);
	}
	return arg;
}

/* Lock-step: act while a mprotect(PROT_READ | PROT_EXEC) waits. */
static void *step(void *arg)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	for (;;) {
		struct pollfd p[2] = { { listener, POLLIN, 0 },
				       { stop_pipe[0], POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 || p[1].revents)
			return arg;
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
			continue;
		act();
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

/* A listener for mprotect(..., PROT_READ | PROT_EXEC), or -1. */
static int listen_rx(void)
{
	struct sock_filter f[] = {
		LD(offsetof(struct seccomp_data, nr)),
		JEQ(__NR_mprotect, 0, 3),
		LD(offsetof(struct seccomp_data, args[2])),
		JEQ(PROT_READ | PROT_EXEC, 0, 1),
		RET(SECCOMP_RET_USER_NOTIF),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || pipe(stop_pipe))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

__attribute__((constructor)) static void start(void)
{
	const char *m = getenv("RACE_MODE"), *s = getenv("RACE_STEP");

	if (!m || (strcmp(m, "thread") && strcmp(m, "fork")))
		return;
	forking = !strcmp(m, "fork");
	if (s && !strcmp(s, "1")) {
		listener = listen_rx();
		if (listener < 0)
			_exit(77);	/* no seccomp user notification here */
	}
	started = !pthread_create(&thread, NULL, listener < 0 ? spin : step,
				  NULL);
}

/* Stop the thread; how many times it acted, how many of them failed
 * (a child killed or wrong bytes: a SIGSEGV in the thread kills all). */
void race_stop(unsigned long *ncalls, unsigned long *ndeaths)
{
	stop = 1;
	if (stop_pipe[1] >= 0)
		(void)!write(stop_pipe[1], "", 1);
	if (started)
		pthread_join(thread, NULL);
	*ncalls = calls;
	*ndeaths = deaths;
}
