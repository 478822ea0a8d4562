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
	report_figures_free(f);
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
	report_figures_free(&all);
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
	report_figures_free(&all);
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
	report_figures_free(&all);
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

/* An NFS mount's figures as a job's node reads them: 10 reads and 2000
 * writes, metadata by operation (distinct counts: a mutant swapping two
 * operations or read and write changes the words), latency per class,
 * NFS RPCs by procedure. */
#define FS_HOME "fstype=\"nfs4\",mount=\"/home\","
static const char fs_home[] =
	"fs_data_ops_total{" FS_HOME "op=\"read\"} 10\n"
	"fs_data_bytes_total{" FS_HOME "op=\"read\"} 4100\n"
	"fs_data_ops_total{" FS_HOME "op=\"write\"} 2000\n"
	"fs_data_bytes_total{" FS_HOME "op=\"write\"} 8000000\n"
	"fs_meta_ops_total{" FS_HOME "op=\"create\"} 1500\n"
	"fs_meta_ops_total{" FS_HOME "op=\"stat\"} 1000\n"
	"fs_meta_ops_total{" FS_HOME "op=\"unlink\"} 500\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"open\",le=\"0.002\"} 0\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"open\",le=\"0.004\"} 1500\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"open\",le=\"+Inf\"} 1500\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"0.000256\"} 0\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"0.000512\"} 1000\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"+Inf\"} 1000\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"namespace\",le=\"0.001\"} 0\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"namespace\",le=\"0.002\"} 500\n"
	"fs_meta_latency_seconds_bucket{" FS_HOME "class=\"namespace\",le=\"+Inf\"} 500\n"
	"fs_nfs_rpcs_total{mount=\"/home\",procedure=\"WRITE\"} 4000\n"
	"fs_nfs_rpcs_total{mount=\"/home\",procedure=\"GETATTR\"} 1000\n"
	"fs_nfs_rpcs_total{mount=\"/home\",procedure=\"REMOVE\"} 500\n";

static void test_fs_words(void)
{
	static struct figures f;
	struct report_hint h[REPORT_HINTS_MAX];
	char *text, *json;

	figures_node(&f, fs_home);
	text = figures_printed(&f, false);
	ok(has(text, "  file systems: nfs4 /home: 10 reads, 4.1 kB, 2000 writes, 8.0 MB; 3000 metadata operations (1500 create, 1000 stat, 500 unlink); p99 open 4.0 ms, stat 509 us, namespace 2.0 ms\n"),
	   "file systems: nfs4 /home: reads and writes, metadata by operation, p99 by class, in words");
	ok(has(text, "  NFS RPCs on nfs4 /home: 4000 WRITE, 1000 GETATTR, 500 REMOVE\n"),
	   "NFS RPCs on nfs4 /home: by procedure, the most first");
	diag_lines("text:", text);
	json = figures_printed(&f, true);
	ok(has(json, "\"fs\":[{\"fstype\":\"nfs4\",\"mount\":\"/home\",\"other_mounts\":false,\"network\":true,"
		     "\"data\":{\"read\":{\"ops\":10,\"bytes\":4100},\"write\":{\"ops\":2000,\"bytes\":8000000}},"
		     "\"meta\":{\"open\":0,\"create\":1500,\"stat\":1000,\"setattr\":0,\"unlink\":500,"),
	   "JSON: the mount's fstype, mount, data and metadata by operation under their keys");
	ok(has(json, "\"latency\":{\"open\":{\"count\":1500,\"p99_seconds\":0.00398},\"stat\":{\"count\":1000,\"p99_seconds\":0.00050944}"),
	   "... p99 per class");
	ok(has(json, "\"nfs_rpcs\":{\"WRITE\":4000,\"GETATTR\":1000,\"REMOVE\":500}"), "... NFS RPCs by procedure");
	diag_lines("json:", json);
	ok(report_hints(&f, h, REPORT_HINTS_MAX) == 0, "3000 metadata operations: no hint");
	free(text);
	free(json);

	/* Heavy metadata: a hint on a network file system, none on a local one. */
	figures_node(&f, "fs_meta_ops_total{" FS_HOME "op=\"stat\"} 250000\n");
	ok(report_hints(&f, h, REPORT_HINTS_MAX) == 1 && !strcmp(h[0].key, "fs_metadata_heavy") &&
		   has(h[0].text, "250000 metadata operations on nfs4 /home, 100000 or more"),
	   "250000 stat on nfs4: the heavy-metadata hint, in words");
	tap_diag("hint: %s", h[0].text);
	figures_node(&f, "fs_meta_ops_total{fstype=\"ext4\",mount=\"/\",op=\"stat\"} 250000\n");
	ok(report_hints(&f, h, REPORT_HINTS_MAX) == 0, "... on ext4: none");
}

