/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running an external program with a hard time bound. fork() + execve()
 * rather than posix_spawn(): closing every inherited descriptor and
 * resetting signals portably (RHEL 8's glibc included) needs the child. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "runcmd.h"

/* Fixed, minimal environment: nothing from the job or from slurmd. */
static char *const clean_env[] = {
	"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
	"LC_ALL=C",
	"SYSTEMD_PAGER=",
	"SYSTEMD_COLORS=0",
	NULL
};

static long long now_ms(void)
{
	return clock_us() / 1000;
}

static bool force_fd_walk;

void runcmd_force_fd_walk(bool on)
{
	force_fd_walk = on;
}

/* In the child: closes every descriptor from 3 up but keep, as listed by
 * /proc/self/fd (raw getdents64 and close: async-signal-safe; descriptors
 * above any limit are found too). Returns -1 when /proc cannot be read. */
static int close_listed_fds(int keep)
{
	char buf[4096];
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (dir < 0)
		return -1;
	/* procfs lists descriptors by number: closing ones already listed
	 * does not move the ones still to come. */
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < n) {
			struct {
				unsigned long long ino;
				long long next;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);
			int fd = 0;
			const char *p = d->name;

			for (; *p >= '0' && *p <= '9'; p++)
				fd = fd * 10 + (*p - '0');
			if (!*p && p != d->name && fd > 2 && fd != keep && fd != dir)
				close(fd);
			off += d->reclen;
		}
	}
	close(dir);
	return n < 0 ? -1 : 0;
}

/* Only async-signal-safe calls between fork() and execve(). */
static void child(char *const argv[], char *const envp[], int out_fd, int err_fd,
		  int max_fd, bool walk)
{
	struct sigaction sa;
	sigset_t none;
	int fd, sig;

	setpgid(0, 0); /* so a timeout kills everything it started */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Lift our pipe ends above 2 first: the host may run with 0-2 closed,
	 * and the dup2() calls below must not clobber them. */
	out_fd = fcntl(out_fd, F_DUPFD, 3);
	err_fd = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
	if (out_fd < 0 || err_fd < 0)
		goto fail;
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || (fd != 0 && dup2(fd, 0) < 0) || dup2(out_fd, 1) < 0 ||
	    dup2(out_fd, 2) < 0)
		goto fail;
	/* Everything else goes, except the exec-error pipe (close-on-exec):
	 * close_range(2), else the descriptors /proc lists (any number), else
	 * up to the limit (no /proc: a chroot). */
#ifdef SYS_close_range
	if (!walk &&
	    (err_fd == 3 || syscall(SYS_close_range, 3u, (unsigned)err_fd - 1, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)err_fd + 1, ~0u, 0u) == 0)
		max_fd = 0;
#endif
	if (max_fd && close_listed_fds(err_fd) == 0)
		max_fd = 0;
	for (fd = 3; fd <= max_fd; fd++)
		if (fd != err_fd)
			close(fd);
	execve(argv[0], argv, envp);
fail:
	fd = errno;
	if (err_fd >= 0 && write(err_fd, &fd, sizeof(fd)) < 0) {
		/* nothing more to do */
	}
	_exit(127);
}

static int highest_fd(void)
{
	struct rlimit rl;

	/* Bounded so a huge RLIMIT_NOFILE cannot make the child spin. */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > 65536)
		return 65535;
	return (int)rl.rlim_cur - 1;
}

static void capture(struct runcmd_result *res, const char *buf, size_t n)
{
	size_t room = RUNCMD_OUTPUT_MAX - res->output_len;

	if (n > room) {
		res->truncated = true;
		n = room;
	}
	memcpy(res->output + res->output_len, buf, n);
	res->output_len += n;
	res->output[res->output_len] = '\0';
}

/* A SIGCHLD disposition of SIG_IGN or SA_NOCLDWAIT (inherited across
 * execve from whoever started us) makes the kernel reap our child before
 * we can: waitid() then fails with ECHILD and the exit status is lost.
 * Put the default back for the call, and only then. */
static bool sigchld_default(struct sigaction *saved)
{
	struct sigaction dfl;

	if (sigaction(SIGCHLD, NULL, saved) < 0 ||
	    (saved->sa_handler != SIG_IGN && !(saved->sa_flags & SA_NOCLDWAIT)))
		return false;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	return sigaction(SIGCHLD, &dfl, NULL) == 0;
}

int runcmd(char *const argv[], unsigned int timeout_ms, struct runcmd_result *res)
{
	return runcmd_env(argv, NULL, timeout_ms, res);
}

