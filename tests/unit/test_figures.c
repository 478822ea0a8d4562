/* report's figures (report_figures.c), read from an exporter's text as
 * the node's report reads it and worded as a user sees them: each class's
 * share beside its own words, no sentinel printed as a latency, nodes'
 * histograms with different bounds added as step functions, and a
 * damaged series refused, never printed as inf, nan or a negative
 * latency. One function per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonout.h"
#include "report.h"
#include "tap.h"

#define P REPORT_METRIC_PREFIX
#define JOB "5"

/* An exporter's answer (lines of P-less metric names and labels after
 * jobid) into f, as the node's report reads it. */
static void figures_read(struct figures *f, const char *lines)
{
	size_t nlines = 1;
	const char *l;
	char *body, *o;

	/* Each line grows by the prefix and the job's label. */
	for (l = lines; *l; l++)
		nlines += *l == '\n';
	body = o = malloc(strlen(lines) + nlines * (sizeof(P) + sizeof(JOB) + 16) + 1);

	/* Each line "name{labels} v" as the exporter writes it: the
	 * prefix, the job's label first. */
	for (l = lines; *l;) {
		size_t n = strcspn(l, "\n");
		const char *brace = memchr(l, '{', n);

		o += sprintf(o, P "%.*s{jobid=\"" JOB "\"%s%.*s\n", (int)(brace - l), l,
			     brace[1] == '}' ? "" : ",", (int)(n - (size_t)(brace - l) - 1), brace + 1);
		l += n + (l[n] ? 1 : 0);
	}
	*o = '\0';
	report_read(f, body, 5);
	free(body);
}

/* What fn prints for f, as a string (freed by the caller). */
static char *figures_printed(const struct figures *f, bool json)
{
	FILE *t = tmpfile();
	int saved = dup(1);
	char *s = calloc(1, 65536);

	fflush(stdout);
	dup2(fileno(t), 1);
	if (json) {
		struct json_object *o = json_object_new_object();

		report_json_figures(o, f);
		jsonout_print(stdout, o);
	} else
		report_text_figures(f, 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(t);
	if (fread(s, 1, 65535, t) == 0)
		s[0] = '\0';
	fclose(t);
	return s;
}

/* Printed lines as TAP comments, each after what. */
static void diag_lines(const char *what, const char *text)
{
	const char *l;

	for (l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0))
		tap_diag("%s %.*s", what, (int)strcspn(l, "\n"), l);
}

