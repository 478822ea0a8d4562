/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top: the running jobs that hold probe sets, ranked by their figures
 * now, from Prometheus (prometheus= on the plugin's line), refreshed
 * every few seconds: the full screen (top_screen.c) on a terminal, the
 * plain text or JSON otherwise.
 *
 * Who sees what: Slurm says, as for report. squeue runs as the caller
 * (PrivateData=jobs applies); a caller who is neither root nor one of
 * Slurm's operators or administrators (sacctmgr's AdminLevel, asked once)
 * is shown their own jobs only, whatever squeue would list. Prometheus'
 * answers count only for the jobs of that list, and only from their own
 * nodes: every other series is left out and said.
 *
 * Bounded: one squeue, then TOP_QUERIES instant queries a refresh (one
 * per figure), each ranked by Prometheus itself (topk) to at most
 * TOP_TOPK series, all within timeout= of the plugin's line, each answer
 * within promapi's bounds. Whatever Slurm or Prometheus says is made
 * printable before it is shown. */
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "hostlist.h"
#include "jsonout.h"
#include "promapi.h"
#include "promtext.h"
#include "report.h"
#include "slurmjobs.h"
#include "spank-ebpf.h"
#include "text.h"
#include "top.h"

/* Each query's ranking on the server's side: its most series. */
#define TOP_TOPK 1000
/* The rates' range: at least a few scrapes. */
#define TOP_WINDOW_MIN 60
#define TOP_DELAY_MIN 1
#define TOP_DELAY_MAX 3600
#define TOP_DELAY_DEFAULT 5
#define TOP_NODES_MAX 4096

enum {
	TOPT_ONCE,
	TOPT_JSON,
	TOPT_DELAY,
	TOPT_ITERATIONS,
	TOPT_SORT,
	TOPT_USER,
	TOPT_PARTITION,
	TOPT_NODE,
	TOPT_SQUEUE,
	TOPT_N
};

const struct option_spec top_options[] = {
	[TOPT_ONCE] = { "once", NULL, "one refresh as plain text, then exit (as when standard output is not a terminal)", 0 },
	[TOPT_JSON] = { "json", NULL, "one JSON object a refresh instead of text", 0 },
	[TOPT_DELAY] = { "delay", "SECONDS", "between refreshes, 1 to 3600 (default 5)", OPT_LETTER('d') },
	[TOPT_ITERATIONS] = { "iterations", "N", "stop after N refreshes", OPT_LETTER('n') },
	[TOPT_SORT] = { "sort", "COLUMN", "jobid, user, partition, nodes, io, p99, fs, cpu, behind, retrans, oom (default io)", OPT_LETTER('s') },
	[TOPT_USER] = { "user", "USER", "only USER's jobs", OPT_LETTER('u') },
	[TOPT_PARTITION] = { "partition", "NAME", "only the jobs of partition NAME", OPT_LETTER('p') },
	[TOPT_NODE] = { "node", "NODE", "only the jobs running on NODE", 0 },
	[TOPT_SQUEUE] = { "squeue", "PATH", "the squeue to ask (sacctmgr beside it)", 0 },
	[TOPT_N] = { NULL, NULL, NULL, 0 },
};

/* Each column: its heading, width, --sort and JSON key; figures sort
 * largest first, words A to Z. */
static const struct {
	const char *heading;
	int width;
	const char *key;
	const char *json;
	bool text;
} top_cols[TOP_COLS] = {
	[TOP_JOBID] = { "JOBID", 8, "jobid", "job", false },
	[TOP_USER] = { "USER", 10, "user", "user", true },
	[TOP_PARTITION] = { "PARTITION", 10, "partition", "partition", true },
	[TOP_NODES] = { "NODES", 5, "nodes", "node_count", false },
	[TOP_IO_BPS] = { "IO/s", 8, "io", "io_bytes_per_s", false },
	[TOP_IO_P99] = { "IO-p99", 8, "p99", "io_p99_seconds", false },
	[TOP_FS_OPS] = { "FS-meta/s", 15, "fs", "fs_meta_ops_per_s", false },
	[TOP_CPU_WAIT] = { "CPUWAIT", 7, "cpu", "cpu_wait_share", false },
	[TOP_BEHIND] = { "BEHIND", 12, "behind", "behind_share", false },
	[TOP_RETRANS] = { "RETRANS/s", 9, "retrans", "tcp_retransmits_per_s", false },
	[TOP_OOM] = { "OOM", 4, "oom", "oom_kills", false },
};


/* One query a figure (TOP_QUERIES a refresh), for the jobs matcher
 * names, over the last window seconds. Each sums by job and node (the
 * node decides whose series it is) and is ranked by Prometheus (topk).
 * -1 when it does not fit buf. */