int runcmd_env(char *const argv[], char *const extra_env[], unsigned int timeout_ms,
	       struct runcmd_result *res)
{
	char *envp[sizeof(clean_env) / sizeof(clean_env[0]) + RUNCMD_EXTRA_ENV_MAX];
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	long long start = now_ms(), deadline = start + timeout_ms;
	int max_fd = highest_fd(), status = 0, i;
	bool out_open = true, restore;
	struct sigaction saved;
	char buf[4096];
	pid_t pid;
	ssize_t n;

	memset(res, 0, sizeof(*res));
	/* Built before fork(): the child only calls async-signal-safe code. */
	for (n = 0; clean_env[n]; n++)
		envp[n] = clean_env[n];
	for (i = 0; extra_env && extra_env[i] && i < RUNCMD_EXTRA_ENV_MAX - 1; i++)
		envp[n++] = extra_env[i];
	envp[n] = NULL;
	restore = sigchld_default(&saved);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		res->exec_errno = errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		res->exec_errno = errno;
		goto out;
	}
	if (pid == 0)
		child(argv, envp, out[1], err[1], max_fd, force_fd_walk);
	/* Also in the parent, so there is no window where the child's group
	 * does not exist yet when we want to kill it. */
	setpgid(pid, pid);
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;

	/* Collect output until the program exits or overruns; all bounded. */
	for (;;) {
		long long left = deadline - now_ms();
		siginfo_t si;

		if (left <= 0) {
			res->timed_out = true;
			break;
		}
		if (out_open) {
			struct pollfd pfd = { out[0], POLLIN, 0 };

			if (poll(&pfd, 1, (int)(left > 50 ? 50 : left)) > 0) {
				n = read(out[0], buf, sizeof(buf));
				if (n > 0)
					capture(res, buf, (size_t)n);
				else if (n == 0 || (errno != EINTR && errno != EAGAIN))
					out_open = false;
			}
		} else {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
		/* WNOWAIT leaves a zombie holding the PID, so the process group
		 * ID cannot be reused before we kill the group below. */
		memset(&si, 0, sizeof(si));
		i = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if ((i == 0 && si.si_pid == pid) ||
		    (i < 0 && errno == ECHILD)) /* reaped by someone else after all */
			break;
	}
	/* Whatever it left in its group (or all of it, on a timeout) dies. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	for (i = 0; out_open && i < 64 && (n = read(out[0], buf, sizeof(buf))) > 0; i++)
		capture(res, buf, (size_t)n);
	/* Bounded too: a process stuck in the kernel does not die at once. */
	for (deadline = now_ms() + RUNCMD_REAP_MS;;) {
		struct timespec ts = { 0, 1000000 };

		i = waitpid(pid, &status, WNOHANG);
		if (i != 0 && !(i < 0 && errno == EINTR))
			break;
		if (i == 0 && now_ms() >= deadline)
			break;
		nanosleep(&ts, NULL);
	}
	res->elapsed_ms = (unsigned long)(now_ms() - start);
	if (i == 0) {
		/* Killed but not gone: left behind (whoever reaps orphans
		 * takes it once the kernel lets it die); never a success. */
		res->unreaped = true;
		goto out;
	}
	if (i < 0) {
		/* Gone without a status: never report it as a success. */
		res->lost = true;
		goto out;
	}
	if (read(err[0], &res->exec_errno, sizeof(res->exec_errno)) !=
	    (ssize_t)sizeof(res->exec_errno))
		res->exec_errno = 0;
	if (WIFEXITED(status) && !res->timed_out) {
		res->exited = true;
		res->exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status) && !res->timed_out) {
		res->signaled = true;
		res->term_signal = WTERMSIG(status);
	}
out:
	if (restore)
		sigaction(SIGCHLD, &saved, NULL);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (err[0] >= 0)
		close(err[0]);
	if (err[1] >= 0)
		close(err[1]);
	return (res->exited && res->exit_status == 0 && !res->exec_errno) ? 0 : -1;
}

void runcmd_describe(const struct runcmd_result *res, unsigned int timeout_ms,
		     char *buf, size_t len)
{
	if (res->exec_errno)
		snprintf(buf, len, "could not be executed: %s", strerror(res->exec_errno));
	else if (res->unreaped)
		snprintf(buf, len, "%s, and was still not gone %d ms after SIGKILL (stuck in the kernel?): left behind",
			 res->timed_out ? "timed out" : "ended", RUNCMD_REAP_MS);
	else if (res->lost)
		snprintf(buf, len, "was reaped by another process; its exit status is unknown");
	else if (res->timed_out)
		snprintf(buf, len, "timed out after %u s and was killed", timeout_ms / 1000);
	else if (res->signaled)
		snprintf(buf, len, "was killed by signal %d (%s)", res->term_signal,
			 strsignal(res->term_signal));
	else if (res->exited)
		snprintf(buf, len, "exited with status %d", res->exit_status);
	else
		snprintf(buf, len, "failed");
}
