/* The job summary's codec (report_summary.c): whatever its writer writes,
 * its reader reads (hostile node names and sets, bounds and counts at the
 * edges of what prints, damaged series), a token with a NUL refused
 * rather than half read, and a job's figures worded the same from its
 * summary as from the figures it was made of. One function per case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b32.h"
#include "report.h"
#include "tap.h"

#define P REPORT_METRIC_PREFIX
#define JOB 5

static char tok[SUMMARY_TOKEN_MAX + 1];

static void take(struct figures *f, const char *metric, const char *labels, double v)
{
	char name[128];
	struct prom_sample s = { name, labels, v };

	snprintf(name, sizeof(name), P "%s", metric);
	report_take(f, &s);
}

/* The token of raw text (any bytes), as a field. */
static void token_of(const char *raw, size_t n, char *out, size_t len)
{
	memcpy(out, SUMMARY_TAG, sizeof(SUMMARY_TAG) - 1);
	if (b32_encode(raw, n, out + sizeof(SUMMARY_TAG) - 1, len - (sizeof(SUMMARY_TAG) - 1)) < 0)
		out[0] = '\0';
}

/* A NUL inside the token's text ends what strtok would read: the token
 * is refused, not read up to it. */
static void test_nul_refused(void)
{
	static const char raw[] = "v1 job=5 at=1 elapsed=300 nodes=0 kept=0\nf * sets=-\n\0f junk\n";
	static struct figures all;
	char field[256], why[200] = "";
	struct summary h;
	struct cluster c;
	int rc;

	token_of(raw, sizeof(raw) - 1, field, sizeof(field));
	report_figures_free(&all);
	rc = summary_decode(field, JOB, &h, &all, &c, why, sizeof(why));
	ok(rc == -1 && c.n == 0 && c.node == NULL, "a token with a NUL inside: refused (rc %d)", rc);
	ok(why[0] != '\0', "... said: %s", why);
	token_of(raw, strlen(raw), field, sizeof(field));
	report_figures_free(&all);
	rc = summary_decode(field, JOB, &h, &all, &c, why, sizeof(why));
	ok(rc == 1, "... the same text up to the NUL reads (rc %d)", rc);
	report_cluster_free(&c);
}

/* Names as a node's or a set's may come (Prometheus' labels are any
 * text; report_cluster makes them printable, not plain), and what the
 * reader gives back: the same, or for bytes outside printable ASCII the
 * report's \xNN. */
