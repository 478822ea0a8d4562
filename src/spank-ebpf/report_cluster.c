/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report JOBID from Prometheus (prometheus= on the plugin's line): the
 * job's figures on every node it ran on and for the whole job, running or
 * ended, from a login node. Run as the caller, never as root: Slurm tells
 * them about the job (sacct, else squeue) as PrivateData lets them see it,
 * and without that answer Prometheus is not asked. The job's range is
 * Slurm's; each series' last value in it is its total (the sets' series
 * are the job's alone, counted from 0 while it held them), summed by
 * node in PromQL and added up over nodes here, buckets before quantiles.
 * Whatever Prometheus says is made printable before it is shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "promapi.h"
#include "promtext.h"
#include "report.h"
#include "slurmjobs.h"
#include "spank-ebpf.h"
#include "text.h"

/* Series are scraped every few seconds: a job's last values can come up
 * to a scrape interval after its end (its sets linger), its first ones
 * a little after its start. */
#define CLUSTER_SLACK_S 120
#define CLUSTER_NODES_MAX 4096

/* The metrics report_take() reads, each asked by itself: a range
 * function drops the metric name, and the labels kept are those it reads. */
static const char *const cluster_metrics[] = {
	"io_latency_seconds_bucket", "io_bytes_total",
	"sched_runq_latency_seconds_bucket", "sched_runq_latency_seconds_sum",
	"sched_wait_microseconds_total", "sched_waits_total", "sched_pressure_microseconds_total",
	"net_tcp_retransmits_total", "net_tcp_connections_total", "oom_kills_total",
};

/* The node of a sample: its instance label without the port ("n1:941",
 * "[fe80::1]:941"), made printable. NULL when there are too many. */
static struct cluster_node *cluster_node_of(struct cluster *c, const char *labels)
{
	char inst[256], host[CLUSTER_NODE_MAX], shown[4 * CLUSTER_NODE_MAX];
	char *colon;
	size_t i;

	if (!prom_label(labels, "instance", inst, sizeof(inst)))
		snprintf(inst, sizeof(inst), "(no instance label)");
	colon = strrchr(inst, ':');
	if (colon && !strchr(colon, ']'))
		*colon = 0;
	snprintf(host, sizeof(host), "%.*s", (int)sizeof(host) - 1, inst);
	text_printable(host, shown, sizeof(shown));
	snprintf(host, sizeof(host), "%.*s", (int)sizeof(host) - 1, shown);
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->node[i].name, host))
			return &c->node[i];
	if (c->n == CLUSTER_NODES_MAX)
		return NULL;
	if (c->n % 64 == 0) {
		struct cluster_node *more = realloc(c->node, (c->n + 64) * sizeof(*more));

		if (!more)
			return NULL;
		c->node = more;
	}
	memset(&c->node[c->n], 0, sizeof(c->node[0]));
	snprintf(c->node[c->n].name, sizeof(c->node[0].name), "%s", host);
	return &c->node[c->n++];
}

static int cluster_by_name(const void *a, const void *b)
{
	return strcmp(((const struct cluster_node *)a)->name, ((const struct cluster_node *)b)->name);
}

/* Each metric's samples into their nodes' figures. The first query that
 * fails ends it: the next ones would fail alike, each after its time. */