static bool has(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

/* Each class's share of the time waited sits beside that class's words:
 * 4 classes, 4 distinct shares (50, 30, 15, 5%). */
static void test_behind_words(void)
{
	static struct figures f;
	char *text, *json;

	memset(&f, 0, sizeof(f));
	figures_read(&f, "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"0.001\"} 10\n"
			 "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"+Inf\"} 10\n"
			 "sched_runq_latency_seconds_sum{behind=\"other_jobs\"} 0.5\n"
			 "sched_runq_latency_seconds_sum{behind=\"own_job\"} 0.3\n"
			 "sched_runq_latency_seconds_sum{behind=\"outside_jobs\"} 0.15\n"
			 "sched_runq_latency_seconds_sum{behind=\"idle_cpu\"} 0.05\n");
	report_runq_total(&f);
	text = figures_printed(&f, false);
	ok(has(text, " 50% behind other jobs"), "50%% of the time beside \"behind other jobs\"");
	ok(has(text, " 30% behind its own tasks"), "30%% beside \"behind its own tasks\"");
	ok(has(text, " 15% behind processes outside any job"), "15%% beside \"behind processes outside any job\"");
	ok(has(text, " 5% on an idle CPU (waking up)"), "5%% beside \"on an idle CPU (waking up)\"");
	json = figures_printed(&f, true);
	ok(has(json, "\"behind_seconds\":{\"other_jobs\":0.500000,\"own_job\":0.300000,\"outside_jobs\":0.150000,\"idle_cpu\":0.050000}"),
	   "... and in JSON, each number under its class's key");
	diag_lines("text:", text);
	diag_lines("json:", json);
	free(text);
	free(json);
}

/* Run-queue series with no wait counted: words, never the quantile's -1. */
static void test_runq_no_wait(void)
{
	static struct figures f;
	char *text, *json;

	memset(&f, 0, sizeof(f));
	figures_read(&f, "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"0.001\"} 0\n"
			 "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"+Inf\"} 0\n"
			 "sched_runq_latency_seconds_sum{behind=\"other_jobs\"} 0\n");
	report_runq_total(&f);
	text = figures_printed(&f, false);
	ok(!has(text, "-1") && !has(text, "p50"), "no wait: no p50, no -1");
	diag_lines("got:", text);
	ok(has(text, "  run queue  no wait counted yet\n"), "... words: no wait counted yet");
	json = figures_printed(&f, true);
	ok(has(json, "\"runq_latency\":{\"count\":0,\"p50_seconds\":null,\"p99_seconds\":null}"),
	   "... JSON: count 0, quantiles null");
	free(text);
	free(json);
}

/* A node's figures from lines, settled as report_cluster_collect does. */
static void figures_node(struct figures *f, const char *lines)
{
	memset(f, 0, sizeof(*f));
	figures_read(f, lines);
	report_runq_total(f);
}

/* Two nodes whose buckets have different bounds: the sum at a bound is
 * each node's count at its largest bound at or below it (its step
 * function), not 0 where a node has no such bound. */
static void test_merge_bounds(void)
{
	static struct figures n1, n2, all;
	char *text;

	figures_node(&n1, "io_latency_seconds_bucket{operation=\"read\",le=\"0.001\"} 10\n"
			  "io_latency_seconds_bucket{operation=\"read\",le=\"+Inf\"} 10\n");
	figures_node(&n2, "io_latency_seconds_bucket{operation=\"read\",le=\"0.002\"} 10\n"
			  "io_latency_seconds_bucket{operation=\"read\",le=\"+Inf\"} 10\n");
	memset(&all, 0, sizeof(all));
	report_figures_add(&all, &n1);
	report_figures_add(&all, &n2);
	report_runq_total(&all);
	ok(all.io_lat[OP_READ].n == 3 && all.io_lat[OP_READ].cum[0] == 10 && all.io_lat[OP_READ].cum[1] == 20 &&
		   all.io_lat[OP_READ].cum[2] == 20,
	   "{0.001: 10, +Inf: 10} + {0.002: 10, +Inf: 10}: 10, 20, 20 (got %g, %g, %g)", all.io_lat[OP_READ].cum[0],
	   all.io_lat[OP_READ].cum[1], all.io_lat[OP_READ].cum[2]);
	text = figures_printed(&all, false);
	ok(has(text, "  I/O read   20 requests, 0 bytes, latency p50 0.001000 s, p99 0.001980 s\n"),
	   "... p50 0.001, p99 0.00198");
	diag_lines("got:", text);
	free(text);

	/* A node without +Inf (its last bound is its total) and one with it. */
	figures_node(&n1, "io_latency_seconds_bucket{operation=\"write\",le=\"0.001\"} 10\n"
			  "io_latency_seconds_bucket{operation=\"write\",le=\"0.004\"} 10\n");
	figures_node(&n2, "io_latency_seconds_bucket{operation=\"write\",le=\"0.002\"} 5\n"
			  "io_latency_seconds_bucket{operation=\"write\",le=\"+Inf\"} 10\n");
	memset(&all, 0, sizeof(all));
	report_figures_add(&all, &n1);
	report_figures_add(&all, &n2);
	report_runq_total(&all);
	text = figures_printed(&all, false);
	ok(has(text, "  I/O write  20 requests, 0 bytes, latency p50 0.001000 s, p99 0.004000 s\n"),
	   "a node lacking +Inf: 10, 15, 15, 20: 20 requests, p99 in +Inf's bucket");
	diag_lines("got:", text);
	free(text);
}

/* The run-queue classes as a summary keeps them (only the bounds their
 * own quantiles read) add up to what Prometheus' full buckets give:
 * "20 waits, p50 0.001000 s, p99 0.003960 s". */
static void test_merge_classes(void)
{
	static struct figures full, kept;
	char *a, *b;

	figures_node(&full, "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"0.001\"} 10\n"
			    "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"0.002\"} 10\n"
			    "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"0.004\"} 10\n"
			    "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"+Inf\"} 10\n"
			    "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"0.001\"} 0\n"
			    "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"0.002\"} 0\n"
			    "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"0.004\"} 10\n"
			    "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"+Inf\"} 10\n");
	figures_node(&kept, "sched_runq_latency_seconds_bucket{behind=\"other_jobs\",le=\"0.001\"} 10\n"
			    "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"0.002\"} 0\n"
			    "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"0.004\"} 10\n");
	a = figures_printed(&full, false);
	b = figures_printed(&kept, false);
	ok(has(a, "  run queue  20 waits, p50 0.001000 s, p99 0.003960 s\n"), "full buckets: 20 waits");
	diag_lines("got:", a);
	ok(!strcmp(a, b), "the kept buckets: the same words");
	diag_lines("got:", b);
	free(a);
	free(b);
}

/* A figure is never printed as inf, nan or a negative latency, and
 * the JSON stays JSON: the damaged series is refused (words in its line,
 * null in JSON), the rest stands. */
static void damaged_check(const struct figures *f, const char *what, const char *line)
{
	char *text = figures_printed(f, false), *json = figures_printed(f, true);

	ok(!has(text, "inf") && !has(text, "nan") && !has(text, "-1.0") && has(text, line),
	   "%s: \"%s\", no inf, nan or -1", what, line);
	diag_lines("text:", text);
	ok(!has(json, "inf") && !has(json, "nan") && !has(json, "-1"), "... its JSON neither");
	ok(has(text, "  TCP        3 retransmits,"), "... the rest of the figures stand");
	free(text);
	free(json);
}

static void test_damaged(void)
{
	static struct figures n1, n2, all;

	figures_node(&n1, "io_bytes_total{operation=\"read\"} 1.7e308\n"
			  "net_tcp_retransmits_total{} 1\n");
	figures_node(&n2, "io_bytes_total{operation=\"read\"} 1.7e308\n"
			  "net_tcp_retransmits_total{} 2\n");
	memset(&all, 0, sizeof(all));
	report_figures_add(&all, &n1);
	report_figures_add(&all, &n2);
	report_runq_total(&all);
	damaged_check(&all, "1.7e308 bytes on each of two nodes", "  I/O read   not shown: a damaged series");

	figures_node(&n1, "io_latency_seconds_bucket{operation=\"read\",le=\"NaN\"} 5\n"
			  "io_latency_seconds_bucket{operation=\"read\",le=\"+Inf\"} 5\n"
			  "net_tcp_retransmits_total{} 3\n");
	damaged_check(&n1, "le=\"NaN\"", "  I/O read   not shown: a damaged series");
	figures_node(&n1, "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"-1\"} 5\n"
			  "sched_runq_latency_seconds_bucket{behind=\"own_job\",le=\"+Inf\"} 5\n"
			  "net_tcp_retransmits_total{} 3\n");
	damaged_check(&n1, "le=\"-1\"", "  run queue  not shown: a damaged series");
	figures_node(&n1, "oom_kills_total{} NaN\n"
			  "net_tcp_retransmits_total{} 3\n");
	damaged_check(&n1, "a count NaN", "  OOM        not shown: a damaged series");
	figures_node(&n1, "sched_waits_total{} -4\n"
			  "net_tcp_retransmits_total{} 3\n");
	damaged_check(&n1, "a count -4", "  CPU wait   not shown: a damaged series");
	figures_node(&n1, "io_latency_seconds_bucket{operation=\"write\",le=\"0.001\"} 5\n"
			  "io_latency_seconds_bucket{operation=\"write\",le=\"+Inf\"} 4\n"
			  "net_tcp_retransmits_total{} 3\n");
	damaged_check(&n1, "a cumulative count that falls", "  I/O write  not shown: a damaged series");
}

int main(void)
{
	test_behind_words();
	test_runq_no_wait();
	test_merge_bounds();
	test_merge_classes();
	test_damaged();
	return tap_done();
}
