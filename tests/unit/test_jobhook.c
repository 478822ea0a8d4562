/* The job prolog/epilog rule shared by the SPANK hooks and the Prolog=/
 * Epilog= program: the job's --ebpf from its environment, its ID, and
 * what each combination does to the state. */
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

int main(void)
{
	char dir[128], *s;

	unsetenv(VAR);
	unsetenv(VAR_BARE);
	ok(!jobhook_asked(), "no option variable: not asked");
	setenv(VAR, "(null)", 1);
	ok(jobhook_asked(), "SPANK_ prefixed variable, value (null): asked");
	setenv(VAR, "", 1);
	ok(jobhook_asked(), "... empty value: asked (presence counts)");
	unsetenv(VAR);
	setenv(VAR_BARE, "", 1);
	ok(jobhook_asked(), "unprefixed variable: asked");
	unsetenv(VAR_BARE);

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

	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
	jobhook_run(&cfg, 7, false, HOLD_ACQUIRE);
	ok(access(cfg.state, F_OK) < 0, "opt-in prolog without --ebpf: the state is not even created");
	jobhook_run(&cfg, 7, true, HOLD_ACQUIRE);
	s = tu_state_text(&cfg);
	ok(!strcmp(s, "1\n7\n"), "prolog with --ebpf: held");
	free(s);
	jobhook_run(&cfg, 8, false, HOLD_RELEASE);
	ok(tu_logged("epilog job 8: no --ebpf and no hold, nothing to do") && !tu_logged("epilog job 8\n"),
	   "epilog without --ebpf and no hold: nothing");
	jobhook_run(&cfg, 7, false, HOLD_RELEASE);
	s = tu_state_text(&cfg);
	ok(!strcmp(s, "0\n"), "epilog without --ebpf of a job that holds (srun --ebpf step): released");
	free(s);
	cfg.mode = MODE_ALWAYS;
	jobhook_run(&cfg, 9, false, HOLD_ACQUIRE);
	s = tu_state_text(&cfg);
	ok(!strcmp(s, "1\n9\n"), "mode=always: held without the option");
	free(s);
	jobhook_run(&cfg, 9, true, HOLD_ACQUIRE);
	s = tu_state_text(&cfg);
	ok(!strcmp(s, "1\n9\n") && tu_logged("prolog job 9: the job already holds"),
	   "the same job through a second face: counted once");
	free(s);
	tu_clear_logs();
	jobhook_run(&cfg, 0, true, HOLD_ACQUIRE);
	ok(tu_logged("spank_ebpf: prolog: no valid job ID from Slurm (SLURM_JOB_ID); nothing done"), "no job ID: nothing done, said");
	return tap_done();
}
