/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the SPANK edge files: one handler per SPANK context, called by
 * the dispatcher in spank_ebpf.c. Only these files include slurm/spank.h. */
#ifndef SPANK_EBPF_PLUGIN_H
#define SPANK_EBPF_PLUGIN_H

#include <slurm/spank.h>

#include "hold.h"

/* slurm_spank_init: registers --ebpf, reports the configuration in slurmd. */
int ctx_init(spank_t sp, int argc, char **argv);

/* slurm_spank_job_prolog / slurm_spank_job_epilog. */
int ctx_job(spank_t sp, int argc, char **argv, enum hold_op op);

/* Routes the core's log lines to Slurm's logger. */
void plugin_use_slurm_log(void);

#endif
