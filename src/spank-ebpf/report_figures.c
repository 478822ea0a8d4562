/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's figures from its probe sets' series, whoever serves them (the
 * node's exporters, or Prometheus for every node): read sample by sample,
 * added up over nodes, and worded as text or JSON, the same either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "promtext.h"
#include "report.h"

#define P REPORT_METRIC_PREFIX

static const char *const op_names[OPS] = { "read", "write", "other" };

/* What a job's waits for a CPU were behind (spank-sched-detail's
 * "behind" label), in the order the report words them. */
static const char *const behind_labels[BEHINDS] = { "other_jobs", "own_job", "outside_jobs",
						    "idle_cpu" };
static const char *const behind_words[BEHINDS] = { "behind other jobs", "behind its own tasks",
						   "behind processes outside any job",
						   "on an idle CPU (waking up)" };

static int report_op(const char *labels)
{
	char op[16];
	int i;

	if (!prom_label(labels, "operation", op, sizeof(op)))
		return -1;
	for (i = 0; i < OPS; i++)
		if (!strcmp(op, op_names[i]))
			return i;
	return -1;
}

/* A count as an exporter of ours writes it: finite, 0 or more. Any other
 * (NaN, an infinity, -1) refuses its series: printed, it would read
 * "nan" and break --json. */
static bool report_count_ok(struct figures *f, int series, double v)
{
	if (isfinite(v) && v >= 0)
		return true;
	f->damaged |= SERIES_BIT(series);
	return false;
}

/* A bucket of series into h: its bound a number, 0 or more, or +Inf (a
 * bound NaN, negative or missing refuses the series). */
static void report_bucket(struct figures *f, int series, struct prom_hist *h, const char *labels, double v)
{
	char le[32], *end;
	double bound = NAN;

	if (prom_label(labels, "le", le, sizeof(le))) {
		bound = strcmp(le, "+Inf") ? strtod(le, &end) : INFINITY;
		if (strcmp(le, "+Inf") && (end == le || *end))
			bound = NAN;
	}
	if (isnan(bound) || bound < 0) {
		f->damaged |= SERIES_BIT(series);
		return;
	}
	if (report_count_ok(f, series, v))
		prom_hist_bucket(h, bound, v);
}

static int report_behind(const char *labels)
{
	char b[24];
	int i;

	if (!prom_label(labels, "behind", b, sizeof(b)))
		return BEHIND_OUTSIDE; /* an older spank-sched-detail: no class */
	for (i = 0; i < BEHINDS; i++)
		if (!strcmp(b, behind_labels[i]))
			return i;
	return -1;
}

/* runq, all classes: the classes' buckets added as step functions
 * (their bounds may differ: a summary keeps only some of each). */
void report_runq_total(struct figures *f)
{
	int b;

	memset(&f->runq, 0, sizeof(f->runq));
	for (b = 0; b < BEHINDS; b++)
		prom_hist_add(&f->runq, &f->runq_by[b]);
}

/* v into *sum, a figure of series: when it is a count. */
static void report_add(struct figures *f, int series, double *sum, double v)
{
	if (report_count_ok(f, series, v))
		*sum += v;
}

/* One sample of the job's: into its figure. */
void report_take(struct figures *f, const struct prom_sample *s)
{
	int op = report_op(s->labels);

	if (!strcmp(s->name, P "io_latency_seconds_bucket") && op >= 0) {
		f->io = true;
		report_bucket(f, SERIES_IO_LAT + op, &f->io_lat[op], s->labels, s->value);
	} else if (!strcmp(s->name, P "io_bytes_total") && op >= 0) {
		f->io = true;
		report_add(f, SERIES_IO_BYTES + op, &f->io_bytes[op], s->value);
	} else if (!strcmp(s->name, P "sched_runq_latency_seconds_bucket")) {
		int b = report_behind(s->labels);

		f->sched = true;
		if (b >= 0)
			report_bucket(f, SERIES_RUNQ + b, &f->runq_by[b], s->labels, s->value);
	} else if (!strcmp(s->name, P "sched_runq_latency_seconds_sum")) {
		int b = report_behind(s->labels);

		f->sched = true;
		if (b >= 0)
			report_add(f, SERIES_RUNQ_SUM + b, &f->runq_sum[b], s->value);
	} else if (!strcmp(s->name, P "sched_wait_microseconds_total")) {
		f->cpu = true;
		report_add(f, SERIES_WAIT, &f->wait_us, s->value);
	} else if (!strcmp(s->name, P "sched_waits_total")) {
		f->cpu = true;
		report_add(f, SERIES_WAITS, &f->waits, s->value);
	} else if (!strcmp(s->name, P "sched_pressure_microseconds_total")) {
		f->cpu = true;
		report_add(f, SERIES_PRESSURE, &f->pressure_us, s->value);
	} else if (!strcmp(s->name, P "net_tcp_retransmits_total")) {
		f->net = true;
		report_add(f, SERIES_RETRANSMITS, &f->retransmits, s->value);
	} else if (!strcmp(s->name, P "net_tcp_connections_total")) {
		char dir[16] = "";

		f->net = true;
		prom_label(s->labels, "direction", dir, sizeof(dir));
		if (!strcmp(dir, "accept"))
			report_add(f, SERIES_ACCEPTS, &f->accepts, s->value);
		else
			report_add(f, SERIES_CONNECTS, &f->connects, s->value);
	} else if (!strcmp(s->name, P "oom_kills_total")) {
		f->oom = true;
		report_add(f, SERIES_OOM, &f->oom_kills, s->value);
	} else if (!strncmp(s->name, P "fs_", strlen(P "fs_"))) {
		report_fs_take(f, s->name + strlen(P), s->labels, s->value);
	}
}

bool report_hist_ok(const struct prom_hist *h)
{
	int i;

	for (i = 0; i < h->n; i++)
		if (isnan(h->le[i]) || h->le[i] < 0 || (i && h->le[i] <= h->le[i - 1]) ||
		    !isfinite(h->cum[i]) || h->cum[i] < 0 || (i && h->cum[i] < h->cum[i - 1]))
			return false;
	return true;
}

unsigned int report_damaged(const struct figures *f)
{
	const double *value[SERIES_COUNT] = { NULL };
	unsigned int bad = f->damaged | report_fs_damaged(f);
	int i;

	for (i = 0; i < OPS; i++) {
		value[SERIES_IO_BYTES + i] = &f->io_bytes[i];
		if (!report_hist_ok(&f->io_lat[i]))
			bad |= SERIES_BIT(SERIES_IO_LAT + i);
	}
	for (i = 0; i < BEHINDS; i++) {
		value[SERIES_RUNQ_SUM + i] = &f->runq_sum[i];
		if (!report_hist_ok(&f->runq_by[i]))
			bad |= SERIES_BIT(SERIES_RUNQ + i);
	}
	/* The classes' sum too large: each class in it refused. */
	for (i = 0; i < BEHINDS && !report_hist_ok(&f->runq); i++)
		if (f->runq_by[i].n)
			bad |= SERIES_BIT(SERIES_RUNQ + i);
	value[SERIES_WAIT] = &f->wait_us;
	value[SERIES_WAITS] = &f->waits;
	value[SERIES_PRESSURE] = &f->pressure_us;
	value[SERIES_RETRANSMITS] = &f->retransmits;
	value[SERIES_CONNECTS] = &f->connects;
	value[SERIES_ACCEPTS] = &f->accepts;
	value[SERIES_OOM] = &f->oom_kills;
	for (i = 0; i < SERIES_COUNT; i++)
		if (value[i] && (!isfinite(*value[i]) || *value[i] < 0))
			bad |= SERIES_BIT(i);
	return bad;
}

/* A series' name and labels, as the exporter names it. */
static void report_series_name(int series, char *buf, size_t len)
{
	static const char *const other[] = { "sched_wait_microseconds_total", "sched_waits_total",
					     "sched_pressure_microseconds_total", "net_tcp_retransmits_total",
					     "net_tcp_connections_total{direction=\"connect\"}",
					     "net_tcp_connections_total{direction=\"accept\"}", "oom_kills_total",
					     "fs_data_ops_total", "fs_data_bytes_total", "fs_meta_ops_total",
					     "fs_meta_latency_seconds_bucket", "fs_nfs_rpcs_total" };

	if (series < SERIES_IO_LAT)
		snprintf(buf, len, P "io_bytes_total{operation=\"%s\"}", op_names[series - SERIES_IO_BYTES]);
	else if (series < SERIES_RUNQ)
		snprintf(buf, len, P "io_latency_seconds_bucket{operation=\"%s\"}", op_names[series - SERIES_IO_LAT]);
	else if (series < SERIES_RUNQ_SUM)
		snprintf(buf, len, P "sched_runq_latency_seconds_bucket{behind=\"%s\"}",
			 behind_labels[series - SERIES_RUNQ]);
	else if (series < SERIES_WAIT)
		snprintf(buf, len, P "sched_runq_latency_seconds_sum{behind=\"%s\"}",
			 behind_labels[series - SERIES_RUNQ_SUM]);
	else
		snprintf(buf, len, P "%s", other[series - SERIES_WAIT]);
}

bool report_damage_next(unsigned int damaged, int *at, const char *where, char *buf, size_t len)
{
	char name[128];

	for (; *at < SERIES_COUNT; (*at)++) {
		bool hist = (*at >= SERIES_IO_LAT && *at < SERIES_RUNQ) ||
			    (*at >= SERIES_RUNQ && *at < SERIES_RUNQ_SUM) || *at == SERIES_FS_META_LAT;

		if (!(damaged & SERIES_BIT(*at)))
			continue;
		report_series_name(*at, name, sizeof(name));
		snprintf(buf, len, "%s%s: refused as damaged: %s", where ? where : "", name,
			 hist ? "a bucket bound that is NaN or negative, or a count that is not a finite count or falls"
			      : "a value that is not a finite count (NaN, infinite or negative), alone or added up");
		(*at)++;
		return true;
	}
	return false;
}

/* The job's samples in one exporter's answer. */
void report_read(struct figures *f, char *body, unsigned int job)
{
	char want[16], id[16], *line, *save;
	struct prom_sample s;

	snprintf(want, sizeof(want), "%u", job);
	for (line = strtok_r(body, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (prom_parse_line(line, &s) == 1 && !strncmp(s.name, P, strlen(P)) &&
		    prom_label(s.labels, "jobid", id, sizeof(id)) && !strcmp(id, want))
			report_take(f, &s);
}

static double report_count(const struct prom_hist *h)
{
	return h->n ? h->cum[h->n - 1] : 0;
}

/* The share of p out of whole, in whole percent ("31%"); "<1%" for a
 * little that rounds to 0. */
static const char *report_percent(double p, double whole, char *buf, size_t len)
{
	double pct = whole > 0 ? 100.0 * p / whole : 0;

	if (pct > 0 && pct < 0.5)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", pct > 100 ? 100 : pct);
	return buf;
}

/* The time the CPU wait is a share of: the job's run time on each node
 * that counted it. */
static double report_cpu_time(const struct figures *f)
{
	return (double)f->elapsed * (f->cpu_nodes > 1 ? f->cpu_nodes : 1);
}

/* spank-sched's words: the share of the job's time with a task waiting,
 * when Slurm told its run time. */
static void report_text_cpu(const struct figures *f)
{
	double pressure = f->pressure_us / 1e6, wait = f->wait_us / 1e6;
	char pct[16], on[32] = "";

	if (f->cpu_nodes > 1)
		snprintf(on, sizeof(on), " on each of %d nodes", f->cpu_nodes);
	if (f->elapsed > 0)
		printf("  CPU wait   your job waited for a CPU %s of the time (%.1f s of its %lld s%s with a task waiting)",
		       report_percent(pressure, report_cpu_time(f), pct, sizeof(pct)), pressure,
		       f->elapsed, on);
	else
		printf("  CPU wait   your job had a task waiting for a CPU for %.1f s", pressure);
	printf("; its tasks waited %.1f s in all, %.0f times\n", wait, f->waits);
}

/* A histogram's "p50 X s, p99 Y s". Without an observation its quantile
 * is -1, which is no latency: said in words, never printed. */
static void report_text_quantiles(const struct prom_hist *h)
{
	double p50 = prom_hist_quantile(h, 0.5), p99 = prom_hist_quantile(h, 0.99);

	if (p50 < 0 || p99 < 0)
		printf("no latency (nothing measured)");
	else
		printf("p50 %.6f s, p99 %.6f s", p50, p99);
}

/* spank-sched-detail's: the latency, and behind whom the time went. */
static void report_text_runq(const struct figures *f)
{
	double all = 0;
	char pct[16];
	int b, said = 0;

	/* Series with no wait counted yet: words, as for I/O. */
	if (report_count(&f->runq) > 0) {
		printf("  run queue  %.0f waits, ", report_count(&f->runq));
		report_text_quantiles(&f->runq);
	} else {
		printf("  run queue  no wait counted yet");
	}
	for (b = 0; b < BEHINDS; b++)
		all += f->runq_sum[b];
	for (b = 0; all > 0 && b < BEHINDS; b++) {
		if (f->runq_sum[b] <= 0)
			continue;
		printf("%s%s %s", said++ ? ", " : "; of the time waited, ",
		       report_percent(f->runq_sum[b], all, pct, sizeof(pct)), behind_words[b]);
	}
	printf("\n");
}

/* The series of each line: one damaged, the line is refused. */
#define SERIES_RANGE(first, n) (((1u << (n)) - 1) << (first))
#define SERIES_IO_OP(op) (SERIES_BIT(SERIES_IO_BYTES + (op)) | SERIES_BIT(SERIES_IO_LAT + (op)))
#define SERIES_CPU SERIES_RANGE(SERIES_WAIT, 3)
#define SERIES_SCHED SERIES_RANGE(SERIES_RUNQ, 2 * BEHINDS)
#define SERIES_NET SERIES_RANGE(SERIES_RETRANSMITS, 3)
#define REPORT_REFUSED "not shown: a damaged series (named in the errors)"

/* A line (head: its first words) whose series include a damaged one:
 * words in place of its figures, never inf, nan or a number made of it. */
static bool report_text_refused(unsigned int bad, unsigned int series, const char *head)
{
	if (!(bad & series))
		return false;
	printf("  %s%s\n", head, REPORT_REFUSED);
	return true;
}

void report_text_figures(const struct figures *f, int nerr)
{
	unsigned int bad = report_damaged(f);
	bool io_any = false;
	int op;

	/* First: every figure below lacks what came before. */
	if (f->late_s > 0)
		printf("  observed   in part only: set %s's exporter became ready %lld s after the job's start%s%s (a late start or a restart); the figures below miss part of its run\n",
		       f->late_set, f->late_s, f->late_node[0] ? " on node " : "", f->late_node);
	for (op = 0; f->io && op < OPS; op++) {
		const struct prom_hist *h = &f->io_lat[op];

		if (bad & SERIES_IO_OP(op)) {
			printf("  I/O %-5s  " REPORT_REFUSED "\n", op_names[op]);
			io_any = true;
			continue;
		}
		if (report_count(h) == 0 && f->io_bytes[op] == 0)
			continue;
		io_any = true;
		/* Bytes without a latency: the device's requests carry no
		 * start time the probe can read, not an empty histogram. */
		if (report_count(h) == 0) {
			printf("  I/O %-5s  %.0f bytes, latency not measured (the device keeps no request start times)\n",
			       op_names[op], f->io_bytes[op]);
		} else {
			printf("  I/O %-5s  %.0f requests, %.0f bytes, latency ", op_names[op],
			       report_count(h), f->io_bytes[op]);
			report_text_quantiles(h);
			printf("\n");
		}
	}
	if (f->io && !io_any)
		printf("  I/O        no block I/O request yet\n");
	if (f->cpu && !report_text_refused(bad, SERIES_CPU, "CPU wait   "))
		report_text_cpu(f);
	if (f->sched && !report_text_refused(bad, SERIES_SCHED, "run queue  "))
		report_text_runq(f);
	if (f->net && !report_text_refused(bad, SERIES_NET, "TCP        "))
		printf("  TCP        %.0f retransmits, %.0f connections (%.0f connect, %.0f accept)\n",
		       f->retransmits, f->connects + f->accepts, f->connects, f->accepts);
	if (f->oom && !report_text_refused(bad, SERIES_BIT(SERIES_OOM), "OOM        "))
		printf("  OOM        %.0f processes killed\n", f->oom_kills);
	report_fs_text(f, bad);
	if (!report_figures_any(f))
		printf("  no series of this job in its sets' exporters%s\n",
		       nerr ? " (some could not be read: above)" : " yet");
}

/* A JSON number with its decimals, or null for a damaged series' figure. */
static struct json_object *report_json_number(double v, int decimals, bool damaged)
{
	return damaged ? NULL : jsonout_double(v, decimals);
}

/* {"count":...,"p50_seconds":...,"p99_seconds":...}: null quantiles
 * without a request, null everything for a damaged series. */
static struct json_object *report_json_hist(const struct prom_hist *h, bool damaged)
{
	double p50 = prom_hist_quantile(h, 0.5), p99 = prom_hist_quantile(h, 0.99);
	struct json_object *o = json_object_new_object();

	jsonout_add(o, "count", report_json_number(report_count(h), 0, damaged));
	jsonout_add(o, "p50_seconds", p50 < 0 || damaged ? NULL : jsonout_double_g(p50, 9));
	jsonout_add(o, "p99_seconds", p50 < 0 || damaged ? NULL : jsonout_double_g(p99, 9));
	return o;
}

void report_json_figures(struct json_object *obj, const struct figures *f)
{
	unsigned int bad = report_damaged(f);
	struct json_object *o = NULL, *m;
	int op;

	if (f->io) {
		o = json_object_new_object();
		for (op = 0; op < OPS; op++) {
			m = json_object_new_object();
			jsonout_add(m, "bytes", report_json_number(f->io_bytes[op], 0,
								  bad & SERIES_BIT(SERIES_IO_BYTES + op)));
			jsonout_add(m, "latency", report_json_hist(&f->io_lat[op],
								   bad & SERIES_BIT(SERIES_IO_LAT + op)));
			jsonout_add(o, op_names[op], m);
		}
	}
	jsonout_add(obj, "io", o);
	o = NULL;
	if (f->cpu) {
		o = json_object_new_object();
		jsonout_add(o, "wait_seconds", report_json_number(f->wait_us / 1e6, 6, bad & SERIES_BIT(SERIES_WAIT)));
		jsonout_add(o, "waits", report_json_number(f->waits, 0, bad & SERIES_BIT(SERIES_WAITS)));
		jsonout_add(o, "pressure_seconds",
			    report_json_number(f->pressure_us / 1e6, 6, bad & SERIES_BIT(SERIES_PRESSURE)));
		jsonout_add(o, "elapsed_seconds", f->elapsed > 0 ? jsonout_int(f->elapsed) : NULL);
		jsonout_add(o, "waiting_share",
			    report_json_number(f->pressure_us / 1e6 / report_cpu_time(f), 4,
					       f->elapsed <= 0 || (bad & SERIES_BIT(SERIES_PRESSURE))));
	}
	jsonout_add(obj, "cpu", o);
	o = NULL;
	if (f->sched) {
		o = json_object_new_object();
		jsonout_add(o, "runq_latency", report_json_hist(&f->runq, bad & SERIES_RANGE(SERIES_RUNQ, BEHINDS)));
		m = json_object_new_object();
		for (op = 0; op < BEHINDS; op++)
			jsonout_add(m, behind_labels[op],
				    report_json_number(f->runq_sum[op], 6, bad & SERIES_BIT(SERIES_RUNQ_SUM + op)));
		jsonout_add(o, "behind_seconds", m);
	}
	jsonout_add(obj, "sched", o);
	o = NULL;
	if (f->net) {
		o = json_object_new_object();
		jsonout_add(o, "retransmits", report_json_number(f->retransmits, 0, bad & SERIES_BIT(SERIES_RETRANSMITS)));
		m = json_object_new_object();
		jsonout_add(m, "connect", report_json_number(f->connects, 0, bad & SERIES_BIT(SERIES_CONNECTS)));
		jsonout_add(m, "accept", report_json_number(f->accepts, 0, bad & SERIES_BIT(SERIES_ACCEPTS)));
		jsonout_add(o, "connections", m);
	}
	jsonout_add(obj, "net", o);
	o = NULL;
	if (f->oom) {
		o = json_object_new_object();
		jsonout_add(o, "kills", report_json_number(f->oom_kills, 0, bad & SERIES_BIT(SERIES_OOM)));
	}
	jsonout_add(obj, "oom", o);
	jsonout_add(obj, "fs", report_fs_json(f, bad));
	o = NULL;
	if (f->late_s > 0) {
		o = json_object_new_object();
		jsonout_add(o, "from_seconds", jsonout_int(f->late_s));
		jsonout_add(o, "set", jsonout_string(f->late_set));
		jsonout_add(o, "node", f->late_node[0] ? jsonout_string(f->late_node) : NULL);
	}
	jsonout_add(obj, "partial", o);
}

bool report_figures_any(const struct figures *f)
{
	return f->io || f->sched || f->cpu || f->net || f->oom || f->fs;
}

void report_note_late(struct figures *f, long long late_s, const char *set, const char *node)
{
	if (late_s < REPORT_LATE_MIN_S || late_s <= f->late_s)
		return;
	f->late_s = late_s;
	snprintf(f->late_set, sizeof(f->late_set), "%s", set ? set : "");
	snprintf(f->late_node, sizeof(f->late_node), "%s", node ? node : "");
}

void report_figures_add(struct figures *sum, const struct figures *f)
{
	int i;

	report_note_late(sum, f->late_s, f->late_set, f->late_node);
	if (f->cpu)
		sum->cpu_nodes += f->cpu_nodes > 1 ? f->cpu_nodes : 1;
	/* A node's damaged series: the job's sum lacks it, refused too. */
	sum->damaged |= report_damaged(f);
	sum->io |= f->io;
	sum->sched |= f->sched;
	sum->cpu |= f->cpu;
	sum->net |= f->net;
	sum->oom |= f->oom;
	for (i = 0; i < OPS; i++) {
		prom_hist_add(&sum->io_lat[i], &f->io_lat[i]);
		sum->io_bytes[i] += f->io_bytes[i];
	}
	for (i = 0; i < BEHINDS; i++) {
		prom_hist_add(&sum->runq_by[i], &f->runq_by[i]);
		sum->runq_sum[i] += f->runq_sum[i];
	}
	sum->wait_us += f->wait_us;
	sum->waits += f->waits;
	sum->pressure_us += f->pressure_us;
	sum->retransmits += f->retransmits;
	sum->connects += f->connects;
	sum->accepts += f->accepts;
	sum->oom_kills += f->oom_kills;
	report_fs_add(sum, f);
}

/* The hints' thresholds (spank-ebpf(8), "report --cluster"). */
#define HINT_IO_P99_S 0.05   /* a request's p99 latency, seconds */
#define HINT_IO_REQUESTS 100 /* the fewest requests a p99 is read from */
#define HINT_CPU_SHARE 0.25  /* the share of its time a task waited for a CPU */
#define HINT_RETRANSMITS 100 /* TCP segments retransmitted */

int report_hints(const struct figures *f, struct report_hint *h, int max)
{
	unsigned int bad = report_damaged(f); /* no hint from a damaged series */
	int n = 0, op;

	for (op = 0; f->io && op < OPS && n < max; op++) {
		double p99 = prom_hist_quantile(&f->io_lat[op], 0.99);

		if (report_count(&f->io_lat[op]) < HINT_IO_REQUESTS || p99 <= HINT_IO_P99_S ||
		    (bad & SERIES_BIT(SERIES_IO_LAT + op)))
			continue;
		h[n].key = "slow_storage";
		snprintf(h[n++].text, sizeof(h->text),
			 "its %s requests waited long: p99 %.3f s, above %.2f s: the storage was busy or slow (the file system's servers, or the disk)",
			 op_names[op], p99, HINT_IO_P99_S);
	}
	if (f->cpu && f->elapsed > 0 && n < max && !(bad & SERIES_BIT(SERIES_PRESSURE)) &&
	    f->pressure_us / 1e6 / report_cpu_time(f) > HINT_CPU_SHARE) {
		char pct[16];

		h[n].key = "cpu_oversubscribed";
		snprintf(h[n++].text, sizeof(h->text),
			 "a task of it waited for a CPU %s of the time, above %.0f%%: more runnable threads than the CPUs it was given (--cpus-per-task, the threads it starts)",
			 report_percent(f->pressure_us / 1e6, report_cpu_time(f), pct, sizeof(pct)),
			 100 * HINT_CPU_SHARE);
	}
	if (f->net && f->retransmits >= HINT_RETRANSMITS && n < max && !(bad & SERIES_BIT(SERIES_RETRANSMITS))) {
		h[n].key = "lossy_network";
		snprintf(h[n++].text, sizeof(h->text),
			 "%.0f TCP segments retransmitted, %d or more: a lossy or congested network path",
			 f->retransmits, HINT_RETRANSMITS);
	}
	if (f->oom && f->oom_kills >= 1 && n < max && !(bad & SERIES_BIT(SERIES_OOM))) {
		h[n].key = "out_of_memory";
		snprintf(h[n++].text, sizeof(h->text),
			 "the OOM killer ended %.0f of its processes: it needs more memory than it had (--mem)",
			 f->oom_kills);
	}
	return report_fs_hints(f, bad, h, n, max);
}
