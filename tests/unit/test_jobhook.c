/* The job prolog/epilog rule shared by the SPANK hooks and the Prolog=/
 * Epilog= program: the job's --ebpf from its environment, its ID, and
 * what each combination does to the state. One function per case; those
 * that run the hooks start from fresh(): no state, mode=opt-in. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobhook.h"
#include "tap.h"
#include "testutil.h"
#include "unit.h"

/* Slurm sets the SPANK_-prefixed name in job hooks; the Prolog= face may
 * see it without the prefix. */
#define VAR "SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf"
#define VAR_BARE "_SLURM_SPANK_OPTION_spank_ebpf_ebpf"

static struct config cfg;
static char dir[128];

/* Neither spelling of the option variable set. */
static void unset_option_variables(void)
{
	unsetenv(VAR);
	unsetenv(VAR_BARE);
}

/* No state, mode=opt-in, no log lines. */
static void fresh(void)
{
	unlink(cfg.state);
	cfg.mode = MODE_OPT_IN;
	tu_clear_logs();
}

static void setup(void)
{
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
}

static void test_option_absent(void)
{
	unset_option_variables();
	ok(!jobhook_request(), "no option variable: not asked");
}

static void test_option_prefixed(void)
{
	unset_option_variables();
	setenv(VAR, "(null)", 1);
	ok(jobhook_request() != NULL, "SPANK_ prefixed variable, value (null): asked");
	setenv(VAR, "", 1);
	ok(jobhook_request() != NULL, "... empty value: asked (presence counts)");
	unsetenv(VAR);
}

static void test_option_unprefixed(void)
{
	unset_option_variables();
	setenv(VAR_BARE, "", 1);
	ok(jobhook_request() != NULL, "unprefixed variable: asked");
	unsetenv(VAR_BARE);
}

/* SLURM_JOB_ID: a job ID, else 0 (junk, beyond 32 bits, empty, unset). */
static void test_job_id_from_env(void)
{
	setenv("SLURM_JOB_ID", "4242", 1);
	ok(jobhook_env_job_id() == 4242, "SLURM_JOB_ID=4242");
	setenv("SLURM_JOB_ID", "42x", 1);
	ok(jobhook_env_job_id() == 0, "SLURM_JOB_ID=42x: 0");
	setenv("SLURM_JOB_ID", "4294967296", 1);
	ok(jobhook_env_job_id() == 0, "SLURM_JOB_ID beyond 32 bits: 0");
	setenv("SLURM_JOB_ID", "", 1);
	ok(jobhook_env_job_id() == 0, "empty SLURM_JOB_ID: 0");
	unsetenv("SLURM_JOB_ID");
	ok(jobhook_env_job_id() == 0, "no SLURM_JOB_ID: 0");
}

static void test_opt_in_prolog_without_option(void)
{
	fresh();
	jobhook_run(&cfg, 7, NULL, HOLD_ACQUIRE);
	ok(access(cfg.state, F_OK) < 0, "opt-in prolog without --ebpf: the state is not even created");
}

static void test_prolog_with_option(void)
{
	fresh();
	jobhook_run(&cfg, 7, "", HOLD_ACQUIRE);
	ok(tu_state_is(&cfg, "1\n7\n"), "prolog with --ebpf: held");
}

/* Job 7 holds; job 8, which does not, ends without --ebpf. */
static void test_epilog_without_option_or_hold(void)
{
	fresh();
	jobhook_run(&cfg, 7, "", HOLD_ACQUIRE);
	jobhook_run(&cfg, 8, NULL, HOLD_RELEASE);
	ok(tu_logged("epilog job 8: no --ebpf and no hold, nothing to do") && !tu_logged("epilog job 8\n"),
	   "epilog without --ebpf and no hold: nothing");
}

/* Job 7 holds (an srun --ebpf step) and ends without --ebpf. */
static void test_epilog_without_option_releases_hold(void)
{
	fresh();
	jobhook_run(&cfg, 7, "", HOLD_ACQUIRE);
	jobhook_run(&cfg, 7, NULL, HOLD_RELEASE);
	ok(tu_state_is(&cfg, "0\n"), "epilog without --ebpf of a job that holds (srun --ebpf step): released");
}

/* A hook remembers where systemd's tree is for its own length only
 * (unit_cgroup_memo_begin/end): a tree made after it is seen. */