static const struct {
	const char *in, *back;
} names[] = {
	{ "*", "*" },         { ",", "," },           { "=", "=" },         { "a b", "a b" },
	{ " ", " " },         { "n1,n2", "n1,n2" },   { "x=y", "x=y" },     { "", "" },
	{ "-", "-" },         { "%", "%" },           { "%2a", "%2a" },     { "?", "?" },
	{ "\\x1b", "\\x1b" }, { "caf\xc3\xa9", "caf\\xc3\\xa9" },   { "a\tb", "a\\x09b" },
	{ "n1", "n1" },       { "f * sets=x", "f * sets=x" },        { "a\nf * io=1,1,1", "a\\x0af * io=1,1,1" },
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static void test_round_trip_names(void)
{
	static struct figures all, back;
	struct cluster c = { 0 }, got;
	struct summary h = { .job = JOB, .at = 1764000000, .elapsed = 300, .nodes = NNAMES }, h2;
	char why[200] = "";
	size_t i, same = 0;
	long kept;
	int rc;

	c.node = calloc(NNAMES, sizeof(*c.node));
	c.n = NNAMES;
	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	for (i = 0; i < NNAMES; i++) {
		snprintf(c.node[i].name, sizeof(c.node[i].name), "%s", names[i].in);
		snprintf(c.node[i].sets, sizeof(c.node[i].sets), "%s", names[NNAMES - 1 - i].in);
		take(&c.node[i].f, "net_tcp_retransmits_total", "", (double)i);
		report_runq_total(&c.node[i].f);
		report_figures_add(&all, &c.node[i].f);
	}
	report_runq_total(&all);
	kept = summary_encode(&h, &all, &c, tok, sizeof(tok));
	ok(kept == (long)NNAMES, "%zu nodes with hostile names and sets: all written (%ld)", NNAMES, kept);
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	ok(rc == 1, "... and read back (rc %d%s%s)", rc, rc < 0 ? ": " : "", rc < 0 ? why : "");
	for (i = 0; rc == 1 && i < got.n && i < NNAMES; i++) {
		bool name = !strcmp(got.node[i].name, names[i].back);
		bool sets = !strcmp(got.node[i].sets, names[NNAMES - 1 - i].back);

		same += name && sets && got.node[i].f.retransmits == (double)i;
		if (!name || !sets)
			tap_diag("node %zu: name \"%s\" (want \"%s\"), sets \"%s\" (want \"%s\")", i,
				 got.node[i].name, names[i].back, got.node[i].sets, names[NNAMES - 1 - i].back);
	}
	ok(rc == 1 && got.n == NNAMES && same == NNAMES, "... each node's name, sets and figures as written (%zu of %zu)",
	   same, NNAMES);
	if (rc == 1)
		report_cluster_free(&got);
	report_cluster_free(&c);
}

/* Figures at the edges of what prints: bounds that %.9g would print
 * alike, counts %.15g would round past the largest double. */
static void test_round_trip_values(void)
{
	static struct figures all, back;
	struct cluster c = { 0 }, got;
	struct summary h = { .job = JOB, .at = 1764000000, .elapsed = 300, .nodes = 0 }, h2;
	char why[200] = "";
	int rc;

	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	take(&all, "io_latency_seconds_bucket", "operation=\"read\",le=\"0.0010000000001\"", 1);
	take(&all, "io_latency_seconds_bucket", "operation=\"read\",le=\"0.0010000000002\"", 2);
	take(&all, "io_latency_seconds_bucket", "operation=\"read\",le=\"+Inf\"", 3);
	take(&all, "io_bytes_total", "operation=\"write\"", 1.7976931348623157e308);
	take(&all, "oom_kills_total", "", 1e-300);
	report_runq_total(&all);
	ok(summary_encode(&h, &all, &c, tok, sizeof(tok)) == 0, "bounds 1e-13 apart, the largest double: written");
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	ok(rc == 1, "... and read back (rc %d%s%s)", rc, rc < 0 ? ": " : "", rc < 0 ? why : "");
	ok(rc == 1 && back.io_lat[OP_READ].n == 3 && back.io_lat[OP_READ].le[1] == 0.0010000000002 &&
		   back.io_bytes[OP_WRITE] == 1.7976931348623157e308 && back.oom_kills == 1e-300,
	   "... the same numbers, to the bit");
	if (rc == 1)
		report_cluster_free(&got);
}

/* Printed lines as TAP comments, each after what. */
static void diag_lines(const char *what, const char *text)
{
	const char *l;

	for (l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0))
		tap_diag("%s %.*s", what, (int)strcspn(l, "\n"), l);
}

