/* The job prolog/epilog rule shared by the SPANK hooks and the Prolog=/
 * Epilog= program: the job's --ebpf from its environment, its ID, and
 * what each combination does to the state. One function per case; those
 * that run the hooks start from fresh(): no state, mode=opt-in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobhook.h"
#include "tap.h"
#include "testutil.h"

/* Slurm sets the SPANK_-prefixed name in job hooks; the Prolog= face may
 * see it without the prefix. */
#define VAR "SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf"
#define VAR_BARE "_SLURM_SPANK_OPTION_spank_ebpf_ebpf"

static struct config cfg;

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
	char dir[128];

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
	test_mode_always();
	test_second_face_counted_once();
	test_no_job_id();
	return tap_done();
}