static int cluster_read(struct cluster *c, const struct promapi *p, unsigned long job,
			 long long range, double at)
{
	char q[512], name[128], err[600];
	struct promapi_vector v;
	size_t m, i;

	for (m = 0; m < sizeof(cluster_metrics) / sizeof(cluster_metrics[0]); m++) {
		snprintf(name, sizeof(name), REPORT_METRIC_PREFIX "%s", cluster_metrics[m]);
		snprintf(q, sizeof(q),
			 "sum by (instance, operation, le, behind, direction) (max_over_time(%s{jobid=\"%lu\"}[%llds]))",
			 name, job, range);
		if (promapi_query(p, q, at, &v, err, sizeof(err)) < 0) {
			snprintf(c->failed, sizeof(c->failed), "%s", err);
			return -1;
		}
		for (i = 0; i < v.n; i++) {
			struct cluster_node *n = cluster_node_of(c, v.s[i].labels);
			struct prom_sample s = { name, v.s[i].labels, v.s[i].value };

			if (n)
				report_take(&n->f, &s);
		}
		promapi_vector_free(&v);
	}
	/* The sets each node ran it with: spank_ebpf_job_info, from the
	 * node's textfile (another instance of the same host). */
	snprintf(q, sizeof(q), "max by (instance, sets) (max_over_time(spank_ebpf_job_info{jobid=\"%lu\"}[%llds]))",
		 job, range);
	if (promapi_query(p, q, at, &v, err, sizeof(err)) < 0) {
		snprintf(c->failed, sizeof(c->failed), "%s", err);
		return -1;
	}
	for (i = 0; i < v.n; i++) {
		struct cluster_node *n = cluster_node_of(c, v.s[i].labels);
		char sets[sizeof(n->sets)];

		if (n && prom_label(v.s[i].labels, "sets", sets, sizeof(sets)))
			text_printable(sets, n->sets, sizeof(n->sets));
	}
	promapi_vector_free(&v);
	return 0;
}