/* What report_text_figures prints for f. */
static char *summary_words(const struct figures *f)
{
	FILE *t = tmpfile();
	int saved = dup(1);
	char *s = calloc(1, 65536);

	fflush(stdout);
	dup2(fileno(t), 1);
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

/* A job whose nodes' run-queue buckets have different bounds, each class
 * on one node (other_jobs on n1, own_job on n2, which has no 0.002): its
 * report from the summary says what it says from the figures the summary
 * was made of (as report_cluster_collect adds them). The whole job's
 * p50 falls in (0.002, 0.004]: a summary that kept only the bounds each
 * class's own quantiles read would lose 0.002 and say 0.00175. */
static void test_same_words(void)
{
	static struct figures all, back;
	static const char *const bounds1[] = { "0.001", "0.002", "0.004", "+Inf" };
	static const double other1[] = { 5, 5, 5, 5 };
	static const char *const bounds2[] = { "0.001", "0.004", "+Inf" };
	static const double own2[] = { 0, 10, 10 };
	struct cluster c = { 0 }, got;
	struct summary h = { .job = JOB, .at = 1764000000, .elapsed = 300, .nodes = 2 }, h2;
	char labels[128], why[200] = "";
	char *a, *b;
	size_t i;
	int rc;

	c.node = calloc(2, sizeof(*c.node));
	c.n = 2;
	snprintf(c.node[0].name, sizeof(c.node[0].name), "n1");
	snprintf(c.node[1].name, sizeof(c.node[1].name), "n2");
	for (i = 0; i < 4; i++) {
		snprintf(labels, sizeof(labels), "behind=\"other_jobs\",le=\"%s\"", bounds1[i]);
		take(&c.node[0].f, "sched_runq_latency_seconds_bucket", labels, other1[i]);
	}
	for (i = 0; i < 3; i++) {
		snprintf(labels, sizeof(labels), "behind=\"own_job\",le=\"%s\"", bounds2[i]);
		take(&c.node[1].f, "sched_runq_latency_seconds_bucket", labels, own2[i]);
	}
	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	for (i = 0; i < 2; i++) {
		report_runq_total(&c.node[i].f);
		report_figures_add(&all, &c.node[i].f);
	}
	report_runq_total(&all);
	ok(summary_encode(&h, &all, &c, tok, sizeof(tok)) == 2, "a job of 2 nodes, buckets of different bounds: written");
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	ok(rc == 1 && got.n == 2, "... read back (rc %d)", rc);
	a = summary_words(&all);
	b = summary_words(&back);
	ok(!strcmp(a, b), "... the whole job's words the same");
	diag_lines("from the figures:", a);
	diag_lines("from the summary:", b);
	free(a);
	free(b);
	for (i = 0; rc == 1 && i < 2; i++) {
		a = summary_words(&c.node[i].f);
		b = summary_words(&got.node[i].f);
		ok(!strcmp(a, b), "... node %s's the same", c.node[i].name);
		if (strcmp(a, b)) {
			diag_lines("from the figures:", a);
			diag_lines("from the summary:", b);
		}
		free(a);
		free(b);
	}
	if (rc == 1)
		report_cluster_free(&got);
	report_cluster_free(&c);
}

/* Damaged series (a sum too large, a bound NaN, a count -1): written as
 * "bad=", read back refused alike, nothing the reader refuses written. */
static void test_round_trip_damaged(void)
{
	static struct figures all, back;
	struct cluster c = { 0 }, got;
	struct summary h = { .job = JOB, .at = 1764000000, .elapsed = 300, .nodes = 0 }, h2;
	char why[200] = "", *a, *b;
	int rc;

	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	take(&all, "io_bytes_total", "operation=\"read\"", 1.7e308);
	take(&all, "io_bytes_total", "operation=\"read\"", 1.7e308);
	take(&all, "io_latency_seconds_bucket", "operation=\"write\",le=\"NaN\"", 1);
	take(&all, "sched_runq_latency_seconds_bucket", "behind=\"idle_cpu\",le=\"0.001\"", 2);
	take(&all, "sched_waits_total", "", -1);
	take(&all, "oom_kills_total", "", 1);
	report_runq_total(&all);
	ok(report_damaged(&all) == (SERIES_BIT(SERIES_IO_BYTES + OP_READ) | SERIES_BIT(SERIES_IO_LAT + OP_WRITE) |
				    SERIES_BIT(SERIES_WAITS)),
	   "a sum past the largest double, a bound NaN, a count -1: 3 series damaged (%#x)", report_damaged(&all));
	ok(summary_encode(&h, &all, &c, tok, sizeof(tok)) == 0, "... written");
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	ok(rc == 1 && report_damaged(&back) == report_damaged(&all), "... read back, the same 3 refused (rc %d%s%s)",
	   rc, rc < 0 ? ": " : "", rc < 0 ? why : "");
	a = summary_words(&all);
	b = summary_words(&back);
	ok(!strcmp(a, b), "... the same words");
	diag_lines("from the figures:", a);
	diag_lines("from the summary:", b);
	free(a);
	free(b);
	if (rc == 1)
		report_cluster_free(&got);
}

/* A node's fs series: nfs4 /home and xfs /scratch, buckets, RPCs. */
static void fs_node(struct figures *f, double scale)
{
	static const char *const bounds[] = { "0.000256", "0.000512", "0.001", "0.002", "+Inf" };
	static const double stat[] = { 0, 900, 980, 1000, 1000 };
	char labels[160];
	size_t i;

	take(f, "fs_data_ops_total", "fstype=\"nfs4\",mount=\"/home\",op=\"write\"", 2000 * scale);
	take(f, "fs_data_bytes_total", "fstype=\"nfs4\",mount=\"/home\",op=\"write\"", 8e6 * scale);
	take(f, "fs_data_ops_total", "fstype=\"nfs4\",mount=\"/home\",op=\"read\"", 10 * scale);
	take(f, "fs_meta_ops_total", "fstype=\"nfs4\",mount=\"/home\",op=\"create\"", 1500 * scale);
	take(f, "fs_meta_ops_total", "fstype=\"nfs4\",mount=\"/home\",op=\"stat\"", 1000 * scale);
	take(f, "fs_meta_ops_total", "fstype=\"nfs4\",mount=\"/home\",op=\"unlink\"", 500 * scale);
	for (i = 0; i < 5; i++) {
		snprintf(labels, sizeof(labels), "fstype=\"nfs4\",mount=\"/home\",class=\"stat\",le=\"%s\"", bounds[i]);
		take(f, "fs_meta_latency_seconds_bucket", labels, stat[i] * scale);
	}
	take(f, "fs_nfs_rpcs_total", "mount=\"/home\",procedure=\"WRITE\"", 4000 * scale);
	take(f, "fs_nfs_rpcs_total", "mount=\"/home\",procedure=\"GETATTR\"", 1000 * scale);
	take(f, "fs_meta_ops_total", "fstype=\"xfs\",mount=\"/scr atch=%\",op=\"mkdir\"", 3 * scale);
}

/* A job's fs figures through its summary: the same words, whole job and
 * each node; a job of more mounts than a summary keeps: the busiest as
 * they are, the rest in the other mounts' row, all counted. */
static void test_round_trip_fs(void)
{
	static struct figures all, back;
	struct cluster c = { 0 }, got, none = { 0 };
	struct summary h = { .job = JOB, .at = 1764000000, .elapsed = 300, .nodes = 2 }, h2;
	char why[200] = "", labels[128], *a, *b;
	size_t i;
	int rc;

	c.node = calloc(2, sizeof(*c.node));
	c.n = 2;
	snprintf(c.node[0].name, sizeof(c.node[0].name), "n1");
	snprintf(c.node[1].name, sizeof(c.node[1].name), "n2");
	fs_node(&c.node[0].f, 1);
	fs_node(&c.node[1].f, 2);
	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	for (i = 0; i < 2; i++)
		report_figures_add(&all, &c.node[i].f);
	ok(summary_encode(&h, &all, &c, tok, sizeof(tok)) == 2, "a job with fs figures on 2 nodes: written");
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	ok(rc == 1 && got.n == 2, "... read back (rc %d%s%s)", rc, rc < 0 ? ": " : "", rc < 0 ? why : "");
	a = summary_words(&all);
	b = summary_words(&back);
	ok(!strcmp(a, b) && strstr(b, "  file systems: nfs4 /home: 30 reads, 0 bytes, 6000 writes, 24.0 MB; 9000 metadata operations (4500 create, 3000 stat, 1500 unlink); p99 stat 1.5 ms\n") &&
		   strstr(b, "  NFS RPCs on nfs4 /home: 12000 WRITE, 3000 GETATTR\n") &&
		   strstr(b, "  file systems: xfs /scr atch=%: 9 metadata operations (9 mkdir)\n"),
	   "... the whole job's words the same: file systems, NFS RPCs");
	diag_lines("from the figures:", a);
	diag_lines("from the summary:", b);
	free(a);
	free(b);
	for (i = 0; rc == 1 && i < 2; i++) {
		a = summary_words(&c.node[i].f);
		b = summary_words(&got.node[i].f);
		ok(!strcmp(a, b), "... node %s's the same", c.node[i].name);
		free(a);
		free(b);
	}
	if (rc == 1)
		report_cluster_free(&got);

	/* Ten mounts: the six busiest kept, four added up. */
	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	for (i = 0; i < 10; i++) {
		snprintf(labels, sizeof(labels), "fstype=\"tmpfs\",mount=\"/m%zu\",op=\"stat\"", i);
		take(&all, "fs_meta_ops_total", labels, (double)(i + 1));
	}
	ok(summary_encode(&h, &all, &none, tok, sizeof(tok)) == 0, "10 mounts: written");
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	b = rc == 1 ? summary_words(&back) : strdup("");
	ok(rc == 1 && back.fs_n == 6 && back.fs_other && strstr(b, "  file systems: tmpfs /m4: 5 metadata operations") &&
		   !strstr(b, "/m3:") &&
		   strstr(b, "  file systems: other mounts (more than a report keeps, added up): 10 metadata operations (10 stat)\n"),
	   "... read back: /m4 to /m9 as they are, /m0 to /m3 (1+2+3+4 stat) as other mounts");
	diag_lines("from the summary:", b);
	free(b);
	if (rc == 1)
		report_cluster_free(&got);
	report_cluster_free(&c);
}

/* A token whose fs part is damaged or forged: refused as a whole, the
 * reason in words. */
static void test_fs_forged(void)
{
	static const char *const forged[][2] = {
		{ "fs=1 fm0=nfs4,%2fhome fd0=1,2,3", "not 4 counts" },
		{ "fs=1 fd0=1,2,3,4", "not named before them" },
		{ "fs=2 fm0=nfs4,%2fhome", "fewer rows than fs= says" },
		{ "fs=1 fm1=nfs4,%2fhome", "out of its order" },
		{ "fs=1 fm0=nfs4,%2fhome fl0.2=0.001:5/0.0005:6", "latency buckets" },
		{ "fs=1 fm0=nfs4,%2fhome fl0.7=0.001:5", "latency buckets" },
		{ "fs=1 fm0=nfs4,%2fhome fr0=WRITE:1/WRITE:2", "NFS RPCs" },
		{ "fs=1 fm0=nfs4,%2fhome fr0=write:1", "NFS RPCs" },
		{ "fs=1 fm0=nfs4,%2fhome fx0=1,2,3", "not 14 counts" },
		{ "fs=1 fm0=nfs4,%2fhome fd0=1,2,3,-4", "not 4 counts" },
		{ "fm0=nfs4,%2fhome", "before fs=" },
		{ "fs=2 fm0=* fm1=nfs4,%2fhome", "after the other mounts'" },
	};
	static struct figures all;
	char raw[512], field[1200], why[300];
	struct summary h;
	struct cluster c;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		snprintf(raw, sizeof(raw), "v1 job=5 at=1 elapsed=300 nodes=0 kept=0\nf * sets=fs %s\n", forged[i][0]);
		token_of(raw, strlen(raw), field, sizeof(field));
		why[0] = '\0';
		report_figures_free(&all);
		rc = summary_decode(field, JOB, &h, &all, &c, why, sizeof(why));
		ok(rc == -1 && strstr(why, "its summary is damaged: its file system figures do not read: ") &&
			   strstr(why, forged[i][1]),
		   "\"%s\": refused, %s", forged[i][0], why);
	}
	/* The same, well formed, reads: the checks above refuse only the flaw. */
	snprintf(raw, sizeof(raw), "v1 job=5 at=1 elapsed=300 nodes=0 kept=0\nf * sets=fs fs=2 fm0=nfs4,%%2fhome fd0=1,2,3,4 fx0=0,0,7,0,0,0,0,0,0,0,0,0,0,0 fl0.1=0.001:5/inf:6 fr0=WRITE:1/*:2 fm1=* fd1=0,0,0,0\n");
	token_of(raw, strlen(raw), field, sizeof(field));
	report_figures_free(&all);
	rc = summary_decode(field, JOB, &h, &all, &c, why, sizeof(why));
	ok(rc == 1 && all.fs_n == 1 && all.fs_other && all.fs_mount[0].meta[FS_STAT] == 7 &&
		   !strcmp(all.fs_mount[0].mount, "/home") && all.fs_mount[0].proc_other == 2,
	   "... the well-formed one reads (rc %d)", rc);
	/* An older token, without fs=: reads, no fs figures. */
	snprintf(raw, sizeof(raw), "v1 job=5 at=1 elapsed=300 nodes=0 kept=0\nf * sets=io io=0,5,0\n");
	token_of(raw, strlen(raw), field, sizeof(field));
	report_figures_free(&all);
	rc = summary_decode(field, JOB, &h, &all, &c, why, sizeof(why));
	ok(rc == 1 && !all.fs && all.io_bytes[OP_WRITE] == 5, "an older token without fs figures reads as before");
}

