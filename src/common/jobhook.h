/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job prolog/epilog rule, shared by every face that runs at a job's
 * start and end on a node: the SPANK job_prolog/job_epilog hooks and the
 * Prolog=/Epilog= program (spank-ebpf prolog|epilog, for PrologFlags=
 * RunInJob, where Slurm calls no SPANK job hook). A job counted by both
 * is counted once: the state is a set of job IDs. */
#ifndef SPANK_EBPF_JOBHOOK_H
#define SPANK_EBPF_JOBHOOK_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "hold.h"

/* What the job asked for with --ebpf[=SET,...], or NULL when it did not
 * ask. Slurm hands a job's SPANK options to its prolog, epilog and
 * Prolog=/Epilog= programs as SPANK__SLURM_SPANK_OPTION_<plugin>_<option>
 * (22.05 through 26.05); presence is the asking, the value the sets ("" or
 * "(null)" for a plain --ebpf). */
const char *jobhook_request(void);

/* The job ID from SLURM_JOB_ID, or 0 when missing or not a number. */
uint32_t jobhook_env_job_id(void);

/* Takes or releases the job's hold as the mode and the job's request
 * (jobhook_request(), NULL: none) say. Never fails: problems are logged,
 * the job runs. */
void jobhook_run(const struct config *cfg, uint32_t job, const char *request, enum hold_op op);

#endif