static void cluster_time(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

/* Where the figures come from: Prometheus, or the job's summary. */
struct cluster_source {
	bool summary;
	const struct summary *h; /* the summary's head, when summary */
	const char *url;         /* Prometheus', when not */
};

static void cluster_text(const struct job_range *r, unsigned long job, const struct cluster *c,
			 const struct figures *all, const struct cluster_source *src)
{
	char user[4 * sizeof(r->user)], nodes[4 * sizeof(r->nodes)], state[4 * sizeof(r->state)];
	char from[40], to[40], at[40], shown[1200];
	struct report_hint h[REPORT_HINTS_MAX];
	size_t i, with = src->summary ? src->h->nodes : c->n;
	int k, nh;

	cluster_time(r->start, from, sizeof(from));
	cluster_time(r->end, to, sizeof(to));
	printf("job %lu (user %s), %s, nodes %s, %s to %s (%lld s), ", job,
	       text_printable(r->user, user, sizeof(user)), text_printable(r->state, state, sizeof(state)),
	       text_printable(r->nodes, nodes, sizeof(nodes)), from, r->end ? to : "now", all->elapsed);
	if (src->summary) {
		cluster_time(src->h->at, at, sizeof(at));
		printf("from its summary in Slurm's accounting (made at %s%s)\n", at,
		       src->h->early ? ", before the job's last scrape: its last seconds may be missing" : "");
	} else {
		printf("from Prometheus at %s\n", text_printable(src->url, shown, sizeof(shown)));
	}
	/* An ended job without figures (node_exporter's job_info line may
	 * have been scraped, none of its sets' series were). */
	if ((src->summary && with == 0) || (r->end && !report_figures_any(all))) {
		printf(" whole job: no figures: no series of it reached Prometheus (a job too short for a scrape, or a set that never ran)\n");
		return;
	}
	printf(" whole job (%zu node%s with series):\n", with, with == 1 ? "" : "s");
	report_text_figures(all, 0);
	nh = report_hints(all, h, REPORT_HINTS_MAX);
	for (k = 0; k < nh; k++)
		printf("  hint       %s\n", h[k].text);
	for (i = 0; i < c->n; i++) {
		printf(" node %s%s%s:\n", c->node[i].name, c->node[i].sets[0] ? ", sets " : "",
		       c->node[i].sets);
		report_text_figures(&c->node[i].f, 0);
	}
	if (c->n < with) {
		char other[32] = "node";

		if (with - c->n > 1)
			snprintf(other, sizeof(other), "%zu nodes", with - c->n);
		printf(" the other %s: in the whole job's figures only (the summary keeps %zu node%s within its %d bytes)\n",
		       other, c->n, c->n == 1 ? "" : "s", SUMMARY_TOKEN_MAX);
	}
}

static void cluster_json(const struct job_range *r, unsigned long job, const struct cluster *c,
			 const struct figures *all, const struct cluster_source *src)
{
	char s[6 * sizeof(r->nodes)];
	struct report_hint h[REPORT_HINTS_MAX];
	size_t i;
	int k, nh;

	printf("{\"job\":%lu,\"user\":\"%s\",", job, text_json_string(r->user, s, sizeof(s)));
	printf("\"state\":\"%s\",", text_json_string(r->state, s, sizeof(s)));
	printf("\"nodes\":\"%s\",\"start\":%lld,\"end\":", text_json_string(r->nodes, s, sizeof(s)),
	       r->start);
	if (r->end)
		printf("%lld", r->end);
	else
		printf("null");
	if (src->summary)
		printf(",\"source\":\"summary\",\"summary_at\":%lld,\"summary_before_last_scrape\":%s,\"nodes_with_series\":%zu",
		       src->h->at, src->h->early ? "true" : "false", src->h->nodes);
	else
		printf(",\"source\":\"prometheus\",\"nodes_with_series\":%zu", c->n);
	printf(",\"total\":{");
	report_json_figures(all);
	printf("},\"hints\":[");
	nh = report_hints(all, h, REPORT_HINTS_MAX);
	for (k = 0; k < nh; k++)
		printf("%s{\"key\":\"%s\",\"text\":\"%s\"}", k ? "," : "", h[k].key,
		       text_json_string(h[k].text, s, sizeof(s)));
	printf("],\"per_node\":[");
	for (i = 0; i < c->n; i++) {
		printf("%s{\"node\":\"%s\",", i ? "," : "", text_json_string(c->node[i].name, s, sizeof(s)));
		printf("\"sets\":\"%s\",", text_json_string(c->node[i].sets, s, sizeof(s)));
		report_json_figures(&c->node[i].f);
		printf("}");
	}
	printf("],\"errors\":[]}\n");
}

int report_cluster_collect(const struct config *cfg, unsigned long job, long long start, long long end,
			   struct cluster *c, struct figures *all)
{
	struct promapi p = { 0 };
	double wall = promapi_now();
	long long now = (long long)wall, stop = end ? end : now, range;
	double at = stop + CLUSTER_SLACK_S < now ? (double)(stop + CLUSTER_SLACK_S) : wall;
	size_t i;


	memset(c, 0, sizeof(*c));
	memset(all, 0, sizeof(*all));
	all->elapsed = stop > start ? stop - start : 0;
	range = stop - start + 2 * CLUSTER_SLACK_S;
	p.url = cfg->prometheus;
	p.cacert = cfg->prometheus_ca;
	p.netrc = cfg->prometheus_netrc;
	p.timeout = cfg->timeout;
	if (cluster_read(c, &p, job, range, at) < 0) {
		free(c->node);
		c->node = NULL;
		c->n = 0;
		return -1;
	}
	if (c->n > 1)
		qsort(c->node, c->n, sizeof(c->node[0]), cluster_by_name);
	for (i = 0; i < c->n; i++) {
		c->node[i].f.elapsed = all->elapsed;
		report_runq_total(&c->node[i].f);
		report_figures_add(all, &c->node[i].f);
	}
	report_runq_total(all);
	return 0;
}

/* The job's summary from Slurm's accounting, as the caller (sacct: what
 * PrivateData lets them see). 1 when read, 0 when it has none, -1 when
 * it cannot be asked or read (said). */
static int cluster_summary(struct cmd *cmd, unsigned long job, struct summary *h, struct cluster *c,
			   struct figures *all)
{
	static char field[SUMMARY_TOKEN_MAX + 4096];
	struct job_acct a = { .field = field, .len = sizeof(field) };
	char why[400], shown[1600];
	int rc;

	rc = slurmjobs_acct_record(&cmd->ask, (uint32_t)job, &a, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "spank-ebpf: report: Slurm's accounting cannot be asked for job %lu's summary: %s\n",
			job, text_printable(why, shown, sizeof(shown)));
		return -1;
	}
	if (rc == 0)
		return 0;
	rc = summary_decode(field, job, h, all, c, why, sizeof(why));
	if (rc < 0)
		fprintf(stderr, "spank-ebpf: report: job %lu's AdminComment: %s\n", job, why);
	return rc;
}

