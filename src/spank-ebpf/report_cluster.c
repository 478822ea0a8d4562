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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "hostlist.h"
#include "jsonout.h"
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
 * function drops the metric name, and the labels kept are those it reads.
 * 15 metrics, then 3 queries (job_info, start, ready): 18 in all. The fs
 * set's are per node and mount (fstype, mount; each node's mounts
 * bounded in report_fs.c), the RPCs, which carry no fstype, last. */
static const char *const cluster_metrics[] = {
	"io_latency_seconds_bucket", "io_bytes_total",
	"sched_runq_latency_seconds_bucket", "sched_runq_latency_seconds_sum",
	"sched_wait_microseconds_total", "sched_waits_total", "sched_pressure_microseconds_total",
	"net_tcp_retransmits_total", "net_tcp_connections_total", "oom_kills_total",
	"fs_data_ops_total", "fs_data_bytes_total", "fs_meta_ops_total", "fs_meta_latency_seconds_bucket",
	"fs_nfs_rpcs_total",
};

/* What a report's reading keeps beside the figures: the job's nodes
 * (Slurm's list, expanded and sorted) with each one's place in c->node
 * once a series of it came, the nodes of series outside the job, and the
 * report's deadline. */
struct cluster_read {
	unsigned long job;
	struct hostlist nodes;
	long *slot;      /* per job node: its index in c->node, -1 before */
	size_t cap;      /* c->node's room */
	struct hostlist outside; /* sorted, at most CLUSTER_NODES_MAX */
	size_t outside_more;     /* beyond those: series of more nodes */
	long long deadline;      /* clock_us() */
	unsigned int timeout;    /* timeout=, for the words */
	int asked;               /* queries answered */
};

/* A node outside the job, once in r->outside (sorted: a bisection finds
 * its place). */
static void cluster_outside_add(struct cluster_read *r, const char *host)
{
	char shown[4 * CLUSTER_NODE_MAX];
	size_t lo = 0, hi = r->outside.n;

	text_printable(host, shown, sizeof(shown));
	shown[CLUSTER_NODE_MAX - 1] = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(r->outside.name[mid], shown);

		if (cmp == 0)
			return;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (r->outside.n == CLUSTER_NODES_MAX) {
		r->outside_more = 1;
		return;
	}
	if (r->outside.n % 256 == 0) {
		void *more = realloc(r->outside.name, (r->outside.n + 256) * sizeof(*r->outside.name));

		if (!more) {
			r->outside_more = 1;
			return;
		}
		r->outside.name = more;
	}
	memmove(r->outside.name[lo + 1], r->outside.name[lo], (r->outside.n - lo) * sizeof(*r->outside.name));
	snprintf(r->outside.name[lo], sizeof(*r->outside.name), "%.*s", (int)sizeof(*r->outside.name) - 1, shown);
	r->outside.n++;
}

/* The job node named host or, for a host name with a domain
 * ("n1.example.org"), by its first label: its index, or -1. */
static long cluster_job_node(const struct hostlist *nodes, char *host)
{
	long k = hostlist_find(nodes, host);
	char *dot = strchr(host, '.');

	/* Not an IPv4 address's first number, nor an IPv6 address. */
	if (k < 0 && dot && dot > host && strspn(host, "0123456789") != (size_t)(dot - host) &&
	    host[0] != '[') {
		*dot = 0;
		k = hostlist_find(nodes, host);
		*dot = '.';
	}
	return k;
}

/* The node of a sample: its instance label without the port ("n1:941",
 * "[fe80::1]:941"), one of the job's nodes (a bisection in their sorted
 * names); NULL for another node (kept in r->outside) or out of memory. */
/* The job node a series' instance names (its host), or -1; host gets
 * it either way. */
long cluster_instance_host(const struct hostlist *nodes, const char *labels, char *host, size_t len)
{
	char inst[256];
	char *colon;

	if (!prom_label(labels, "instance", inst, sizeof(inst)))
		snprintf(inst, sizeof(inst), "(no instance label)");
	colon = strrchr(inst, ':');
	if (colon && !strchr(colon, ']'))
		*colon = 0;
	snprintf(host, len, "%.*s", (int)len - 1, inst);
	return cluster_job_node(nodes, host);
}

static long cluster_instance_node(struct cluster_read *r, const char *labels, char *host, size_t len)
{
	return cluster_instance_host(&r->nodes, labels, host, len);
}

