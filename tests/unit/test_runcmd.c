/* Running a program safely: exit status, output capture, timeouts, no
 * leaked descriptors, a clean environment, stdin from /dev/null. One
 * function per case. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runcmd.h"
#include "tap.h"
#include "testutil.h"

/* Every case's result: 64 KiB of output buffer, so static, and one. */
static struct runcmd_result res;

/* The timeout of a command expected to finish: ample on a busy machine.
 * Bounds here are the mechanism's (a timeout, the reap wait), never the
 * machine's speed. */
#define OK_MS 30000

static int run_sh(const char *script, unsigned int ms, struct runcmd_result *out)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };

	return runcmd(argv, ms, out);
}

static void test_exit_status(void)
{
	char why[200];

	ok(run_sh("exit 0", OK_MS, &res) == 0 && res.exited && res.exit_status == 0,
	   "exit 0 is success");
	ok(run_sh("echo oops >&2; exit 5", OK_MS, &res) < 0 && res.exit_status == 5 &&
	   !strcmp(res.output, "oops\n"), "exit 5 is failure; stderr captured");
	runcmd_describe(&res, OK_MS, why, sizeof(why));
	ok(!strcmp(why, "exited with status 5"), "described: %s", why);
}

static void test_elapsed_measured(void)
{
	int rc = run_sh("sleep 0.2", OK_MS, &res);

	ok(rc == 0 && res.elapsed_ms >= 200 && res.elapsed_ms < OK_MS,
	   "elapsed time measured: %lu ms for sleep 0.2", res.elapsed_ms);
}

static void test_crash_reported(void)
{
	ok(run_sh("kill -SEGV $$", OK_MS, &res) < 0 && res.signaled && res.term_signal == SIGSEGV,
	   "crash reported as a signal");
}

/* A hang with a child of its own: both killed at the timeout. */
static void test_hang_timed_out(void)
{
	struct timespec t;
	char why[200];
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t);
	rc = run_sh("sleep 30 & sleep 30; echo never", 1000, &res);
	ok(rc < 0 && res.timed_out, "hang: timed out");
	ok(res.elapsed_ms >= 1000 && res.elapsed_ms < 10000,
	   "... elapsed covers the wait: %lu ms", res.elapsed_ms);
	ok(tu_seconds_since(&t) < 10.0, "... killed at the timeout, not after the 30 s sleep (%.2f s)",
	   tu_seconds_since(&t));
	runcmd_describe(&res, 1000, why, sizeof(why));
	ok(!strcmp(why, "timed out after 1 s and was killed"), "described: %s", why);
}

static void test_output_drained(void)
{
	int rc = run_sh("head -c 8388608 /dev/zero", OK_MS, &res);

	ok(rc == 0 && res.truncated && res.output_len == RUNCMD_OUTPUT_MAX,
	   "8 MiB of output: drained, %d bytes kept, success", RUNCMD_OUTPUT_MAX);
}

static void test_missing_program(void)
{
	char *argv[] = { "/nonexistent/systemctl", "start", NULL };
	char why[200];

	ok(runcmd(argv, 1000, &res) < 0 && res.exec_errno == ENOENT,
	   "missing program: ENOENT reported");
	runcmd_describe(&res, 1000, why, sizeof(why));
	ok(strstr(why, "could not be executed: No such file"), "described: %s", why);
}

/* Descriptors: open one without CLOEXEC; the child must not see it. */
static void test_descriptor_not_inherited(void)
{
	int leak = open("/dev/null", O_RDONLY);

	ok(run_sh("ls /proc/self/fd | tr '\\n' ' '", OK_MS, &res) == 0 &&
	   !strcmp(res.output, "0 1 2 3 "), "child has only 0-2 (and ls's own dir fd): %s",
	   res.output);
	close(leak);
}

/* A descriptor above anything a loop up to the open-files limit would
 * close: opened, then the soft limit lowered (as a daemon may run; the
 * same as one above 65535, which the old loop's cap missed), with
 * close_range(2) and without it (old kernels and libcs). Never inherited. */