/* Two nodes' figures added: mounts by (fstype, mount), latency buckets
 * whose bounds differ added as step functions before the p99, RPCs by
 * procedure. */
static void test_fs_merge(void)
{
	static struct figures n1, n2, all;
	char *text;

	figures_node(&n1, "fs_meta_ops_total{" FS_HOME "op=\"stat\"} 10\n"
			  "fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"0.001\"} 10\n"
			  "fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"+Inf\"} 10\n"
			  "fs_nfs_rpcs_total{mount=\"/home\",procedure=\"GETATTR\"} 7\n");
	figures_node(&n2, "fs_meta_ops_total{" FS_HOME "op=\"stat\"} 10\n"
			  "fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"0.002\"} 10\n"
			  "fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"+Inf\"} 10\n"
			  "fs_nfs_rpcs_total{mount=\"/home\",procedure=\"GETATTR\"} 5\n"
			  "fs_meta_ops_total{fstype=\"xfs\",mount=\"/scratch\",op=\"mkdir\"} 3\n");
	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	report_figures_add(&all, &n1);
	report_figures_add(&all, &n2);
	ok(all.fs_n == 2 && all.fs_mount[0].lat[FSC_STAT].n == 3 && all.fs_mount[0].lat[FSC_STAT].cum[0] == 10 &&
		   all.fs_mount[0].lat[FSC_STAT].cum[1] == 20 && all.fs_mount[0].lat[FSC_STAT].cum[2] == 20,
	   "stat {0.001: 10, +Inf: 10} + {0.002: 10, +Inf: 10}: 10, 20, 20");
	text = figures_printed(&all, false);
	ok(has(text, "  file systems: nfs4 /home: 20 metadata operations (20 stat); p99 stat 2.0 ms\n"),
	   "... 20 stat, p99 from the merged buckets: 1.98 ms");
	ok(has(text, "  NFS RPCs on nfs4 /home: 12 GETATTR\n"), "... 7 + 5 GETATTR");
	ok(has(text, "  file systems: xfs /scratch: 3 metadata operations (3 mkdir)\n"), "... the other node's mount beside");
	diag_lines("got:", text);
	free(text);

	/* NFS RPCs of a mount whose calls no series counts: their line
	 * alone, the type unknown (RPCs carry none), no "no call" beside. */
	figures_node(&n1, "fs_nfs_rpcs_total{mount=\"/data\",procedure=\"READ\"} 9\n");
	text = figures_printed(&n1, false);
	ok(!strcmp(text, "  NFS RPCs on (type unknown) /data: 9 READ\n"), "RPCs alone: their line alone");
	diag_lines("got:", text);
	free(text);
	/* ... and the row takes the type of the first series that names one. */
	figures_node(&n1, "fs_nfs_rpcs_total{mount=\"/data\",procedure=\"READ\"} 9\n"
			  "fs_data_ops_total{fstype=\"nfs\",mount=\"/data\",op=\"read\"} 9\n");
	text = figures_printed(&n1, false);
	ok(!strcmp(text, "  file systems: nfs /data: 9 reads, 0 bytes\n  NFS RPCs on nfs /data: 9 READ\n"),
	   "RPCs first, then a series with its type: one row, nfs");
	diag_lines("got:", text);
	free(text);
}