/* A job node already seen with series, or NULL: for the facts about
 * nodes (start, ready times), which make no node and name no other. */
static struct cluster_node *cluster_node_seen(struct cluster *c, struct cluster_read *r, const char *labels)
{
	char host[CLUSTER_NODE_MAX];
	long k = cluster_instance_node(r, labels, host, sizeof(host));

	return k >= 0 && r->slot[k] >= 0 ? &c->node[r->slot[k]] : NULL;
}

static struct cluster_node *cluster_node_of(struct cluster *c, struct cluster_read *r, const char *labels)
{
	char host[CLUSTER_NODE_MAX];
	long k = cluster_instance_node(r, labels, host, sizeof(host));

	if (k < 0) {
		cluster_outside_add(r, host);
		return NULL;
	}
	if (r->slot[k] >= 0)
		return &c->node[r->slot[k]];
	if (c->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct cluster_node *more = realloc(c->node, cap * sizeof(*more));

		if (!more)
			return NULL;
		c->node = more;
		r->cap = cap;
	}
	memset(&c->node[c->n], 0, sizeof(c->node[0]));
	/* Slurm's name: printable already (hostlist_expand takes no other). */
	snprintf(c->node[c->n].name, sizeof(c->node[0].name), "%s", r->nodes.name[k]);
	r->slot[k] = (long)c->n;
	return &c->node[c->n++];
}

static int cluster_by_name(const void *a, const void *b)
{
	return strcmp(((const struct cluster_node *)a)->name, ((const struct cluster_node *)b)->name);
}

/* The metrics, job_info, the job's start and its sets' ready times. */
#define CLUSTER_QUERIES (sizeof(cluster_metrics) / sizeof(cluster_metrics[0]) + 3)

/* One query within the report's deadline: timeout= or what is left of
 * it, whichever is less. -1 with c->failed when it fails or the time is
 * out. */
static int cluster_query(struct cluster *c, struct cluster_read *r, struct promapi *p, const char *q,
			 double at, struct promapi_vector *v)
{
	long long left = r->deadline - clock_us();
	char err[600];

	v->n = 0;
	v->s = NULL;
	if (left < 500000) {
		snprintf(c->failed, sizeof(c->failed),
			 "Prometheus cannot be read: the report's time ran out (timeout=%u s on the plugin's line) after %d of %zu queries",
			 r->timeout, r->asked, CLUSTER_QUERIES);
		return -1;
	}
	p->timeout = left / 1000000 < (long long)r->timeout ? (unsigned int)(left / 1000000) : r->timeout;
	if (p->timeout == 0)
		p->timeout = 1;
	if (promapi_query(p, q, at, v, err, sizeof(err)) < 0) {
		if (clock_us() + 500000 >= r->deadline)
			snprintf(c->failed, sizeof(c->failed),
				 "Prometheus cannot be read: the report's time ran out (timeout=%u s on the plugin's line) after %d of %zu queries (the next: %.400s)",
				 r->timeout, r->asked, CLUSTER_QUERIES, err);
		else
			snprintf(c->failed, sizeof(c->failed), "Prometheus cannot be read: %s", err);
		return -1;
	}
	r->asked++;
	return 0;
}

/* Past the deadline while reading an answer's samples (checked every
 * 4096 of them): c->failed says so. */
static bool cluster_late(struct cluster *c, const struct cluster_read *r, size_t i)
{
	if (i % 4096 || clock_us() < r->deadline)
		return false;
	snprintf(c->failed, sizeof(c->failed),
		 "Prometheus cannot be read: the report's time ran out (timeout=%u s on the plugin's line) reading the answer to query %d of %zu",
		 r->timeout, r->asked, CLUSTER_QUERIES);
	return true;
}

/* Does set (a name) appear in sets ("io,net")? */
static bool cluster_sets_have(const char *sets, const char *set)
{
	size_t n = strlen(set);
	const char *c;

	for (c = sets; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] ? 1 : 0))
		if (strcspn(c, ",") == n && !strncmp(c, set, n))
			return true;
	return false;
}

/* Was the job observed for part of its run on a node? When it joined
 * its sets there (spank_ebpf_job_start_time_seconds) and when each of
 * those sets' exporters there last became ready before the job's end
 * (spank_ebpf_set_ready_time_seconds, of the job's nodes alone: "and
 * on (instance)"), both from the node's textfile (jobinfo.h). */