static void test_high_descriptors(void)
{
	struct rlimit rl, saved;
	int k, high;

	if (getrlimit(RLIMIT_NOFILE, &saved) < 0 || saved.rlim_max < 2048) {
		tap_skip("RLIMIT_NOFILE's hard limit is below 2048");
		tap_skip("RLIMIT_NOFILE's hard limit is below 2048");
		return;
	}
	high = saved.rlim_max > 70001 ? 70000 : (int)saved.rlim_max - 1;
	rl = saved;
	rl.rlim_cur = (rlim_t)high + 1;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || dup2(1, high) != high) {
		ok(0, "descriptor %d opened (%s)", high, strerror(errno));
		return;
	}
	rl.rlim_cur = 1024;
	setrlimit(RLIMIT_NOFILE, &rl);
	for (k = 0; k < 2; k++) {
		runcmd_force_fd_walk(k == 1);
		ok(run_sh("ls /proc/self/fd | tr '\\n' ' '", OK_MS, &res) == 0 &&
		   !strcmp(res.output, "0 1 2 3 "), "%s: descriptor %d (limit now 1024) not inherited: %s",
		   k ? "walking /proc/self/fd (no close_range)" : "close_range", high, res.output);
	}
	runcmd_force_fd_walk(false);
	close(high);
	setrlimit(RLIMIT_NOFILE, &saved);
}

/* A child that SIGKILL cannot end at once (stuck in the kernel, as on a
 * hung NFS mount): here frozen by the cgroup v1 freezer, whose tasks die
 * only once thawed. The caller must not wait for it past the bound. */
static void test_unkillable_child(void)
{
	static const char freezer[] = "/sys/fs/cgroup/freezer";
	char cg[128], script[512], path[160], why[200];
	struct timespec t;
	pid_t helper;
	int rc;

	snprintf(cg, sizeof(cg), "%s/spank-ebpf-test-%d", freezer, (int)getpid());
	snprintf(path, sizeof(path), "%s/freezer.state", freezer);
	if (geteuid() != 0 || access(freezer, W_OK) < 0 || mkdir(cg, 0755) < 0) {
		tap_skip("a cgroup v1 freezer hierarchy writable by root (/sys/fs/cgroup/freezer)");
		return;
	}
	/* The freezer: waits for the child to join the cgroup, freezes it,
	 * thaws it 8 s later so that it can finally die. runcmd must give up
	 * at the timeout (2 s) + RUNCMD_REAP_MS, long before the thaw. */
	helper = fork();
	if (helper == 0) {
		char tasks[200], state[200], buf[64];
		int i, fd;

		snprintf(tasks, sizeof(tasks), "%s/tasks", cg);
		snprintf(state, sizeof(state), "%s/freezer.state", cg);
		for (i = 0; i < 3000; i++) {
			ssize_t n = -1;

			fd = open(tasks, O_RDONLY);
			if (fd >= 0) {
				n = read(fd, buf, sizeof(buf));
				close(fd);
			}
			if (n > 0)
				break;
			usleep(1000);
		}
		fd = open(state, O_WRONLY);
		if (fd < 0 || write(fd, "FROZEN", 6) != 6)
			_exit(1);
		close(fd);
		sleep(8);
		fd = open(state, O_WRONLY);
		if (fd < 0 || write(fd, "THAWED", 6) != 6)
			_exit(2);
		_exit(0);
	}
	snprintf(script, sizeof(script), "echo $$ > %s/tasks && exec sleep 60", cg);
	clock_gettime(CLOCK_MONOTONIC, &t);
	rc = run_sh(script, 2000, &res);
	ok(rc < 0 && res.unreaped && tu_seconds_since(&t) < 2.0 + RUNCMD_REAP_MS / 1000.0 + 3.0,
	   "a child frozen in the kernel: given up %.2f s after start (timeout 2 s + %d ms after SIGKILL), not when it dies (8 s after)",
	   tu_seconds_since(&t), RUNCMD_REAP_MS);
	runcmd_describe(&res, 2000, why, sizeof(why));
	ok(strstr(why, "still not gone") != NULL, "described: %s", why);
	/* Once thawed it dies: reap it and the helper, remove the cgroup. */
	waitpid(helper, NULL, 0);
	while (waitpid(-1, NULL, 0) > 0)
		;
	rmdir(cg);
}