/* A whole job whose fs figures would take more than their room (16
 * mounts with long names, every class's latency, 12 procedures each):
 * fewer mounts kept as they are, the rest in the other mounts' row, the
 * token within its bound and read back. */
static void test_fs_whole_bound(void)
{
	static struct figures all, back;
	struct cluster none = { 0 }, got;
	struct summary h = { .job = JOB, .at = 1764000000, .elapsed = 300, .nodes = 1 }, h2;
	char labels[300], why[200] = "", *b;
	double total = 0, seen = 0;
	int i, k, p, rc;

	report_figures_free(&all);
	memset(&all, 0, sizeof(all));
	/* Mount points of 63 bytes that the summary escapes (a blank is
	 * %20), each class's p99 between two bounds (3 buckets kept). */
	for (i = 0; i < FS_MOUNTS_MAX; i++) {
		char mount[64];

		snprintf(mount, sizeof(mount), "/%060d%02d", 0, i);
		memset(mount + 1, ' ', 60);
		for (k = 0; k < FS_CLASSES; k++) {
			static const char *const le[] = { "0.000001", "0.000128", "0.000256", "+Inf" };
			static const double cum[] = { 0, 98.5, 100, 100 };

			for (p = 0; p < 4; p++) {
				snprintf(labels, sizeof(labels), "fstype=\"nfs4\",mount=\"%s\",class=\"%s\",le=\"%s\"",
					 mount, report_fs_class_names[k], le[p]);
				take(&all, "fs_meta_latency_seconds_bucket", labels, cum[p]);
			}
		}
		for (p = 0; p < FS_PROCS_MAX; p++) {
			snprintf(labels, sizeof(labels), "mount=\"%s\",procedure=\"PROCEDURE_%02d\"", mount, p);
			take(&all, "fs_nfs_rpcs_total", labels, 123456789 + p);
		}
		snprintf(labels, sizeof(labels), "fstype=\"nfs4\",mount=\"%s\",op=\"stat\"", mount);
		take(&all, "fs_meta_ops_total", labels, 1000 + i);
		total += 1000 + i;
	}
	rc = (int)summary_encode(&h, &all, &none, tok, sizeof(tok));
	ok(rc == 0 && strlen(tok) <= SUMMARY_TOKEN_MAX, "16 large mounts: written, within %d bytes (%zu)",
	   SUMMARY_TOKEN_MAX, strlen(tok));
	report_figures_free(&back);
	rc = summary_decode(tok, JOB, &h2, &back, &got, why, sizeof(why));
	for (i = 0; rc == 1 && i <= FS_MOUNTS_MAX; i++)
		if (i < back.fs_n || (i == FS_MOUNTS_MAX && back.fs_other))
			seen += back.fs_mount[i].meta[FS_STAT];
	ok(rc == 1 && back.fs_n < 6 && back.fs_other && seen == total,
	   "... read back: %d mounts as they are, the rest as other mounts, every stat counted (%g of %g)",
	   back.fs_n, seen, total);
	b = rc == 1 ? summary_words(&back) : strdup("");
	ok(strstr(b, "  file systems: other mounts (more than a report keeps, added up): ") != NULL,
	   "... and worded so");
	free(b);
	if (rc == 1)
		report_cluster_free(&got);
}

int main(void)
{
	test_nul_refused();
	test_round_trip_names();
	test_round_trip_values();
	test_same_words();
	test_round_trip_damaged();
	test_round_trip_fs();
	test_fs_forged();
	test_fs_whole_bound();
	return tap_done();
}