static void test_cgroup_memo_ends_with_the_hook(void)
{
	char slice[300], unitdir[400], path[600];

	fresh();
	jobhook_run(&cfg, 7, "", HOLD_ACQUIRE);
	/* Joining a busy unit looks for its cgroup (did it die?). */
	jobhook_run(&cfg, 8, "", HOLD_ACQUIRE);
	snprintf(slice, sizeof(slice), "%s/system.slice", cfg.cgroup_root);
	snprintf(unitdir, sizeof(unitdir), "%s/ebpf_exporter.service", slice);
	mkdir(cfg.cgroup_root, 0755);
	mkdir(slice, 0755);
	mkdir(unitdir, 0755);
	ok(unit_cgroup(&cfg, "ebpf_exporter.service", path, sizeof(path)) == 1,
	   "after the hooks (no systemd tree then), the tree made since is found");
	rmdir(unitdir);
	rmdir(slice);
	jobhook_run(&cfg, 7, "", HOLD_RELEASE);
	jobhook_run(&cfg, 8, "", HOLD_RELEASE);
	ok(tu_state_is(&cfg, "0\n"), "... and both jobs released");
}

static void test_mode_always(void)
{
	fresh();
	cfg.mode = MODE_ALWAYS;
	jobhook_run(&cfg, 9, NULL, HOLD_ACQUIRE);
	ok(tu_state_is(&cfg, "1\n9\n"), "mode=always: held without the option");
}

/* mode=always: job 9 held by the plugin's face, then the Prolog= face
 * runs for it too. */
static void test_second_face_counted_once(void)
{
	fresh();
	cfg.mode = MODE_ALWAYS;
	jobhook_run(&cfg, 9, NULL, HOLD_ACQUIRE);
	jobhook_run(&cfg, 9, "", HOLD_ACQUIRE);
	ok(tu_state_is(&cfg, "1\n9\n") && tu_logged("prolog job 9: the job already holds"),
	   "the same job through a second face: counted once");
}

/* The "done in" line's figures: total, state lock waited, held; -1 when
 * the line is missing. */
static void done_line(double *total, double *waited, double *held)
{
	const char *p = strstr(tu_logs(), "done in ");

	*total = *waited = *held = -1;
	if (p)
		sscanf(p, "done in %lf ms (state lock: waited %lf ms, held %lf ms)", total, waited,
		       held);
}

/* The first job starts the unit under the lock (start=wait); the
 * double's "slow" start takes 20 ms, so the lock is held at least that. */
static void test_done_line_lock_held(void)
{
	double total, waited, held;

	fresh();
	tu_double_set(dir, "slow");
	jobhook_run(&cfg, 11, "", HOLD_ACQUIRE);
	done_line(&total, &waited, &held);
	ok(held >= 20 && waited >= 0 && total >= held,
	   "done line: lock held through the 20 ms start (total %.1f, waited %.1f, held %.1f ms)",
	   total, waited, held);
	tu_double_set(dir, "ok");
	jobhook_run(&cfg, 11, NULL, HOLD_RELEASE);
}

/* Another process holds the lock for 300 ms: the hook says it waited. */
static void test_done_line_lock_waited(void)
{
	char lockpath[600];
	double total, waited, held;
	int fd, pfd[2];
	pid_t holder;
	char c;

	fresh();
	snprintf(lockpath, sizeof(lockpath), "%s.lock", cfg.state);
	if (pipe(pfd) < 0 || (fd = open(lockpath, O_RDWR | O_CREAT, 0600)) < 0)
		exit(99);
	holder = fork();
	if (holder == 0) {
		if (flock(fd, LOCK_EX) < 0 || write(pfd[1], "x", 1) != 1)
			_exit(1);
		usleep(300000);
		_exit(0);
	}
	close(fd);
	if (read(pfd[0], &c, 1) != 1)
		exit(99);
	jobhook_run(&cfg, 12, "", HOLD_ACQUIRE);
	waitpid(holder, NULL, 0);
	done_line(&total, &waited, &held);
	ok(waited >= 250 && total >= waited + held - 1,
	   "done line: waited for the lock another process held 300 ms (total %.1f, waited %.1f, held %.1f ms)",
	   total, waited, held);
	jobhook_run(&cfg, 12, NULL, HOLD_RELEASE);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_no_job_id(void)
{
	fresh();
	jobhook_run(&cfg, 0, "", HOLD_ACQUIRE);
	ok(tu_logged("spank_ebpf: prolog: no valid job ID from Slurm (SLURM_JOB_ID); nothing done"), "no job ID: nothing done, said");
}

int main(void)
{
	setup();
	test_option_absent();
	test_option_prefixed();
	test_option_unprefixed();
	test_job_id_from_env();
	test_opt_in_prolog_without_option();
	test_prolog_with_option();
	test_epilog_without_option_or_hold();
	test_epilog_without_option_releases_hold();
	test_cgroup_memo_ends_with_the_hook();
	test_mode_always();
	test_second_face_counted_once();
	test_done_line_lock_held();
	test_done_line_lock_waited();
	test_no_job_id();
	return tap_done();
}