static int cluster_read_late(struct cluster *c, struct cluster_read *r, struct promapi *p,
			     long long range, double at)
{
	char q[512], set[32];
	struct promapi_vector v;
	size_t i;
	int k;

	snprintf(q, sizeof(q),
		 "max by (instance) (max_over_time(spank_ebpf_job_start_time_seconds{jobid=\"%lu\"}[%llds]))",
		 r->job, range);
	if (cluster_query(c, r, p, q, at, &v) < 0)
		return -1;
	for (i = 0; i < v.n; i++) {
		struct cluster_node *n = cluster_node_seen(c, r, v.s[i].labels);

		if (n && isfinite(v.s[i].value) && v.s[i].value > 0)
			n->start = v.s[i].value;
	}
	promapi_vector_free(&v);
	snprintf(q, sizeof(q),
		 "max by (instance, set) (max_over_time(spank_ebpf_set_ready_time_seconds[%llds]))"
		 " and on (instance) max_over_time(spank_ebpf_job_start_time_seconds{jobid=\"%lu\"}[%llds])",
		 range, r->job, range);
	if (cluster_query(c, r, p, q, at, &v) < 0)
		return -1;
	for (i = 0; i < v.n; i++) {
		struct cluster_node *n;

		if (cluster_late(c, r, i)) {
			promapi_vector_free(&v);
			return -1;
		}
		n = cluster_node_seen(c, r, v.s[i].labels);
		if (!n || n->nready >= CLUSTER_READY_MAX || !isfinite(v.s[i].value) ||
		    !prom_label(v.s[i].labels, "set", set, sizeof(set)))
			continue;
		text_printable(set, n->ready[n->nready].set, sizeof(n->ready[0].set));
		n->ready[n->nready++].at = v.s[i].value;
	}
	promapi_vector_free(&v);
	for (i = 0; i < c->n; i++) {
		struct cluster_node *n = &c->node[i];

		for (k = 0; n->start > 0 && k < n->nready; k++)
			if (cluster_sets_have(n->sets, n->ready[k].set))
				report_note_late(&n->f, (long long)(n->ready[k].at - n->start),
						 n->ready[k].set, n->name);
	}
	return 0;
}

/* Each metric's samples into their nodes' figures. The first query that
 * fails ends it: the next ones would fail alike, each after its time. */
static int cluster_read(struct cluster *c, struct cluster_read *r, struct promapi *p, long long range,
			double at)
{
	char q[512], name[128];
	struct promapi_vector v;
	size_t m, i;

	for (m = 0; m < sizeof(cluster_metrics) / sizeof(cluster_metrics[0]); m++) {
		snprintf(name, sizeof(name), REPORT_METRIC_PREFIX "%s", cluster_metrics[m]);
		snprintf(q, sizeof(q),
			 "sum by (instance, operation, le, behind, direction, fstype, mount, op, class, procedure) (max_over_time(%s{jobid=\"%lu\"}[%llds]))",
			 name, r->job, range);
		if (cluster_query(c, r, p, q, at, &v) < 0)
			return -1;
		for (i = 0; i < v.n; i++) {
			struct cluster_node *n;
			struct prom_sample s = { name, v.s[i].labels, v.s[i].value };

			if (cluster_late(c, r, i)) {
				promapi_vector_free(&v);
				return -1;
			}
			n = cluster_node_of(c, r, v.s[i].labels);
			if (n)
				report_take(&n->f, &s);
		}
		promapi_vector_free(&v);
	}
	/* The sets each node ran it with: spank_ebpf_job_info, from the
	 * node's textfile (another instance of the same host). */
	snprintf(q, sizeof(q), "max by (instance, sets) (max_over_time(spank_ebpf_job_info{jobid=\"%lu\"}[%llds]))",
		 r->job, range);
	if (cluster_query(c, r, p, q, at, &v) < 0)
		return -1;
	for (i = 0; i < v.n; i++) {
		struct cluster_node *n;
		char sets[sizeof(n->sets)];

		if (cluster_late(c, r, i)) {
			promapi_vector_free(&v);
			return -1;
		}
		n = cluster_node_of(c, r, v.s[i].labels);
		if (n && prom_label(v.s[i].labels, "sets", sets, sizeof(sets)))
			text_printable(sets, n->sets, sizeof(n->sets));
	}
	promapi_vector_free(&v);
	return cluster_read_late(c, r, p, range, at);
}

