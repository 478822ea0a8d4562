/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's figures from its probe sets' series, whoever serves them (the
 * node's exporters, or Prometheus for every node): read sample by sample,
 * added up over nodes, and worded as text or JSON, the same either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void report_bucket(struct prom_hist *h, const char *labels, double v)
{
	char le[32];

	if (prom_label(labels, "le", le, sizeof(le)))
		prom_hist_bucket(h, strcmp(le, "+Inf") ? strtod(le, NULL) : 1.0 / 0.0, v);
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

/* One sample of the job's: into its figure. */
void report_take(struct figures *f, const struct prom_sample *s)
{
	int op = report_op(s->labels);

	/* NaN or an infinity is no count an exporter of ours writes; taken,
	 * it would print as "nan" and break --json. */
	if (!isfinite(s->value))
		return;
	if (!strcmp(s->name, P "io_latency_seconds_bucket") && op >= 0) {
		f->io = true;
		report_bucket(&f->io_lat[op], s->labels, s->value);
	} else if (!strcmp(s->name, P "io_bytes_total") && op >= 0) {
		f->io = true;
		f->io_bytes[op] += s->value;
	} else if (!strcmp(s->name, P "sched_runq_latency_seconds_bucket")) {
		int b = report_behind(s->labels);

		f->sched = true;
		if (b >= 0)
			report_bucket(&f->runq_by[b], s->labels, s->value);
	} else if (!strcmp(s->name, P "sched_runq_latency_seconds_sum")) {
		int b = report_behind(s->labels);

		f->sched = true;
		if (b >= 0)
			f->runq_sum[b] += s->value;
	} else if (!strcmp(s->name, P "sched_wait_microseconds_total")) {
		f->cpu = true;
		f->wait_us += s->value;
	} else if (!strcmp(s->name, P "sched_waits_total")) {
		f->cpu = true;
		f->waits += s->value;
	} else if (!strcmp(s->name, P "sched_pressure_microseconds_total")) {
		f->cpu = true;
		f->pressure_us += s->value;
	} else if (!strcmp(s->name, P "net_tcp_retransmits_total")) {
		f->net = true;
		f->retransmits += s->value;
	} else if (!strcmp(s->name, P "net_tcp_connections_total")) {
		char dir[16] = "";

		f->net = true;
		prom_label(s->labels, "direction", dir, sizeof(dir));
		if (!strcmp(dir, "accept"))
			f->accepts += s->value;
		else
			f->connects += s->value;
	} else if (!strcmp(s->name, P "oom_kills_total")) {
		f->oom = true;
		f->oom_kills += s->value;
	}
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

void report_text_figures(const struct figures *f, int nerr)
{
	bool io_any = false;
	int op;

	for (op = 0; f->io && op < OPS; op++) {
		const struct prom_hist *h = &f->io_lat[op];

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
	if (f->cpu)
		report_text_cpu(f);
	if (f->sched)
		report_text_runq(f);
	if (f->net)
		printf("  TCP        %.0f retransmits, %.0f connections (%.0f connect, %.0f accept)\n",
		       f->retransmits, f->connects + f->accepts, f->connects, f->accepts);
	if (f->oom)
		printf("  OOM        %.0f processes killed\n", f->oom_kills);
	if (!report_figures_any(f))
		printf("  no series of this job in its sets' exporters%s\n",
		       nerr ? " (some could not be read: above)" : " yet");
}

static void report_json_hist(const char *key, const struct prom_hist *h)
{
	double p50 = prom_hist_quantile(h, 0.5), p99 = prom_hist_quantile(h, 0.99);

	printf("\"%s\":{\"count\":%.0f,", key, report_count(h));
	if (p50 < 0)
		printf("\"p50_seconds\":null,\"p99_seconds\":null}");
	else
		printf("\"p50_seconds\":%.9g,\"p99_seconds\":%.9g}", p50, p99);
}

void report_json_figures(const struct figures *f)
{
	int op;

	printf("\"io\":");
	if (f->io) {
		printf("{");
		for (op = 0; op < OPS; op++) {
			printf("%s\"%s\":{\"bytes\":%.0f,", op ? "," : "", op_names[op], f->io_bytes[op]);
			report_json_hist("latency", &f->io_lat[op]);
			printf("}");
		}
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"cpu\":");
	if (f->cpu) {
		printf("{\"wait_seconds\":%.6f,\"waits\":%.0f,\"pressure_seconds\":%.6f,", f->wait_us / 1e6,
		       f->waits, f->pressure_us / 1e6);
		if (f->elapsed > 0)
			printf("\"elapsed_seconds\":%lld,\"waiting_share\":%.4f}", f->elapsed,
			       f->pressure_us / 1e6 / report_cpu_time(f));
		else
			printf("\"elapsed_seconds\":null,\"waiting_share\":null}");
	} else {
		printf("null");
	}
	printf(",\"sched\":");
	if (f->sched) {
		printf("{");
		report_json_hist("runq_latency", &f->runq);
		printf(",\"behind_seconds\":{");
		for (op = 0; op < BEHINDS; op++)
			printf("%s\"%s\":%.6f", op ? "," : "", behind_labels[op], f->runq_sum[op]);
		printf("}}");
	} else {
		printf("null");
	}
	if (f->net)
		printf(",\"net\":{\"retransmits\":%.0f,\"connections\":{\"connect\":%.0f,\"accept\":%.0f}}",
		       f->retransmits, f->connects, f->accepts);
	else
		printf(",\"net\":null");
	if (f->oom)
		printf(",\"oom\":{\"kills\":%.0f}", f->oom_kills);
	else
		printf(",\"oom\":null");
}

bool report_figures_any(const struct figures *f)
{
	return f->io || f->sched || f->cpu || f->net || f->oom;
}

void report_figures_add(struct figures *sum, const struct figures *f)
{
	int i;

	if (f->cpu)
		sum->cpu_nodes += f->cpu_nodes > 1 ? f->cpu_nodes : 1;
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
}

/* The hints' thresholds (spank-ebpf(8), "report --cluster"). */
#define HINT_IO_P99_S 0.05   /* a request's p99 latency, seconds */
#define HINT_IO_REQUESTS 100 /* the fewest requests a p99 is read from */
#define HINT_CPU_SHARE 0.25  /* the share of its time a task waited for a CPU */
#define HINT_RETRANSMITS 100 /* TCP segments retransmitted */

int report_hints(const struct figures *f, struct report_hint *h, int max)
{
	int n = 0, op;

	for (op = 0; f->io && op < OPS && n < max; op++) {
		double p99 = prom_hist_quantile(&f->io_lat[op], 0.99);

		if (report_count(&f->io_lat[op]) < HINT_IO_REQUESTS || p99 <= HINT_IO_P99_S)
			continue;
		h[n].key = "slow_storage";
		snprintf(h[n++].text, sizeof(h->text),
			 "its %s requests waited long: p99 %.3f s, above %.2f s: the storage was busy or slow (the file system's servers, or the disk)",
			 op_names[op], p99, HINT_IO_P99_S);
	}
	if (f->cpu && f->elapsed > 0 && n < max &&
	    f->pressure_us / 1e6 / report_cpu_time(f) > HINT_CPU_SHARE) {
		char pct[16];

		h[n].key = "cpu_oversubscribed";
		snprintf(h[n++].text, sizeof(h->text),
			 "a task of it waited for a CPU %s of the time, above %.0f%%: more runnable threads than the CPUs it was given (--cpus-per-task, the threads it starts)",
			 report_percent(f->pressure_us / 1e6, report_cpu_time(f), pct, sizeof(pct)),
			 100 * HINT_CPU_SHARE);
	}
	if (f->net && f->retransmits >= HINT_RETRANSMITS && n < max) {
		h[n].key = "lossy_network";
		snprintf(h[n++].text, sizeof(h->text),
			 "%.0f TCP segments retransmitted, %d or more: a lossy or congested network path",
			 f->retransmits, HINT_RETRANSMITS);
	}
	if (f->oom && f->oom_kills >= 1 && n < max) {
		h[n].key = "out_of_memory";
		snprintf(h[n++].text, sizeof(h->text),
			 "the OOM killer ended %.0f of its processes: it needs more memory than it had (--mem)",
			 f->oom_kills);
	}
	return n;
}
