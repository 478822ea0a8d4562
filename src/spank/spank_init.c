/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurm_spank_init: runs in srun, sbatch/salloc, slurmstepd and slurmd. */
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "plugin.h"
#include "sets.h"
#include "statefile.h"

static int check_request(int val, const char *arg, int remote);

/* Without probe sets, the flag of before sets existed; with them, an
 * optional value (--ebpf, --ebpf=SET[,SET...]), checked at submission. */
static struct spank_option ebpf_option = {
	.name = "ebpf",
	.arginfo = NULL,
	.usage = "Enable eBPF observability (ebpf_exporter) for this job",
	.has_arg = 0,
	.val = 0,
	.cb = NULL,
};

/* The submit host's view of the sets, for the option's help and check. */
static struct sets submit_sets;
static bool sets_configured, sets_read;
static char sets_err[600], usage[4096];

static bool plain_request(const char *arg)
{
	return !arg || !*arg || !strcmp(arg, "(null)");
}

/* sbatch, salloc, srun: an unknown set is refused before anything is
 * queued, with the allowed ones. Never on the node (remote): the prolog
 * checks again, and a failing callback there would fail the step. */
static int check_request(int val, const char *arg, int remote)
{
	char bad[64], allowed[400];
	uint32_t mask;

	(void)val;
	if (remote || plain_request(arg))
		return 0;
	if (!sets_read) {
		/* The nodes' sets file is the truth; an unreadable copy here
		 * must not stop users. */
		log_msg(LOG_INFO, "cannot check --ebpf=%.64s here (%s); the nodes will", arg, sets_err);
		return 0;
	}
	if (sets_request(&submit_sets, arg, &mask, bad, sizeof(bad)) == 0)
		return 0;
	sets_allowed(&submit_sets, allowed, sizeof(allowed));
	log_msg(LOG_ERROR, "unknown probe set \"%s\"; allowed: %s", bad, allowed);
	return -1;
}

/* Appends the strings to usage[], never past its end. */
static void usage_add(size_t *n, const char *a, const char *b, const char *c)
{
	const char *parts[3] = { a, b, c };
	int i;

	for (i = 0; i < 3; i++) {
		size_t len = strlen(parts[i]);

		if (*n + len >= sizeof(usage))
			len = sizeof(usage) - 1 - *n;
		memcpy(usage + *n, parts[i], len);
		*n += len;
		usage[*n] = '\0';
	}
}

/* --help: what plain --ebpf means, and each set with its description. */
static void describe_sets(const struct sets *s)
{
	size_t n = 0;
	int i, first = 1;

	usage_add(&n, "Enable eBPF probes (ebpf_exporter) for this job: --ebpf alone for", "", "");
	for (i = 0; i < s->n; i++)
		if (s->default_mask & (1u << i)) {
			usage_add(&n, first ? " " : ", ", s->set[i].name, "");
			first = 0;
		}
	usage_add(&n, ", or --ebpf=SET[,SET...] from", "", "");
	for (i = 0; i < s->n; i++) {
		usage_add(&n, i ? "; " : " ", s->set[i].name, " (");
		usage_add(&n, s->set[i].description, ")", "");
	}
	ebpf_option.usage = usage;
}

/* With sets= on the line: the option takes a value, checked against the
 * sets file as this host has it. slurmstepd (remote) runs this for every
 * step of every job and never checks nor shows the help: there the file
 * is not read at all, so a job without --ebpf costs no syscall (the job
 * prolog reads it only for a job that asked). */
static void prepare_option(const struct config *cfg, spank_context_t ctx)
{
	sets_configured = cfg->sets[0] != '\0';
	if (!sets_configured)
		return;
	ebpf_option.has_arg = 2;
	ebpf_option.cb = check_request;
	if (ctx == S_CTX_REMOTE)
		return;
	sets_read = sets_load(cfg->sets, &submit_sets, sets_err, sizeof(sets_err)) == 0;
	if (sets_read)
		describe_sets(&submit_sets);
	else
		ebpf_option.usage = "Enable eBPF probes (ebpf_exporter) for this job: --ebpf, or --ebpf=SET[,SET...] (this host cannot read the probe sets file)";
}

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
	if (!bad)
		prepare_option(&cfg, ctx);
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
	log_msg(LOG_INFO, "version %s loaded: mode=%s unit=%s state=%s systemctl=%s timeout=%us lock_timeout=%us start=%s linger=%us%s%s",
		PACKAGE_VERSION, config_mode_name(cfg.mode), cfg.unit, cfg.state,
		cfg.systemctl, cfg.timeout, cfg.lock_timeout, config_start_name(cfg.start),
		cfg.linger, cfg.sets[0] ? " sets=" : "", cfg.sets);
	if (sets_configured && !sets_read)
		log_msg(LOG_ERROR, "%s: jobs asking for probe sets run without them until it is fixed", sets_err);
	else if (sets_configured) {
		char allowed[400];

		sets_allowed(&submit_sets, allowed, sizeof(allowed));
		log_msg(LOG_INFO, "probe sets: %s (template %s)", allowed, submit_sets.unit);
	}
	warn_if_not_tmpfs(cfg.state);
	if (access(cfg.systemctl, X_OK) < 0)
		log_msg(LOG_ERROR, "\"%s\" is not an executable file: the exporter cannot be started (set systemctl=)",
			cfg.systemctl);
	return 0;
}