/* The nodes left out, in words for the report's errors: "series of 1
 * node outside job 5's nodes left out: otherclusternode7". */
static void cluster_left_out(struct cluster *c, const struct cluster_read *r)
{
	size_t i, len, shown = r->outside.n < 5 ? r->outside.n : 5;

	if (!r->outside.n)
		return;
	len = (size_t)snprintf(c->left_out, sizeof(c->left_out), "series of %s%zu node%s outside job %lu's nodes left out: ",
			       r->outside_more ? "more than " : "", r->outside.n,
			       r->outside.n == 1 && !r->outside_more ? "" : "s", r->job);
	for (i = 0; i < shown && len < sizeof(c->left_out); i++)
		len += (size_t)snprintf(c->left_out + len, sizeof(c->left_out) - len, "%s%s", i ? ", " : "",
					r->outside.name[i]);
	if (r->outside.n > shown && len < sizeof(c->left_out))
		snprintf(c->left_out + len, sizeof(c->left_out) - len, " and %s%zu more",
			 r->outside_more ? "over " : "", r->outside.n - shown);
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

/* Each series refused as damaged, in words ("node n1: SERIES: refused
 * as damaged: ..."): counted, on stderr, or as JSON strings (the
 * "errors"). A node's is said once, by the node; the whole job's only
 * when no node shown says it (its sum too large, or a node the summary
 * left out). How many. */
enum cluster_say { SAY_COUNT, SAY_TEXT, SAY_JSON };
static int cluster_damage(const struct cluster *c, const struct figures *all, enum cluster_say say,
			  struct json_object *errors)
{
	char where[CLUSTER_NODE_MAX + 16], words[400];
	unsigned int nodes = 0, bad;
	size_t i;
	int at, n = 0;

	for (i = 0; i <= c->n; i++) {
		if (i < c->n) {
			bad = report_damaged(&c->node[i].f);
			nodes |= bad;
			snprintf(where, sizeof(where), "node %s: ", c->node[i].name);
		} else {
			bad = report_damaged(all) & ~nodes;
			snprintf(where, sizeof(where), "whole job: ");
		}
		for (at = 0; report_damage_next(bad, &at, where, words, sizeof(words)); n++) {
			if (say == SAY_JSON)
				jsonout_append(errors, jsonout_string(words));
			else if (say == SAY_TEXT)
				fprintf(stderr, "spank-ebpf: report: %s\n", words); /* printable: names are */
		}
	}
	return n;
}

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
			 const struct figures *all, const struct cluster_source *src, const char *left_out)
{
	struct json_object *o = json_object_new_object(), *t = json_object_new_object(),
			   *hints = json_object_new_array(), *nodes = json_object_new_array(), *m;
	struct report_hint h[REPORT_HINTS_MAX];
	size_t i;
	int k, nh;

	jsonout_add(o, "job", jsonout_int((long long)job));
	jsonout_add(o, "user", jsonout_string(r->user));
	jsonout_add(o, "state", jsonout_string(r->state));
	jsonout_add(o, "nodes", jsonout_string(r->nodes));
	jsonout_add(o, "start", jsonout_int(r->start));
	jsonout_add(o, "end", r->end ? jsonout_int(r->end) : NULL);
	jsonout_add(o, "source", jsonout_string(src->summary ? "summary" : "prometheus"));
	if (src->summary)
		jsonout_add(o, "summary_at", jsonout_int(src->h->at));
	if (src->summary)
		jsonout_add(o, "summary_before_last_scrape", jsonout_bool(src->h->early));
	jsonout_add(o, "nodes_with_series", jsonout_int(src->summary ? (long long)src->h->nodes :
							 (long long)c->n));
	report_json_figures(t, all);
	jsonout_add(o, "total", t);
	nh = report_hints(all, h, REPORT_HINTS_MAX);
	for (k = 0; k < nh; k++) {
		m = json_object_new_object();
		jsonout_add(m, "key", jsonout_string(h[k].key));
		jsonout_add(m, "text", jsonout_string(h[k].text));
		jsonout_append(hints, m);
	}
	jsonout_add(o, "hints", hints);
	for (i = 0; i < c->n; i++) {
		m = json_object_new_object();
		jsonout_add(m, "node", jsonout_string(c->node[i].name));
		jsonout_add(m, "sets", jsonout_string(c->node[i].sets));
		report_json_figures(m, &c->node[i].f);
		jsonout_append(nodes, m);
	}
	jsonout_add(o, "per_node", nodes);
	m = json_object_new_array();
	if (left_out[0])
		jsonout_append(m, jsonout_string(left_out));
	cluster_damage(c, all, SAY_JSON, m);
	jsonout_add(o, "errors", m);
	jsonout_print(stdout, o);
}