int report_cluster(struct cmd *cmd, unsigned long job, bool json, bool from_summary)
{
	static struct figures all;
	struct cluster c = { 0 };
	struct cluster_source src = { false, NULL, cmd->cfg.prometheus };
	struct summary h;
	struct job_range r;
	char why[400];
	long long now = (long long)time(NULL);
	int rc;

	if (!from_summary && !cmd->cfg.prometheus[0]) {
		fprintf(stderr, "spank-ebpf: report: the plugin's line in \"%s\" has no prometheus=: no place to read other nodes' figures from (--summary reads the job's summary)\n",
			cmd->config_path);
		return EXIT_UNSURE;
	}
	cmd->ask.timeout = cmd->cfg.timeout;
	rc = slurmjobs_range(&cmd->ask, (uint32_t)job, &r, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "spank-ebpf: report: Slurm cannot tell about job %lu: %s\n", job, why);
		return EXIT_UNSURE;
	}
	if (rc == 0) {
		/* The same words either way: a job the caller may not see is not
		 * told apart from no job. */
		fprintf(stderr, "spank-ebpf: report: Slurm knows no job %lu (or not one you may see)\n", job);
		return EXIT_ANOMALY;
	}
	if (!r.start || r.start > now) {
		char state[4 * sizeof(r.state)];

		fprintf(stderr, "spank-ebpf: report: job %lu has not started (%s)\n", job,
			text_printable(r.state, state, sizeof(state)));
		return EXIT_ANOMALY;
	}
	if (!from_summary) {
		if (report_cluster_collect(&cmd->cfg, job, r.start, r.end, &c, &all) < 0) {
			/* promapi's words are printable already. */
			fprintf(stderr, "spank-ebpf: report: Prometheus cannot be read: %s\n", c.failed);
			if (!r.end)
				return EXIT_UNSURE;
			rc = cluster_summary(cmd, job, &h, &c, &all);
			if (rc <= 0) {
				if (rc == 0)
					fprintf(stderr, "spank-ebpf: report: job %lu has no summary in Slurm's accounting either\n",
						job);
				return EXIT_UNSURE;
			}
			fprintf(stderr, "spank-ebpf: report: job %lu ended: its summary in Slurm's accounting instead\n",
				job);
			src.summary = true;
		} else if (c.n == 0 && r.end) {
			/* Nothing in Prometheus any more (its retention passed, or
			 * its data was deleted): the summary, if the job has one. */
			rc = cluster_summary(cmd, job, &h, &c, &all);
			if (rc == 1)
				src.summary = true;
			else
				c.n = 0;
		}
	}
	if (from_summary) {
		rc = cluster_summary(cmd, job, &h, &c, &all);
		if (rc <= 0) {
			if (rc == 0)
				fprintf(stderr, "spank-ebpf: report: job %lu has no summary in Slurm's accounting (stored at the end of a job that asked for --ebpf, by spank-ebpf summary as EpilogSlurmctld)\n",
					job);
			return rc == 0 ? EXIT_ANOMALY : EXIT_UNSURE;
		}
		src.summary = true;
	}
	src.h = &h;
	if (json)
		cluster_json(&r, job, &c, &all, &src);
	else
		cluster_text(&r, job, &c, &all, &src);
	free(c.node);
	return EXIT_OK;
}