static void test_stdin_dev_null(void)
{
	ok(run_sh("readlink /proc/self/fd/0", OK_MS, &res) == 0 &&
	   !strcmp(res.output, "/dev/null\n"), "stdin is /dev/null");
}

static void test_environment_minimal(void)
{
	setenv("LD_PRELOAD", "/evil.so", 1);
	setenv("SLURM_JOB_ID", "42", 1);
	ok(run_sh("env | sort | tr '\\n' ' '", OK_MS, &res) == 0 &&
	   !strstr(res.output, "LD_PRELOAD") && !strstr(res.output, "SLURM_") &&
	   strstr(res.output, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"),
	   "environment is fixed and minimal: %s", res.output);
}

/* Its own process group, so a timeout takes its children too. */
static void test_own_process_group(void)
{
	int pgid = 0, pid = -1;

	ok(run_sh("ps -o pgid= -p $$ | tr -d ' '; echo $$", OK_MS, &res) == 0, "pgid probe ran");
	sscanf(res.output, "%d %d", &pgid, &pid);
	ok(pgid == pid && pgid != getpgrp(), "child leads its own process group");
}

/* Under a SIGCHLD disposition the child inherits through execve (NAME):
 * runcmd sees the exit, promptly, and leaves the disposition as it was. */
static void check_sigchld_disposition(const char *name, void (*handler)(int), int flags)
{
	struct sigaction set, now;
	struct timespec t;

	memset(&set, 0, sizeof(set));
	set.sa_handler = handler;
	set.sa_flags = flags;
	sigaction(SIGCHLD, &set, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t);
	ok(run_sh("exit 0", OK_MS, &res) == 0 && res.exited && tu_seconds_since(&t) < 10.0,
	   "%s: /bin/sh exit 0 seen as success in %.2f s, not at the timeout", name,
	   tu_seconds_since(&t));
	ok(run_sh("exit 4", OK_MS, &res) < 0 && res.exited && res.exit_status == 4,
	   "%s: exit status 4 seen", name);
	sigaction(SIGCHLD, NULL, &now);
	ok(now.sa_handler == set.sa_handler &&
	   (now.sa_flags & SA_NOCLDWAIT) == (set.sa_flags & SA_NOCLDWAIT),
	   "%s: disposition restored", name);
	memset(&set, 0, sizeof(set));
	set.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &set, NULL);
}

/* A host that ignores SIGCHLD (SIG_IGN and SA_NOCLDWAIT survive execve):
 * the kernel would reap the child before us. */
static void test_sigchld_ignored(void)
{
	check_sigchld_disposition("SIGCHLD ignored", SIG_IGN, 0);
}

static void test_sigchld_nocldwait(void)
{
	check_sigchld_disposition("SA_NOCLDWAIT", SIG_DFL, SA_NOCLDWAIT);
}

/* After every case above: no zombie left behind. */
static void test_no_child_left(void)
{
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left to reap");
}

int main(void)
{
	test_exit_status();
	test_elapsed_measured();
	test_crash_reported();
	test_hang_timed_out();
	test_output_drained();
	test_missing_program();
	test_descriptor_not_inherited();
	test_high_descriptors();
	test_unkillable_child();
	test_stdin_dev_null();
	test_environment_minimal();
	test_own_process_group();
	test_sigchld_ignored();
	test_sigchld_nocldwait();
	test_no_child_left();
	return tap_done();
}
