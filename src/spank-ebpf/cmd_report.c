/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report [--json] JOBID: a job's figures now, from the running exporters
 * of the probe sets it holds (or held, within their linger), for a user
 * without Prometheus. Read-only and lock-free. A caller other than root
 * sees only the jobs of their own uid (the node's record of the job,
 * written by its prolog from Slurm's SLURM_JOB_UID); names are shown,
 * never compared. Whatever an exporter says is made printable first: any
 * local user may serve a set's idle port. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "conffile.h"
#include "ownedget.h"
#include "jobinfo.h"
#include "jsonout.h"
#include "promtext.h"
#include "report.h"
#include "sets.h"
#include "slurmjobs.h"
#include "spank-ebpf.h"
#include "statefile.h"
#include "text.h"
#include "unit.h"

/* Each set's read, and the whole report: sets are read one after the
 * other, and the report unit's RuntimeMaxSec=30 must outlast them all
 * (16 sets at 3 s would not). */
#define REPORT_TIMEOUT_MS 3000
#define REPORT_BUDGET_MS 15000
#define REPORT_BODY_MAX (16u << 20)
#define P REPORT_METRIC_PREFIX

static void report_text(const struct jobinfo *j, const struct figures *f, int nerr)
{
	char user[4 * sizeof(j->user)], sets[4 * sizeof(j->sets)];

	printf("job %u (user %s), probe sets %s%s\n", j->job,
	       text_printable(j->user, user, sizeof(user)), text_printable(j->sets, sets, sizeof(sets)),
	       j->end ? ", ended" : "");
	report_text_figures(f, nerr);
}

static void report_json(const struct jobinfo *j, const struct figures *f, char errs[][800],
			int nerr)
{
	struct json_object *o = json_object_new_object(), *e = json_object_new_array();
	int i;

	jsonout_add(o, "job", jsonout_int(j->job));
	jsonout_add(o, "user", jsonout_string(j->user));
	jsonout_add(o, "sluid", j->sluid[0] ? jsonout_string(j->sluid) : NULL);
	jsonout_add(o, "sets", jsonout_string(j->sets));
	jsonout_add(o, "ended", jsonout_bool(j->end != 0));
	report_json_figures(o, f);
	for (i = 0; i < nerr; i++)
		jsonout_append(e, jsonout_string(errs[i]));
	jsonout_add(o, "errors", e);
	jsonout_print(stdout, o);
}

/* Root (uid 0) sees every job; anyone else the jobs recorded with their
 * uid. A record without one (an older release's) is root's only. */
static int report_allowed(const struct jobinfo *j, long long uid)
{
	return uid == 0 || (j->uid != JOBINFO_UID_NONE && j->uid == uid);
}

static int report_job(struct cmd *cmd, unsigned long job, bool json, long long uid);

/* Did set i, which answered for the job, observe it from its start?
 * Its exporter counts from when it became ready, which systemd says
 * (the job's start: its record's, when it joined). A unit systemd
 * cannot date, or a record without a start (an older release's), says
 * nothing. */
static void report_set_late(const struct config *cfg, const struct sets *sets, int i,
			    const struct jobinfo *j, struct figures *f)
{
	char unit[CONFIG_UNIT_MAX];
	long long ready;

	if (j->start <= 0)
		return;
	sets_unit(sets, sets->set[i].name, unit, sizeof(unit));
	if (unit_ready_since(cfg, unit, &ready) == 0)
		report_note_late(f, ready - j->start, sets->set[i].name, NULL);
}

enum { OPT_JSON, OPT_CLUSTER, OPT_SUMMARY, OPT_SQUEUE, OPT_SOCKET, OPT_PEER, NOPTS };
const struct option_spec report_options[] = {
	[OPT_JSON] = { "json", NULL, "one JSON object instead of text", 0 },
	[OPT_CLUSTER] = { "cluster", NULL, "every node the job ran on, from Prometheus (prometheus=); the default where the plugin's line has no sets=", 0 },
	[OPT_SUMMARY] = { "summary", NULL, "every node, from the job's summary in Slurm's accounting (stored at its end), not Prometheus", 0 },
	[OPT_SQUEUE] = { "squeue", "PATH", "with --cluster: the squeue to ask (sacct beside it)", 0 },
	[OPT_SOCKET] = { "socket", "PATH", "ask the report service listening at PATH", 0 },
	[OPT_PEER] = { "peer", NULL, "serve one request on stdin (spank-ebpf-report@.service)",
		       OPT_ALONE | OPT_BY_SYSTEMD },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

/* Set i's /metrics, only if its address is held by its own unit's
 * processes before and after the answer (ownedget.h). */
static char *report_owned_get(const struct config *cfg, const struct sets *sets, int i,
			      unsigned int timeout_ms, char *err, size_t errlen)
{
	char unit[CONFIG_UNIT_MAX];

	sets_unit(sets, sets->set[i].name, unit, sizeof(unit));
	return owned_get_metrics(cfg, unit, &sets->set[i].addr, timeout_ms, REPORT_BODY_MAX, err, errlen);
}

/* A line with prometheus= and no sets=: a node where no set runs. */
static bool report_login_node(struct cmd *cmd)
{
	char err[700];

	return conffile_load(cmd->config_path, &cmd->cfg, err, sizeof(err)) == 0 &&
	       cmd->cfg.prometheus[0] && !cmd->cfg.sets[0];
}

int cmd_report(struct cmd *cmd)
{
	const char **vals = cmd->opt, *pos[1] = { cmd->operand };
	char *end;
	unsigned long job;
	int rc;

	if (vals[OPT_PEER]) {
		if (pos[0] || vals[OPT_JSON] || vals[OPT_SOCKET] || vals[OPT_CLUSTER] || vals[OPT_SQUEUE] ||
		    vals[OPT_SUMMARY])
			return usage_error(cmd, "--peer takes its request from the connection on standard input");
		return report_peer_serve(cmd, report_job);
	}
	if (!pos[0])
		return usage_error(cmd, "which job?");
	job = strtoul(pos[0], &end, 10);
	if (*end || end == pos[0] || job == 0 || job > 0xfffffffdul)
		return usage_error(cmd, "\"%.40s\" is not a job ID", pos[0]);
	if (vals[OPT_SUMMARY] && vals[OPT_SOCKET])
		return usage_error(cmd, "--summary reads Slurm's accounting, not a report service");
	if (vals[OPT_CLUSTER] && vals[OPT_SOCKET])
		return usage_error(cmd, "--cluster asks Prometheus, not a report service");
	/* The summary covers every node too: --summary means --cluster. */
	if (vals[OPT_SUMMARY])
		vals[OPT_CLUSTER] = vals[OPT_SUMMARY];
	if (vals[OPT_SQUEUE] && !vals[OPT_CLUSTER])
		return usage_error(cmd, "--squeue goes with --cluster");
	if (vals[OPT_SQUEUE] && vals[OPT_SQUEUE][0] != '/')
		return usage_error(cmd, "--squeue needs an absolute path");
	if (vals[OPT_SQUEUE])
		cmd->ask.squeue = vals[OPT_SQUEUE];
	/* From Prometheus, as the caller: asked for, or where no set runs (a
	 * login node's line has prometheus= and no sets=). */
	if (vals[OPT_CLUSTER]) {
		if (load_config(cmd) < 0)
			return EXIT_UNSURE;
		return report_cluster(cmd, job, vals[OPT_JSON] != NULL, vals[OPT_SUMMARY] != NULL);
	}
	if (!vals[OPT_SOCKET] && report_login_node(cmd))
		return report_cluster(cmd, job, vals[OPT_JSON] != NULL, false);
	/* A user asks root's service, which can read every port (the
	 * firewall may close them to users); without it, the ports. */
	if (geteuid() != 0 || vals[OPT_SOCKET]) {
		rc = report_peer_ask(vals[OPT_SOCKET] ? vals[OPT_SOCKET] : REPORT_SOCKET, job, vals[OPT_JSON] != NULL);
		if (rc >= 0)
			return rc;
		if (vals[OPT_SOCKET]) {
			fprintf(stderr, "spank-ebpf: report: no report service at \"%s\"\n", vals[OPT_SOCKET]);
			return EXIT_UNSURE;
		}
	}
	return report_job(cmd, job, vals[OPT_JSON] != NULL, geteuid() == 0 ? 0 : (long long)getuid());
}

static int report_job(struct cmd *cmd, unsigned long job, bool json, long long uid)
{
	static struct sets sets;
	static struct figures f;
	static char errs[SETS_MAX + SERIES_COUNT][800]; /* a set's, a damaged series' */
	long long budget_end = clock_us() + REPORT_BUDGET_MS * 1000LL;
	struct jobinfo_list l = { 0, NULL };
	const struct jobinfo *j;
	struct statefile sf;
	char err[700];
	int rc, nerr = 0;
	const char *c;

	/* A report service may answer more than once: the last one's rows. */
	report_figures_free(&f);
	memset(&f, 0, sizeof(f));
	if (load_config(cmd) < 0)
		return EXIT_UNSURE;
	if (!cmd->cfg.sets[0]) {
		fprintf(stderr, "spank-ebpf: report: the plugin's line in \"%s\" has no sets=: jobs have no probe sets here\n",
			cmd->config_path);
		return EXIT_UNSURE;
	}
	if (sets_load(cmd->cfg.sets, &sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: report: %s\n", err);
		return EXIT_UNSURE;
	}
	if (statefile_open(&sf, cmd->cfg.state) < 0 || jobinfo_load(&sf, &l) < 0) {
		statefile_close(&sf);
		return EXIT_UNSURE;
	}
	statefile_close(&sf);
	j = jobinfo_find(&l, (uint32_t)job);
	if (!j || !report_allowed(j, uid)) {
		/* The same words either way: another user's job is not told apart
		 * from no job. */
		fprintf(stderr, "spank-ebpf: report: job %lu holds no probe set on this node%s\n", job,
			uid ? " (or is not yours)" : "");
		jobinfo_free(&l);
		return EXIT_ANOMALY;
	}
	for (c = j->sets; *c;) {
		size_t len = strcspn(c, ",");
		int i = sets_find(&sets, c, len);
		char *body;

		long long left_ms = (budget_end - clock_us()) / 1000;

		if (i >= 0 && left_ms < 100) {
			if (nerr < SETS_MAX)
				snprintf(errs[nerr++], sizeof(errs[0]), "set %s: not read: the report's %d s were spent",
					 sets.set[i].name, REPORT_BUDGET_MS / 1000);
		} else if (i >= 0) {
			body = report_owned_get(&cmd->cfg, &sets, i,
						left_ms < REPORT_TIMEOUT_MS ? (unsigned int)left_ms : REPORT_TIMEOUT_MS,
						err, sizeof(err));
			/* Within the report's time: systemd is asked only then. */
			if (body && (budget_end - clock_us()) / 1000 >= 100)
				report_set_late(&cmd->cfg, &sets, i, j, &f);
			if (body)
				report_read(&f, body, (unsigned int)job);
			else if (nerr < SETS_MAX)
				snprintf(errs[nerr++], sizeof(errs[0]), "set %s: %s", sets.set[i].name, err);
			free(body);
		}
		c += len + (c[len] ? 1 : 0);
	}
	report_runq_total(&f);
	/* A series refused as damaged: an error, its figure not shown. */
	for (rc = 0; nerr < SETS_MAX + SERIES_COUNT &&
		     report_damage_next(report_damaged(&f), &rc, NULL, errs[nerr], sizeof(errs[0]));)
		nerr++;
	/* The job's run time, for the share of it spent waiting: Slurm's
	 * count, asked only when there is a wait to divide (bounded). */
	f.elapsed = -1;
	if (f.cpu) {
		cmd->ask.timeout = cmd->cfg.timeout;
		if (slurmjobs_elapsed(&cmd->ask, (uint32_t)job, &f.elapsed, err, sizeof(err)) < 0)
			f.elapsed = -1;
	}
	if (json) {
		report_json(j, &f, errs, nerr);
	} else {
		for (rc = 0; rc < nerr; rc++) {
			char shown[4 * sizeof(errs[0])];

			fprintf(stderr, "spank-ebpf: report: %s\n",
				text_printable(errs[rc], shown, sizeof(shown)));
		}
		report_text(j, &f, nerr);
	}
	jobinfo_free(&l);
	report_figures_free(&f);
	return nerr ? EXIT_ANOMALY : EXIT_OK;
}
