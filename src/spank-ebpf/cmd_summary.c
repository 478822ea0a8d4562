/* SPDX-License-Identifier: GPL-2.0-or-later */
/* summary: at a job's end, its figures from Prometheus (every node, the
 * whole job) kept in Slurm's accounting, so that `report` can give them
 * once Prometheus has not. Run by slurmctld as EpilogSlurmctld (as
 * SlurmUser, by path, without arguments), like jobstats: the controller
 * sees the whole job once it has ended on every node, and SlurmUser may
 * change its record (sacctmgr); a node's epilog sees one node. The token
 * goes first in AdminComment, before whatever the field holds (an
 * admin's text, jobstats' JS1: token, which it reads to the field's
 * end). As
 * EpilogSlurmctld it always exits 0: the job has ended, nothing of it
 * may fail for the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "jobhook.h"
#include "log.h"
#include "promapi.h"
#include "report.h"
#include "spank-ebpf.h"
#include "text.h"

/* How long the controller waits for Prometheus' scrape after the job's
 * end (its last figures), asking every 2 s. */
#define SUMMARY_WAIT_S 30
#define SUMMARY_WINDOW_MAX_MS 600000.0
/* What slurmdbd keeps of an AdminComment (a MySQL TEXT column): the
 * token and the field's own text together, or nothing is written. */
#define SUMMARY_FIELD_MAX 65535

enum { OPT_PRINT, OPT_WAIT, OPT_SQUEUE, NOPTS };

