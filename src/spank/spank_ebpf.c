/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SPANK entry points: the only symbols Slurm sees (spank_ebpf.map).
 * Every hook returns 0: a problem with the exporter is logged and must
 * never fail a job or drain a node. */
#include <errno.h>

#include "plugin.h"
#include "log.h"

SPANK_PLUGIN(spank_ebpf, 1);

static void slurm_sink(enum log_level level, const char *msg)
{
	/* Slurm 22.05's logger decides whether stderr (journald's stream) is
	 * still writable from a stale errno: a leftover ENOENT from our own
	 * calls made it drop the line (fixed upstream in 23.02). */
	errno = 0;
	switch (level) {
	case LOG_ERROR:
		slurm_error("%s", msg);
		break;
	case LOG_INFO:
		slurm_info("%s", msg);
		break;
	case LOG_VERBOSE:
		slurm_verbose("%s", msg);
		break;
	default:
		slurm_debug("%s", msg);
		break;
	}
}

void plugin_use_slurm_log(void)
{
	log_set_sink(slurm_sink);
}

int slurm_spank_init(spank_t sp, int argc, char **argv)
{
	plugin_use_slurm_log();
	ctx_init(sp, argc, argv);
	return 0;
}

int slurm_spank_job_prolog(spank_t sp, int argc, char **argv)
{
	plugin_use_slurm_log();
	ctx_job(sp, argc, argv, HOLD_ACQUIRE);
	return 0;
}

int slurm_spank_job_epilog(spank_t sp, int argc, char **argv)
{
	plugin_use_slurm_log();
	ctx_job(sp, argc, argv, HOLD_RELEASE);
	return 0;
}