/* More mounts than a job keeps: the first FS_MOUNTS_MAX, the rest added
 * up in a row that says what it is. */
static void test_fs_bound(void)
{
	static struct figures f;
	static char lines[8192];
	size_t n = 0;
	char *text;
	int i;

	for (i = 0; i < FS_MOUNTS_MAX + 3; i++)
		n += (size_t)snprintf(lines + n, sizeof(lines) - n,
				      "fs_data_ops_total{fstype=\"tmpfs\",mount=\"/m%d\",op=\"read\"} %d\n"
				      "fs_meta_latency_seconds_bucket{fstype=\"tmpfs\",mount=\"/m%d\",class=\"stat\",le=\"0.001\"} 1\n"
				      "fs_meta_latency_seconds_bucket{fstype=\"tmpfs\",mount=\"/m%d\",class=\"stat\",le=\"+Inf\"} 1\n",
				      i, i + 1, i, i);
	figures_node(&f, lines);
	text = figures_printed(&f, false);
	ok(f.fs_n == FS_MOUNTS_MAX && f.fs_other && has(text, "  file systems: tmpfs /m15: 16 reads, 0 bytes; p99 stat"),
	   "%d mounts kept", FS_MOUNTS_MAX);
	ok(!has(text, "/m16"), "... the 17th not as its own");
	/* 17 + 18 + 19 reads; one stat each. */
	ok(has(text, "  file systems: other mounts (more than a report keeps, added up): 54 reads, 0 bytes; p99 stat"),
	   "... the other 3: 54 reads in a row named as other mounts");
	ok(f.fs_mount[FS_MOUNTS_MAX].lat[FSC_STAT].n == 2 && f.fs_mount[FS_MOUNTS_MAX].lat[FSC_STAT].cum[1] == 3,
	   "... their stat buckets added up: 3");
	diag_lines("got:", text);
	free(text);
}

/* A damaged fs series: its part of the line refused, named in words. */
static void test_fs_damaged(void)
{
	static struct figures f;
	char *text, *json, words[400];
	int at = 0;

	figures_node(&f, "fs_meta_ops_total{" FS_HOME "op=\"stat\"} NaN\n"
			 "fs_data_ops_total{" FS_HOME "op=\"write\"} 3\n"
			 "fs_data_bytes_total{" FS_HOME "op=\"write\"} 12\n");
	text = figures_printed(&f, false);
	json = figures_printed(&f, true);
	ok(has(text, "  file systems: nfs4 /home: 3 writes, 12 bytes; metadata operations not shown: a damaged series") &&
		   !has(text, "nan"),
	   "a NaN count: the metadata refused in words, the data stands");
	ok(!has(json, "nan") && has(json, "\"stat\":null"), "... JSON: null, no nan");
	ok(report_damage_next(report_damaged(&f), &at, NULL, words, sizeof(words)) &&
		   has(words, P "fs_meta_ops_total: refused as damaged: a value that is not a finite count"),
	   "... named: %s", words);
	diag_lines("text:", text);
	free(text);
	free(json);
	figures_node(&f, "fs_meta_latency_seconds_bucket{" FS_HOME "class=\"stat\",le=\"-1\"} 3\n"
			 "fs_meta_ops_total{" FS_HOME "op=\"stat\"} 3\n");
	text = figures_printed(&f, false);
	ok(has(text, "(3 stat); latency not shown: a damaged series"), "le=\"-1\": the latency refused");
	diag_lines("text:", text);
	free(text);
}

int main(void)
{
	test_behind_words();
	test_runq_no_wait();
	test_merge_bounds();
	test_merge_classes();
	test_damaged();
	test_fs_words();
	test_fs_merge();
	test_fs_bound();
	test_fs_damaged();
	return tap_done();
}