static int top_promql(int col, const char *matcher, unsigned int window, char *buf, size_t len)
{
	int n = -1;

#define P REPORT_METRIC_PREFIX
	switch (col) {
	case TOP_IO_BPS:
		n = snprintf(buf, len, "topk(%d, sum by (jobid, instance) (rate(" P "io_bytes_total{%s}[%us])))",
			     TOP_TOPK, matcher, window);
		break;
	case TOP_IO_P99:
		/* NaN (nothing measured) is not > 0: left out there. */
		n = snprintf(buf, len, "topk(%d, histogram_quantile(0.99, sum by (jobid, instance, le) (rate(" P
			     "io_latency_seconds_bucket{%s}[%us]))) > 0)", TOP_TOPK, matcher, window);
		break;
	case TOP_FS_OPS:
		n = snprintf(buf, len, "topk(%d, sum by (jobid, instance, fstype) (rate(" P
			     "fs_meta_ops_total{%s,fstype=~\"%s\"}[%us])))",
			     TOP_TOPK, matcher, report_fs_network_regex(), window);
		break;
	case TOP_CPU_WAIT:
		n = snprintf(buf, len, "topk(%d, sum by (jobid, instance) (rate(" P
			     "sched_pressure_microseconds_total{%s}[%us])) / 1e6)", TOP_TOPK, matcher, window);
		break;
	case TOP_BEHIND:
		n = snprintf(buf, len, "topk(%d, sum by (jobid, instance, behind) (rate(" P
			     "sched_runq_latency_seconds_sum{%s}[%us])))", TOP_TOPK, matcher, window);
		break;
	case TOP_RETRANS:
		n = snprintf(buf, len, "topk(%d, sum by (jobid, instance) (rate(" P
			     "net_tcp_retransmits_total{%s}[%us])))", TOP_TOPK, matcher, window);
		break;
	case TOP_OOM:
		/* Counted from 0 while the job holds the set: its kills. */
		n = snprintf(buf, len, "topk(%d, sum by (jobid, instance) (" P "oom_kills_total{%s}))", TOP_TOPK,
			     matcher);
		break;
	default:
		break;
	}
#undef P
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The words of the behind classes, short (report_figures.c's order). */
static const char *const top_behind_words[BEHINDS] = { "other-jobs", "own-job", "outside", "idle" };
static const char *const top_behind_labels[BEHINDS] = { "other_jobs", "own_job", "outside_jobs",
							"idle_cpu" };

const char *top_col_heading(enum top_col c)
{
	return top_cols[c].heading;
}

int top_col_width(enum top_col c)
{
	return top_cols[c].width;
}

bool top_col_left(enum top_col c)
{
	return top_cols[c].text;
}

static void top_figs_clear(struct top_figs *f)
{
	int c;

	memset(f, 0, sizeof(*f));
	for (c = 0; c < TOP_COLS; c++)
		f->v[c] = NAN;
}

static void top_fs_add(struct top_figs *f, const char *fstype, double v);

/* A figure added into a job's or node's: sums, the worst p99, the CPU
 * share averaged later; fstype names the fs column's (NULL: counted,
 * not named). */
static void top_figs_add(struct top_figs *f, int col, double v, const char *fstype, int behind)
{
	if (col == TOP_IO_P99) {
		if (isnan(f->v[col]) || v > f->v[col])
			f->v[col] = v;
		return;
	}
	if (col == TOP_BEHIND) {
		f->behind_s[behind] += v;
		f->v[col] = 0; /* its share once all are in: top_figs_done */
		return;
	}
	if (col == TOP_CPU_WAIT)
		f->cpu_nodes++;
	f->v[col] = isnan(f->v[col]) ? v : f->v[col] + v;
	if (col == TOP_FS_OPS && fstype)
		top_fs_add(f, fstype, v);
}

/* ops of fstype named in f's list (at most TOP_FSTYPES_MAX named; the
 * total counts them all). */
static void top_fs_add(struct top_figs *f, const char *fstype, double v)
{
	int k;

	for (k = 0; k < f->nfs && strcmp(f->fs[k].type, fstype); k++)
		;
	if (k == f->nfs) {
		if (f->nfs == TOP_FSTYPES_MAX)
			return; /* counted in the total, not named */
		snprintf(f->fs[k].type, sizeof(f->fs[k].type), "%s", fstype);
		f->fs[k].ops = 0;
		f->nfs++;
	}
	f->fs[k].ops += v;
}

static int top_fs_by_ops(const void *a, const void *b)
{
	double x = ((const struct top_fs *)a)->ops, y = ((const struct top_fs *)b)->ops;

	return x < y ? 1 : x > y ? -1 : strcmp(((const struct top_fs *)a)->type, ((const struct top_fs *)b)->type);
}

/* The figures that are made of others: the CPU share averaged over the
 * nodes that counted it, the behind class with the most of the wait. */
static void top_figs_done(struct top_figs *f)
{
	double all = 0, most = 0;
	int b;

	if (f->cpu_nodes > 1)
		f->v[TOP_CPU_WAIT] /= f->cpu_nodes;
	for (b = 0; b < BEHINDS; b++) {
		all += f->behind_s[b];
		if (f->behind_s[b] > most)
			most = f->behind_s[b];
	}
	if (!isnan(f->v[TOP_BEHIND]))
		f->v[TOP_BEHIND] = all > 0 ? most / all : 0;
	if (f->nfs > 1)
		qsort(f->fs, (size_t)f->nfs, sizeof(f->fs[0]), top_fs_by_ops);
}

/* The behind class with the most of the wait, or -1. */
static int top_behind_most(const struct top_figs *f)
{
	double most = 0;
	int b, at = -1;

	for (b = 0; b < BEHINDS; b++)
		if (f->behind_s[b] > most) {
			most = f->behind_s[b];
			at = b;
		}
	return at;
}

/* A rate as 4 significant figures at most, with k, M, G. */
static void top_si(double v, const char *unit, char *buf, size_t len)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P" };
	int i = 0;

	while (fabs(v) >= 999.5 && i < 5) {
		v /= 1000;
		i++;
	}
	if (i == 0 && v != floor(v))
		snprintf(buf, len, "%.1f%s", v, unit);
	else
		snprintf(buf, len, "%.*f%s%s", i && v < 99.95 ? 1 : 0, v, pre[i], unit);
}

static void top_seconds(double s, char *buf, size_t len)
{
	if (s >= 1)
		snprintf(buf, len, "%.2fs", s);
	else if (s >= 1e-3)
		snprintf(buf, len, "%.1fms", s * 1e3);
	else
		snprintf(buf, len, "%.0fus", s * 1e6);
}

void top_cell(const struct top_row *r, const struct top_node *node, enum top_col c, char *buf,
	      size_t len)
{
	const struct top_figs *f = node ? &node->f : &r->f;
	char shown[4 * sizeof(r->j.nodes)];
	double v = f->v[c];
	int b;

	switch (c) {
	case TOP_JOBID:
		snprintf(buf, len, "%u", r->j.job);
		return;
	case TOP_USER:
		text_printable(r->j.user, shown, sizeof(shown));
		snprintf(buf, len, "%s", shown);
		return;
	case TOP_PARTITION:
		text_printable(r->j.partition, shown, sizeof(shown));
		snprintf(buf, len, "%s", shown);
		return;
	case TOP_NODES:
		if (node)
			snprintf(buf, len, "%s", node->name); /* printable already */
		else
			snprintf(buf, len, "%zu", r->node_count);
		return;
	default:
		break;
	}
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (c) {
	case TOP_IO_BPS:
		top_si(v, "B", buf, len);
		break;
	case TOP_IO_P99:
		top_seconds(v, buf, len);
		break;
	case TOP_FS_OPS: {
		char n[16];

		top_si(v, "", n, sizeof(n));
		snprintf(buf, len, "%s%s%s%s", n, f->nfs ? " " : "", f->nfs ? f->fs[0].type : "",
			 f->nfs > 1 ? "+" : "");
		break;
	}
	case TOP_CPU_WAIT:
		snprintf(buf, len, "%.0f%%", v * 100);
		break;
	case TOP_BEHIND:
		b = top_behind_most(f);
		if (b < 0)
			snprintf(buf, len, "none");
		else
			snprintf(buf, len, "%s %.0f%%", top_behind_words[b], v * 100);
		break;
	case TOP_RETRANS:
		top_si(v, "", buf, len);
		break;
	case TOP_OOM:
		snprintf(buf, len, "%.0f", v);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
}

/* --- gathering ---------------------------------------------------------- */

/* What one refresh reads beside the rows: each job's nodes expanded,
 * the counts of what was left out, the deadline. */
struct top_read {
	struct hostlist *nodes; /* per row */
	long long deadline;
	unsigned int timeout;
	size_t foreign_job, foreign_node, damaged;
	char foreign_node_name[CLUSTER_NODE_MAX];
};

static int top_by_job(const void *a, const void *b)
{
	uint32_t x = ((const struct top_row *)a)->j.job, y = ((const struct top_row *)b)->j.job;

	return x < y ? -1 : x > y;
}

/* The row of job (rows sorted by job), or NULL. */
static struct top_row *top_row_of(struct top_view *v, const char *labels)
{
	struct top_row key;
	char id[16], *end;
	unsigned long n;

	if (!prom_label(labels, "jobid", id, sizeof(id)) || !id[0] || strspn(id, "0123456789") != strlen(id))
		return NULL;
	n = strtoul(id, &end, 10);
	if (n > UINT32_MAX)
		return NULL;
	key.j.job = (uint32_t)n;
	return bsearch(&key, v->row, v->n, sizeof(*v->row), top_by_job);
}

static struct top_node *top_node_of(struct top_row *r, const char *name)
{
	size_t i;
	struct top_node *more;

	for (i = 0; i < r->nn; i++)
		if (!strcmp(r->node[i].name, name))
			return &r->node[i];
	more = realloc(r->node, (r->nn + 1) * sizeof(*more));
	if (!more)
		return NULL;
	r->node = more;
	memset(&r->node[r->nn], 0, sizeof(r->node[0]));
	snprintf(r->node[r->nn].name, sizeof(r->node[0].name), "%s", name);
	top_figs_clear(&r->node[r->nn].f);
	return &r->node[r->nn++];
}

/* The jobs' matcher: their IDs when they fit a query (a user's few
 * jobs: topk then ranks among them alone), else any job's series (an
 * operator's whole cluster; the rows keep the listed jobs' only). */
static void top_matcher(const struct top_view *v, char *buf, size_t len)
{
	size_t i, off;

	snprintf(buf, len, "jobid!=\"\"");
	if (v->n == 0 || v->n > 60)
		return;
	off = (size_t)snprintf(buf, len, "jobid=~\"");
	for (i = 0; i < v->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? "|" : "", v->row[i].j.job);
	if (off + 2 >= len) {
		snprintf(buf, len, "jobid!=\"\"");
		return;
	}
	snprintf(buf + off, len - off, "\"");
}

/* One column's query, its samples into the rows. 0, or -1 with
 * v->failed[col] said. */
static int top_query(struct top_view *v, struct top_read *rd, struct promapi *p, int col,
		     const char *matcher)
{
	int q = col - TOP_FIRST_FIGURE;
	struct promapi_vector vec;
	long long left = rd->deadline - clock_us();
	char promql[1024], err[600], host[CLUSTER_NODE_MAX];
	size_t i;

	if (left < 500000) {
		snprintf(v->failed[q], sizeof(v->failed[q]),
			 "%s: not asked: the refresh's time ran out (timeout=%u s on the plugin's line)",
			 top_cols[col].heading, rd->timeout);
		return -1;
	}
	p->timeout = left / 1000000 < (long long)rd->timeout ? (unsigned int)(left / 1000000) : rd->timeout;
	if (p->timeout == 0)
		p->timeout = 1;
	if (top_promql(col, matcher, v->window, promql, sizeof(promql)) < 0) {
		snprintf(v->failed[q], sizeof(v->failed[q]), "%s: not asked: the query is too long",
			 top_cols[col].heading);
		return -1;
	}
	if (promapi_query(p, promql, v->at, &vec, err, sizeof(err)) < 0) {
		/* promapi's words are printable already. */
		snprintf(v->failed[q], sizeof(v->failed[q]), "%s: Prometheus cannot be read: %.300s",
			 top_cols[col].heading, err);
		return -1;
	}
	if (vec.n >= TOP_TOPK)
		snprintf(v->failed[q], sizeof(v->failed[q]),
			 "%s: only the %d largest series of job and node asked: more may be missing",
			 top_cols[col].heading, TOP_TOPK);
	for (i = 0; i < vec.n; i++) {
		const char *labels = vec.s[i].labels;
		double val = vec.s[i].value;
		struct top_row *r = top_row_of(v, labels);
		struct top_node *n;
		char fstype[TOP_FSTYPE_MAX * 4] = "", behind[32];
		int b = 0;
		long k;

		if (!r) {
			rd->foreign_job++;
			continue;
		}
		k = cluster_instance_host(&rd->nodes[r - v->row], labels, host, sizeof(host));
		if (k < 0) {
			rd->foreign_node++;
			text_printable(host, rd->foreign_node_name, sizeof(rd->foreign_node_name));
			continue;
		}
		if (!isfinite(val) || val < 0) {
			rd->damaged++;
			continue;
		}
		if (col == TOP_FS_OPS) {
			char raw[TOP_FSTYPE_MAX];

			if (!prom_label(labels, "fstype", raw, sizeof(raw)))
				snprintf(raw, sizeof(raw), "?");
			text_printable(raw, fstype, sizeof(fstype));
			fstype[TOP_FSTYPE_MAX - 1] = 0;
		}
		if (col == TOP_BEHIND) {
			if (!prom_label(labels, "behind", behind, sizeof(behind)))
				continue;
			for (b = 0; b < BEHINDS && strcmp(behind, top_behind_labels[b]); b++)
				;
			if (b == BEHINDS)
				continue; /* a class this release does not know */
		}
		n = top_node_of(r, rd->nodes[r - v->row].name[k]);
		if (!n)
			continue;
		top_figs_add(&n->f, col, val, fstype, b);
		r->any = true;
	}
	promapi_vector_free(&vec);
	return 0;
}

static int top_node_by_name(const void *a, const void *b)
{
	return strcmp(((const struct top_node *)a)->name, ((const struct top_node *)b)->name);
}

static void top_rows_free(struct top_view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->row[i].node);
	free(v->row);
	v->row = NULL;
	v->n = 0;
}

/* The caller's own user name, for Slurm's filters. */
static const char *top_self(void)
{
	static char name[64];
	struct passwd *pw;

	if (name[0])
		return name;
	pw = getpwuid(getuid());
	if (pw && strlen(pw->pw_name) < sizeof(name))
		snprintf(name, sizeof(name), "%s", pw->pw_name);
	else
		snprintf(name, sizeof(name), "%u", (unsigned)getuid());
	return name;
}

/* The filters applied here too, as Slurm's own (--user: a name or a
 * uid), whatever squeue listed. */
static bool top_wanted(const struct top_filter *f, const struct running_job *j)
{
	char uid[24];

	snprintf(uid, sizeof(uid), "%lld", j->uid);
	if (f->user[0] && strcmp(f->user, j->user) && strcmp(f->user, uid))
		return false;
	return !f->partition[0] || !strcmp(f->partition, j->partition);
}

void top_refresh(struct top_ctx *t)
{
	struct top_view *v = &t->v;
	struct running_ask q = { NULL, NULL, NULL };
	struct running_job *jobs = NULL;
	struct promapi p = { 0 };
	struct top_read rd = { 0 };
	char why[600], matcher[700];
	size_t i, n = 0, k;
	int c;

	top_rows_free(v);
	memset(v->failed, 0, sizeof(v->failed));
	v->left_out[0] = v->slurm_failed[0] = 0;
	v->running = 0;
	v->at = promapi_now();
	rd.timeout = t->cmd->cfg.timeout;
	rd.deadline = clock_us() + (long long)rd.timeout * 1000000LL;
	/* A user who may see only their own jobs asks for those alone. */
	q.user = v->filter.user[0] ? v->filter.user : NULL;
	if (!v->all_users && !q.user)
		q.user = top_self();
	q.partition = v->filter.partition[0] ? v->filter.partition : NULL;
	q.node = v->filter.node[0] ? v->filter.node : NULL;
	t->cmd->ask.timeout = rd.timeout;
	if (slurmjobs_running(&t->cmd->ask, &q, &jobs, &n, why, sizeof(why)) < 0) {
		char shown[4 * sizeof(why)];

		snprintf(v->slurm_failed, sizeof(v->slurm_failed), "Slurm cannot tell which jobs run: %.500s",
			 text_printable(why, shown, sizeof(shown)));
		return;
	}
	v->row = calloc(n ? n : 1, sizeof(*v->row));
	rd.nodes = calloc(n ? n : 1, sizeof(*rd.nodes));
	if (!v->row || !rd.nodes) {
		snprintf(v->slurm_failed, sizeof(v->slurm_failed), "out of memory");
		free(jobs);
		free(v->row);
		v->row = NULL;
		free(rd.nodes);
		return;
	}
	for (i = 0; i < n; i++) {
		/* Not the caller's to see: never shown, whatever squeue listed. */
		if (!v->all_users && jobs[i].uid != (long long)getuid())
			continue;
		if (!top_wanted(&v->filter, &jobs[i]))
			continue;
		v->row[v->n].j = jobs[i];
		top_figs_clear(&v->row[v->n].f);
		v->n++;
	}
	free(jobs);
	v->running = v->n;
	qsort(v->row, v->n, sizeof(*v->row), top_by_job);
	for (i = k = 0; i < v->n; i++) {
		if (hostlist_expand(v->row[i].j.nodes, TOP_NODES_MAX, &rd.nodes[k], why, sizeof(why)) < 0)
			rd.nodes[k].n = 0; /* no node of it counts: its series are left out */
		/* --node as Slurm's --nodelist, in case Slurm's list was wider. */
		if (v->filter.node[0] && hostlist_find(&rd.nodes[k], v->filter.node) < 0) {
			hostlist_free(&rd.nodes[k]);
			continue;
		}
		v->row[k] = v->row[i];
		v->row[k].node_count = rd.nodes[k].n;
		k++;
	}
	v->n = v->running = k;
	p.url = t->cmd->cfg.prometheus;
	p.cacert = t->cmd->cfg.prometheus_ca;
	p.netrc = t->cmd->cfg.prometheus_netrc;
	p.timeout = rd.timeout;
	top_matcher(v, matcher, sizeof(matcher));
	/* Each column by itself: one that fails leaves the others shown. */
	for (c = TOP_FIRST_FIGURE; v->n && c < TOP_COLS; c++)
		top_query(v, &rd, &p, c, matcher);
	promapi_close(&p);
	for (i = 0; i < v->n; i++) {
		struct top_row *r = &v->row[i];

		for (k = 0; k < r->nn; k++) {
			int col;

			top_figs_done(&r->node[k].f);
			for (col = TOP_FIRST_FIGURE; col < TOP_COLS; col++) {
				const struct top_figs *nf = &r->node[k].f;
				int f;

				if (isnan(nf->v[col]))
					continue;
				if (col == TOP_BEHIND) {
					int b;

					for (b = 0; b < BEHINDS; b++)
						top_figs_add(&r->f, col, nf->behind_s[b], NULL, b);
				} else if (col == TOP_FS_OPS) {
					top_figs_add(&r->f, col, nf->v[col], NULL, 0);
					for (f = 0; f < nf->nfs; f++)
						top_fs_add(&r->f, nf->fs[f].type, nf->fs[f].ops);
				} else {
					top_figs_add(&r->f, col, nf->v[col], NULL, 0);
				}
			}
		}
		top_figs_done(&r->f);
		if (r->nn > 1)
			qsort(r->node, r->nn, sizeof(*r->node), top_node_by_name);
		hostlist_free(&rd.nodes[i]);
	}
	free(rd.nodes);
	/* Only the jobs with series are rows. */
	for (i = k = 0; i < v->n; i++) {
		if (v->row[i].any)
			v->row[k++] = v->row[i];
		else
			free(v->row[i].node);
	}
	v->n = k;
	if (rd.foreign_job || rd.foreign_node || rd.damaged) {
		size_t off = 0;

		if (rd.foreign_job)
			off += (size_t)snprintf(v->left_out + off, sizeof(v->left_out) - off,
						"%zu series of jobs not in Slurm's list%s left out", rd.foreign_job,
						v->all_users ? "" : " (not yours)");
		if (rd.foreign_node && off < sizeof(v->left_out))
			off += (size_t)snprintf(v->left_out + off, sizeof(v->left_out) - off,
						"%s%zu series of nodes outside their job's nodes (such as %s) left out",
						off ? "; " : "", rd.foreign_node, rd.foreign_node_name);
		if (rd.damaged && off < sizeof(v->left_out))
			snprintf(v->left_out + off, sizeof(v->left_out) - off,
				 "%s%zu values that are not finite figures refused", off ? "; " : "", rd.damaged);
	}
	top_sort(v);
}

/* --- order -------------------------------------------------------------- */

static enum top_col top_sort_col;

/* Figures largest first, words and IDs from the start; no series last,
 * whichever way. */
static int top_cmp(const struct top_row *a, const struct top_row *b, bool reverse)
{
	enum top_col c = top_sort_col;
	int r = 0;

	switch (c) {
	case TOP_JOBID:
		r = a->j.job < b->j.job ? -1 : a->j.job > b->j.job;
		break;
	case TOP_USER:
		r = strcmp(a->j.user, b->j.user);
		break;
	case TOP_PARTITION:
		r = strcmp(a->j.partition, b->j.partition);
		break;
	case TOP_NODES:
		r = a->node_count < b->node_count ? 1 : a->node_count > b->node_count ? -1 : 0;
		break;
	default: {
		double x = a->f.v[c], y = b->f.v[c];

		if (isnan(x) || isnan(y))
			return isnan(x) && isnan(y) ? (a->j.job < b->j.job ? -1 : a->j.job > b->j.job) :
			       isnan(x) ? 1 : -1;
		r = x < y ? 1 : x > y ? -1 : 0;
		break;
	}
	}
	if (r == 0)
		return a->j.job < b->j.job ? -1 : a->j.job > b->j.job;
	return reverse ? -r : r;
}

static int top_cmp_fwd(const void *a, const void *b)
{
	return top_cmp(a, b, false);
}

static int top_cmp_rev(const void *a, const void *b)
{
	return top_cmp(a, b, true);
}

void top_sort(struct top_view *v)
{
	top_sort_col = v->sort;
	qsort(v->row, v->n, sizeof(*v->row), v->reverse ? top_cmp_rev : top_cmp_fwd);
}

/* --- words -------------------------------------------------------------- */

void top_title(const struct top_ctx *t, char *buf, size_t len)
{
	const struct top_view *v = &t->v;
	char clock[16], filt[4 * sizeof(v->filter) + 64] = "", shown[4 * CLUSTER_NODE_MAX];
	time_t now = (time_t)v->at;
	struct tm tm;
	size_t off = 0;

	if (!localtime_r(&now, &tm) || !strftime(clock, sizeof(clock), "%H:%M:%S", &tm))
		snprintf(clock, sizeof(clock), "-");
	if (v->filter.user[0])
		off += (size_t)snprintf(filt + off, sizeof(filt) - off, ", user %s",
					text_printable(v->filter.user, shown, sizeof(shown)));
	if (v->filter.partition[0] && off < sizeof(filt))
		off += (size_t)snprintf(filt + off, sizeof(filt) - off, ", partition %s",
					text_printable(v->filter.partition, shown, sizeof(shown)));
	if (v->filter.node[0] && off < sizeof(filt))
		snprintf(filt + off, sizeof(filt) - off, ", node %s",
			 text_printable(v->filter.node, shown, sizeof(shown)));
	snprintf(buf, len, "spank-ebpf top %s: %zu job%s with series of %zu running (%s)%s; rates over %u s, every %u s; sorted by %s%s",
		 clock, v->n, v->n == 1 ? "" : "s", v->running, v->all_users ? "all users" : "your jobs only",
		 filt, v->window, t->delay, top_cols[v->sort].heading, v->reverse ? ", reversed" : "");
}

bool top_note_next(const struct top_view *v, int *at, char *buf, size_t len)
{
	for (; *at <= TOP_QUERIES + 1; (*at)++) {
		if (*at == 0 && v->slurm_failed[0]) {
			snprintf(buf, len, "%s", v->slurm_failed);
			(*at)++;
			return true;
		}
		if (*at >= 1 && *at <= TOP_QUERIES && v->failed[*at - 1][0]) {
			snprintf(buf, len, "partial: %s", v->failed[*at - 1]);
			(*at)++;
			return true;
		}
		if (*at == TOP_QUERIES + 1 && v->left_out[0]) {
			snprintf(buf, len, "left out: %s", v->left_out);
			(*at)++;
			return true;
		}
	}
	return false;
}

/* The header and rows as plain text, each cell its column's width. */
static void top_text(const struct top_ctx *t, FILE *f)
{
	const struct top_view *v = &t->v;
	char line[1024], cell[256];
	size_t i;
	int c, at = 0;

	top_title(t, line, sizeof(line));
	fprintf(f, "%s\n", line);
	for (c = 0; c < TOP_COLS; c++)
		fprintf(f, "%s%*s", c ? " " : "", top_cols[c].text ? -top_cols[c].width : top_cols[c].width,
			top_cols[c].heading);
	fputc('\n', f);
	for (i = 0; i < v->n; i++) {
		for (c = 0; c < TOP_COLS; c++) {
			top_cell(&v->row[i], NULL, (enum top_col)c, cell, sizeof(cell));
			fprintf(f, "%s%*s", c ? " " : "", top_cols[c].text ? -top_cols[c].width : top_cols[c].width,
				cell);
		}
		fputc('\n', f);
	}
	if (v->n == 0 && !v->slurm_failed[0])
		fprintf(f, "no running job %swith series of the probe sets\n", v->all_users ? "" : "of yours ");
	while (top_note_next(v, &at, line, sizeof(line)))
		fprintf(f, "%s\n", line);
}

/* A figure's JSON value: null for no series. */
static struct json_object *top_json_num(double v)
{
	return isnan(v) ? NULL : jsonout_double_g(v, 6);
}

static void top_json_figs(struct json_object *o, const struct top_figs *f)
{
	struct json_object *fs = json_object_new_object(), *beh = json_object_new_object();
	int c, k, b;

	for (c = TOP_FIRST_FIGURE; c < TOP_COLS; c++)
		jsonout_add(o, top_cols[c].json, top_json_num(f->v[c]));
	for (k = 0; k < f->nfs; k++)
		jsonout_add(fs, f->fs[k].type, jsonout_double_g(f->fs[k].ops, 6));
	jsonout_add(o, "fs_meta_ops_by_fstype", fs);
	b = top_behind_most(f);
	jsonout_add(o, "behind", b < 0 ? NULL : jsonout_string(top_behind_labels[b]));
	for (b = 0; !isnan(f->v[TOP_BEHIND]) && b < BEHINDS; b++)
		jsonout_add(beh, top_behind_labels[b], jsonout_double_g(f->behind_s[b], 6));
	jsonout_add(o, "behind_seconds_per_s", beh);
}

static void top_json(const struct top_ctx *t, FILE *out)
{
	const struct top_view *v = &t->v;
	struct json_object *o = json_object_new_object(), *rows = json_object_new_array(),
			   *notes = json_object_new_array();
	char line[1024];
	size_t i, k;
	int at = 0;

	jsonout_add(o, "time", jsonout_double(v->at, 3));
	jsonout_add(o, "window_seconds", jsonout_int(v->window));
	jsonout_add(o, "all_users", jsonout_bool(v->all_users));
	jsonout_add(o, "running", jsonout_int((long long)v->running));
	jsonout_add(o, "sort", jsonout_string(top_cols[v->sort].key));
	jsonout_add(o, "reverse", jsonout_bool(v->reverse));
	for (i = 0; i < v->n; i++) {
		const struct top_row *r = &v->row[i];
		struct json_object *m = json_object_new_object(), *nodes = json_object_new_array();

		jsonout_add(m, "job", jsonout_int(r->j.job));
		jsonout_add(m, "user", jsonout_string(r->j.user));
		jsonout_add(m, "uid", jsonout_int(r->j.uid));
		jsonout_add(m, "partition", jsonout_string(r->j.partition));
		jsonout_add(m, "nodes", jsonout_string(r->j.nodes));
		jsonout_add(m, "node_count", jsonout_int((long long)r->node_count));
		top_json_figs(m, &r->f);
		for (k = 0; k < r->nn; k++) {
			struct json_object *nm = json_object_new_object();

			jsonout_add(nm, "node", jsonout_string(r->node[k].name));
			top_json_figs(nm, &r->node[k].f);
			jsonout_append(nodes, nm);
		}
		jsonout_add(m, "per_node", nodes);
		jsonout_append(rows, m);
	}
	jsonout_add(o, "jobs", rows);
	while (top_note_next(v, &at, line, sizeof(line)))
		jsonout_append(notes, jsonout_string(line));
	jsonout_add(o, "errors", notes);
	jsonout_print(out, o);
	fflush(out);
}

/* --- the command -------------------------------------------------------- */

static int top_col_by_key(const char *key)
{
	int c;

	for (c = 0; c < TOP_COLS; c++)
		if (!strcmp(key, top_cols[c].key))
			return c;
	return -1;
}

/* A number in [lo, hi], else -1. */
static long top_number(const char *s, long lo, long hi)
{
	char *end;
	long n;

	if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
		return -1;
	n = strtol(s, &end, 10);
	return n < lo || n > hi ? -1 : n;
}

/* The exit status of a refresh: 2 when nothing could be read, 1 when
 * the figures are partial, 0 when whole. */
static int top_status(const struct top_view *v)
{
	int q, failed = 0;

	if (v->slurm_failed[0])
		return EXIT_UNSURE;
	for (q = 0; q < TOP_QUERIES; q++)
		failed += v->failed[q][0] != 0;
	if (v->running && failed == TOP_QUERIES)
		return EXIT_UNSURE;
	return failed || v->left_out[0] ? EXIT_ANOMALY : EXIT_OK;
}

int cmd_top(struct cmd *cmd)
{
	static struct top_ctx t;
	const char *const *o = cmd->opt;
	bool json = o[TOPT_JSON] != NULL, once = o[TOPT_ONCE] != NULL;
	char why[400];
	long n;
	int col, rc = EXIT_OK;

	memset(&t, 0, sizeof(t));
	t.cmd = cmd;
	t.delay = TOP_DELAY_DEFAULT;
	t.v.sort = TOP_IO_BPS;
	if (o[TOPT_DELAY]) {
		n = top_number(o[TOPT_DELAY], TOP_DELAY_MIN, TOP_DELAY_MAX);
		if (n < 0)
			return usage_error(cmd, "--delay takes whole seconds from %d to %d, not \"%.40s\"",
					   TOP_DELAY_MIN, TOP_DELAY_MAX, o[TOPT_DELAY]);
		t.delay = (unsigned int)n;
	}
	if (o[TOPT_ITERATIONS]) {
		t.iterations = top_number(o[TOPT_ITERATIONS], 1, 100000000);
		if (t.iterations < 0)
			return usage_error(cmd, "--iterations takes a count from 1, not \"%.40s\"",
					   o[TOPT_ITERATIONS]);
	}
	if (o[TOPT_SORT]) {
		col = top_col_by_key(o[TOPT_SORT]);
		if (col < 0)
			return usage_error(cmd, "no column \"%.40s\" to sort by (jobid, user, partition, nodes, io, p99, fs, cpu, behind, retrans, oom)",
					   o[TOPT_SORT]);
		t.v.sort = (enum top_col)col;
	}
	if ((o[TOPT_USER] && strlen(o[TOPT_USER]) >= sizeof(t.v.filter.user)) ||
	    (o[TOPT_PARTITION] && strlen(o[TOPT_PARTITION]) >= sizeof(t.v.filter.partition)) ||
	    (o[TOPT_NODE] && strlen(o[TOPT_NODE]) >= sizeof(t.v.filter.node)))
		return usage_error(cmd, "a filter's name is too long");
	snprintf(t.v.filter.user, sizeof(t.v.filter.user), "%s", o[TOPT_USER] ? o[TOPT_USER] : "");
	snprintf(t.v.filter.partition, sizeof(t.v.filter.partition), "%s",
		 o[TOPT_PARTITION] ? o[TOPT_PARTITION] : "");
	snprintf(t.v.filter.node, sizeof(t.v.filter.node), "%s", o[TOPT_NODE] ? o[TOPT_NODE] : "");
	if (!cmd->cfg.prometheus[0]) {
		fprintf(stderr, "spank-ebpf: top: the plugin's line in \"%s\" has no prometheus=: no place to read the jobs' figures from\n",
			cmd->config_path);
		return EXIT_UNSURE;
	}
	t.v.window = 2 * t.delay > TOP_WINDOW_MIN ? 2 * t.delay : TOP_WINDOW_MIN;
	/* Everyone's jobs for root and Slurm's operators; asked once. */
	t.v.all_users = geteuid() == 0;
	if (!t.v.all_users) {
		cmd->ask.timeout = cmd->cfg.timeout;
		t.v.all_users = slurmjobs_is_operator(&cmd->ask, top_self(), why, sizeof(why)) == 1;
	}
	if (!json && !once && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
		if (top_screen(&t, why, sizeof(why)) == 0) {
			top_rows_free(&t.v);
			return EXIT_OK;
		}
		fprintf(stderr, "spank-ebpf: top: no full screen (%s): plain text every %u s\n", why, t.delay);
	} else if (!t.iterations) {
		t.iterations = 1; /* not a terminal: one refresh, as --once */
	}
	for (n = 0; !t.iterations || n < t.iterations; n++) {
		if (n)
			sleep(t.delay);
		top_refresh(&t);
		if (json)
			top_json(&t, stdout);
		else {
			if (n)
				putchar('\n');
			top_text(&t, stdout);
			fflush(stdout);
		}
		rc = top_status(&t.v);
	}
	top_rows_free(&t.v);
	return rc;
}
