/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurm_spank_init: runs in srun, sbatch/salloc, slurmstepd and slurmd. */
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "plugin.h"
#include "statefile.h"

static struct spank_option ebpf_option = {
	.name = "ebpf",
	.arginfo = NULL,
	.usage = "Enable eBPF observability (ebpf_exporter) for this job",
	.has_arg = 0,
	.val = 0,
	.cb = NULL,
};

/* Job IDs must not outlive a reboot: on a persistent file system the
 * state would keep the exporter running for jobs that died with the node.
 * Checked once, at slurmd start. */
static void warn_if_not_tmpfs(const char *state)
{
	const char *slash = strrchr(state, '/');

	if (statefile_on_tmpfs(state) == 0)
		log_msg(LOG_ERROR, "state directory \"%.*s\" is not on tmpfs: after a reboot the state would still name dead jobs and keep the exporter running; use a directory under /run",
			slash == state ? 1 : (int)(slash - state), state);
}

/* Where slurm_spank_init runs, for the log lines' context. */
static const char *context_name(spank_context_t ctx)
{
	switch (ctx) {
	case S_CTX_LOCAL:
		return "srun";
	case S_CTX_REMOTE:
		return "slurmstepd";
	case S_CTX_ALLOCATOR:
		return "sbatch/salloc";
	case S_CTX_SLURMD:
		return "slurmd";
	default:
		return "init";
	}
}

int ctx_init(spank_t sp, int argc, char **argv)
{
	spank_context_t ctx = spank_context();
	struct config cfg;
	char err[512];
	int bad = config_parse(&cfg, argc, argv, err, sizeof(err));
	spank_err_t rc;

	log_set_context("%s", context_name(ctx));
	/* Registered, not exported as a static table: sbatch and salloc only
	 * see registered options, and an exported spank_options table makes
	 * spank_option_getopt() lie in the job prolog (see the facts note). */
	rc = spank_option_register(sp, &ebpf_option);
	if (rc != ESPANK_SUCCESS)
		log_msg(LOG_ERROR, "cannot register --ebpf: %s", spank_strerror(rc));

	if (ctx != S_CTX_SLURMD) {
		/* On submit hosts a broken line is the compute side's problem:
		 * keep users' sbatch output clean, say it at debug level. */
		if (bad)
			log_msg(ctx == S_CTX_REMOTE ? LOG_ERROR : LOG_DEBUG, "%s", err);
		return 0;
	}
	if (bad) {
		log_msg(LOG_ERROR, "%s; the plugin is disabled on this node, jobs run without the exporter",
			err);
		return 0;
	}
	log_msg(LOG_INFO, "version %s loaded: mode=%s unit=%s state=%s systemctl=%s timeout=%us lock_timeout=%us start=%s linger=%us",
		PACKAGE_VERSION, config_mode_name(cfg.mode), cfg.unit, cfg.state,
		cfg.systemctl, cfg.timeout, cfg.lock_timeout, config_start_name(cfg.start),
		cfg.linger);
	warn_if_not_tmpfs(cfg.state);
	if (access(cfg.systemctl, X_OK) < 0)
		log_msg(LOG_ERROR, "\"%s\" is not an executable file: the exporter cannot be started (set systemctl=)",
			cfg.systemctl);
	return 0;
}
