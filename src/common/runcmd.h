/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running an external program (systemctl) safely from a root prolog:
 * exec'd by absolute path with a fixed argv and environment, stdin from
 * /dev/null, no inherited descriptors, output captured, and killed (with
 * its whole process group) when it overruns its time. */
#ifndef SPANK_EBPF_RUNCMD_H
#define SPANK_EBPF_RUNCMD_H

#include <stdbool.h>
#include <stddef.h>

#define RUNCMD_OUTPUT_MAX 65536 /* captured bytes; the rest is drained */
#define RUNCMD_EXTRA_ENV_MAX 4
/* How long a killed program may take to be gone: SIGKILL ends a process
 * in microseconds, unless it is stuck in the kernel (a hung NFS mount,
 * a frozen cgroup); then the caller is not held any longer. */
#define RUNCMD_REAP_MS 1000

struct runcmd_result {
	int exit_status;     /* valid when exited */
	int term_signal;     /* valid when signaled */
	bool exited;
	bool signaled;
	bool timed_out;
	bool lost;           /* reaped elsewhere: no exit status */
	bool unreaped;       /* killed, but still not gone after RUNCMD_REAP_MS
			      * (stuck in the kernel): left behind, unwaited */
	int exec_errno;      /* non-zero when the program could not be run */
	unsigned long elapsed_ms; /* from fork() to reaping it */
	char output[RUNCMD_OUTPUT_MAX + 1];
	size_t output_len;
	bool truncated;
};

/* Runs argv[0] (an absolute path). Returns 0 when it exited with status
 * 0, -1 otherwise; *res says what happened either way. */
int runcmd(char *const argv[], unsigned int timeout_ms, struct runcmd_result *res);

/* The same, with up to RUNCMD_EXTRA_ENV_MAX - 1 "NAME=value" strings added
 * to the fixed environment (the admin command passes SLURM_CONF on to
 * squeue). */
int runcmd_env(char *const argv[], char *const extra_env[], unsigned int timeout_ms,
	       struct runcmd_result *res);

/* Tests: close the child's descriptors by walking /proc/self/fd, as on a
 * kernel or libc without close_range(2). */
void runcmd_force_fd_walk(bool on);

/* One line for a log message: "exited with status 5", "timed out after
 * 10 s and was killed", "could not be executed: No such file...". */
void runcmd_describe(const struct runcmd_result *res, unsigned int timeout_ms,
		     char *buf, size_t len);

#endif