int report_cluster_collect(const struct config *cfg, unsigned long job, const struct job_range *jr,
			   long long deadline, struct cluster *c, struct figures *all)
{
	struct promapi p = { 0 };
	struct cluster_read r = { .job = job, .deadline = deadline, .timeout = cfg->timeout };
	double wall = promapi_now();
	long long now = (long long)wall, stop = jr->end ? jr->end : now, range;
	double at = stop + CLUSTER_SLACK_S < now ? (double)(stop + CLUSTER_SLACK_S) : wall;
	char why[200], shown[4 * sizeof(jr->nodes)];
	size_t i;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	memset(all, 0, sizeof(*all));
	all->elapsed = stop > jr->start ? stop - jr->start : 0;
	range = stop - jr->start + 2 * CLUSTER_SLACK_S;
	/* Only the job's nodes: one Prometheus may scrape several clusters,
	 * whose job IDs collide. */
	if (hostlist_expand(jr->nodes, CLUSTER_NODES_MAX, &r.nodes, why, sizeof(why)) < 0) {
		snprintf(c->failed, sizeof(c->failed),
			 "Slurm's node list of job %lu, \"%.200s\", cannot be read (%s): its series could not be told from those of other nodes",
			 job, text_printable(jr->nodes, shown, sizeof(shown)), why);
		return -1;
	}
	r.slot = malloc(r.nodes.n * sizeof(*r.slot));
	if (!r.slot) {
		snprintf(c->failed, sizeof(c->failed), "out of memory");
		goto out;
	}
	for (i = 0; i < r.nodes.n; i++)
		r.slot[i] = -1;
	p.url = cfg->prometheus;
	p.cacert = cfg->prometheus_ca;
	p.netrc = cfg->prometheus_netrc;
	p.timeout = cfg->timeout;
	rc = cluster_read(c, &r, &p, range, at);
	promapi_close(&p);
	if (rc < 0) {
		report_cluster_free(c);
		goto out;
	}
	cluster_left_out(c, &r);
	if (c->n > 1)
		qsort(c->node, c->n, sizeof(c->node[0]), cluster_by_name);
	for (i = 0; i < c->n; i++) {
		c->node[i].f.elapsed = all->elapsed;
		report_runq_total(&c->node[i].f);
		report_figures_add(all, &c->node[i].f);
	}
	report_runq_total(all);
	rc = 0;
out:
	free(r.slot);
	hostlist_free(&r.nodes);
	hostlist_free(&r.outside);
	return rc;
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
	char why[400], left_out[sizeof(c.left_out)];
	long long now = (long long)time(NULL), deadline = clock_us() + cmd->cfg.timeout * 1000000LL;
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
		rc = report_cluster_collect(&cmd->cfg, job, &r, deadline, &c, &all);
		/* Said whatever comes next (the summary's figures replace c). */
		snprintf(left_out, sizeof(left_out), "%s", c.left_out);
		if (left_out[0] && !json)
			fprintf(stderr, "spank-ebpf: report: %s\n", left_out);
		if (rc < 0) {
			/* promapi's words are printable already. */
			fprintf(stderr, "spank-ebpf: report: %s\n", c.failed);
			if (!r.end)
				return EXIT_UNSURE;
			report_cluster_free(&c);
			report_figures_free(&all);
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
			report_cluster_free(&c);
			report_figures_free(&all);
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
	/* A series refused as damaged: said, the rest shown, exit 1 (as a
	 * node's report with a set it could not read). */
	rc = cluster_damage(&c, &all, json ? SAY_COUNT : SAY_TEXT, NULL);
	if (json)
		cluster_json(&r, job, &c, &all, &src, left_out);
	else
		cluster_text(&r, job, &c, &all, &src);
	report_cluster_free(&c);
	report_figures_free(&all);
	return rc ? EXIT_ANOMALY : EXIT_OK;
}