const struct option_spec summary_options[] = {
	[OPT_PRINT] = { "print", NULL, "print the token instead of storing it", 0 },
	[OPT_WAIT] = { "wait", "SECONDS", "at most this long for Prometheus' last scrape, and for accounting's record (default 30 each)", 0 },
	[OPT_SQUEUE] = { "squeue", "PATH", "the squeue to ask (sacct and sacctmgr beside it)", 0 },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

/* Has Prometheus scraped the job's series since its end (or have they
 * all gone stale: their sets stopped, or it never had any)? Asked until
 * it has, or wait_s. Not timestamp() of the job's series: it drops their
 * names, and a histogram's _sum and _count then have the same labels,
 * which Prometheus refuses ("vector cannot contain metrics with the same
 * labelset", HTTP 422). last_over_time keeps the names: the series with
 * a sample in (end, now] are counted, else 0 while the job has series, no
 * answer when it has none. True when it has; false with why (the words
 * for the summary made without it). */
static bool summary_wait_scrape(const struct config *cfg, unsigned long job, long long end, int wait_s,
				char *why, size_t whylen)
{
	struct promapi p = { .url = cfg->prometheus, .cacert = cfg->prometheus_ca,
			     .netrc = cfg->prometheus_netrc, .timeout = cfg->timeout };
	long long t0 = (long long)time(NULL);
	char q[400], err[600];
	bool scraped = false;

	for (;;) {
		struct promapi_vector v;
		double now = promapi_now(), since = (now - (double)end) * 1000;
		bool done;

		/* A window longer than Prometheus' lookback (5 min) tells no
		 * more (a sample in it is after the end; none, and count(X)
		 * finds none either) and costs a read of every sample in it:
		 * a summary made by hand days later. */
		if (since > SUMMARY_WINDOW_MAX_MS)
			since = SUMMARY_WINDOW_MAX_MS;

		snprintf(q, sizeof(q),
			 "count(last_over_time({__name__=~\"" REPORT_METRIC_PREFIX ".+\",jobid=\"%lu\"}[%.0fms])) > 0"
			 " or count({__name__=~\"" REPORT_METRIC_PREFIX ".+\",jobid=\"%lu\"}) * 0",
			 job, since < 1 ? 1 : since, job);
		if (promapi_query(&p, q, now, &v, err, sizeof(err)) < 0) {
			log_msg(LOG_INFO, "Prometheus cannot be asked for the job's last scrape: %s", err);
			snprintf(why, whylen, "Prometheus could not be asked for it");
			break;
		}
		done = v.n == 0 || v.s[0].value > 0;
		promapi_vector_free(&v);
		if (done) {
			scraped = true;
			break;
		}
		if (now - t0 >= wait_s) {
			snprintf(why, whylen, "Prometheus had none since its end after %d s", wait_s);
			break;
		}
		sleep(2);
	}
	promapi_close(&p);
	return scraped;
}

/* The job's summary made from Prometheus into tok; the nodes kept, or
 * -1 (said). */
static long summary_make(struct cmd *cmd, unsigned long job, int wait_s, char *tok, size_t len,
			 struct summary *h, bool *figures, char *early, size_t earlylen)
{
	static struct figures all;
	struct cluster c = { 0 };
	struct job_range r;
	char why[400];
	long kept;
	int rc;

	cmd->ask.timeout = cmd->cfg.timeout;
	rc = slurmjobs_range(&cmd->ask, (uint32_t)job, &r, why, sizeof(why));
	if (rc <= 0) {
		log_msg(LOG_ERROR, "no summary: Slurm %s", rc < 0 ? why : "knows no such job");
		return -1;
	}
	if (!r.start) {
		log_msg(LOG_INFO, "no summary: the job never started");
		return -1;
	}
	/* Ended (slurmctld runs us then), though accounting may not have its
	 * end yet. */
	if (!r.end)
		r.end = (long long)time(NULL);
	early[0] = '\0';
	h->early = !summary_wait_scrape(&cmd->cfg, job, r.end, wait_s, early, earlylen);
	if (report_cluster_collect(&cmd->cfg, job, &r, clock_us() + cmd->cfg.timeout * 1000000LL, &c,
				   &all) < 0) {
		log_msg(LOG_ERROR, "no summary: %s", c.failed);
		return -1;
	}
	if (c.left_out[0])
		log_msg(LOG_INFO, "%s", c.left_out);
	h->job = job;
	h->at = (long long)time(NULL);
	h->elapsed = all.elapsed;
	h->nodes = c.n;
	*figures = report_figures_any(&all);
	kept = summary_encode(h, &all, &c, tok, len);
	report_cluster_free(&c);
	report_figures_free(&all);
	if (kept < 0)
		log_msg(LOG_ERROR, "no summary: even the whole job's figures exceed %d bytes", SUMMARY_TOKEN_MAX);
	return kept;
}

/* The token into the job's AdminComment in Slurm's accounting, before
 * what it holds. The job has ended: slurmctld refuses to update it, so
 * its record is changed in slurmdbd (sacctmgr, as jobstats does), once
 * accounting has its end (asked every 2 s, for up to wait_s). */
static int summary_store(struct cmd *cmd, unsigned long job, const char *tok, int wait_s)
{
	static char field[SUMMARY_FIELD_MAX + 1], out[SUMMARY_FIELD_MAX + 1];
	struct job_acct a = { .field = field, .len = sizeof(field) };
	long long t0 = (long long)time(NULL);
	char why[400];
	int rc;

	for (;;) {
		rc = slurmjobs_acct_record(&cmd->ask, (uint32_t)job, &a, why, sizeof(why));
		if (rc < 0) {
			log_msg(LOG_ERROR, "not stored: %s", why);
			return -1;
		}
		if ((rc == 1 && a.ended) || (long long)time(NULL) - t0 >= wait_s)
			break;
		sleep(2);
	}
	if (rc == 0 || !a.ended) {
		log_msg(LOG_ERROR, "not stored: Slurm's accounting %s after %d s",
			rc == 0 ? "does not list the job" : "has not its end", wait_s);
		return -1;
	}
	/* The field is rewritten whole: a part of it not read would be lost. */
	if (a.cut) {
		log_msg(LOG_ERROR, "not stored: its AdminComment (%zu bytes) is longer than the %d bytes Slurm's database keeps in it: the field is left as it was",
			a.full, SUMMARY_FIELD_MAX);
		return -1;
	}
	if (summary_field_put(field, tok, out, sizeof(out)) < 0) {
		log_msg(LOG_ERROR, "not stored: its AdminComment (%zu bytes) and the summary (%zu bytes) exceed the %d bytes Slurm's database keeps in it: the field is left as it was",
			strlen(field), strlen(tok), SUMMARY_FIELD_MAX);
		return -1;
	}
	if (slurmjobs_set_admin_comment(&cmd->ask, a.selector, out, why, sizeof(why)) < 0) {
		log_msg(LOG_ERROR, "not stored: %s", why);
		return -1;
	}
	return 0;
}

int cmd_summary(struct cmd *cmd)
{
	static char tok[SUMMARY_TOKEN_MAX + 1];
	const char **vals = cmd->opt, *pos[1] = { cmd->operand };
	char early[120], before[200] = "";
	bool figures = false;
	bool epilog = !strcmp(cmd->name, "epilog-slurmctld");
	unsigned long job;
	struct summary h;
	int wait_s = SUMMARY_WAIT_S;
	long kept;
	char *end;

	if (epilog) {
		const char *env = getenv("SLURM_JOB_ID");

		job = env ? strtoul(env, &end, 10) : 0;
		if (!env || *end || end == env)
			job = 0;
	} else {
		job = strtoul(pos[0], &end, 10);
		if (*end || end == pos[0])
			job = 0;
	}
	if (job == 0 || job > 0xfffffffdul) {
		if (epilog)
			return EXIT_OK;
		return usage_error(cmd, "\"%.40s\" is not a job ID", pos[0]);
	}
	if (vals[OPT_WAIT]) {
		wait_s = (int)strtol(vals[OPT_WAIT], &end, 10);
		if (*end || end == vals[OPT_WAIT] || wait_s < 0 || wait_s > 300)
			return usage_error(cmd, "--wait takes 0 to 300 seconds");
	}
	if (vals[OPT_SQUEUE]) {
		if (vals[OPT_SQUEUE][0] != '/')
			return usage_error(cmd, "--squeue needs an absolute path");
		cmd->ask.squeue = vals[OPT_SQUEUE];
	}
	log_to_stderr(epilog);
	log_set_context("summary job %lu", job);
	if (load_config(cmd) < 0)
		return epilog ? EXIT_OK : EXIT_UNSURE;
	/* EpilogSlurmctld runs for every job: only those the sets observed
	 * (asked for --ebpf, or mode=always) cost a question. */
	if (epilog && !jobhook_request() && cmd->cfg.mode != MODE_ALWAYS)
		return EXIT_OK;
	if (!cmd->cfg.prometheus[0]) {
		log_msg(LOG_ERROR, "no summary: the plugin's line in \"%s\" has no prometheus=", cmd->config_path);
		return epilog ? EXIT_OK : EXIT_UNSURE;
	}
	kept = summary_make(cmd, job, wait_s, tok, sizeof(tok), &h, &figures, early, sizeof(early));
	if (kept < 0)
		return epilog ? EXIT_OK : EXIT_UNSURE;
	if (vals[OPT_PRINT]) {
		printf("%s\n", tok);
		return EXIT_OK;
	}
	if (summary_store(cmd, job, tok, wait_s) < 0)
		return epilog ? EXIT_OK : EXIT_UNSURE;
	if (h.early)
		snprintf(before, sizeof(before), ", made before the job's last scrape (%s): its last seconds may be missing",
			 early);
	if (!figures)
		log_msg(LOG_INFO, "stored in its AdminComment: no figures (no series of it reached Prometheus)%s",
			before);
	else
		log_msg(LOG_INFO, "stored in its AdminComment: %ld of %zu nodes, %zu bytes%s", kept, h.nodes,
			strlen(tok), before);
	return EXIT_OK;
}
