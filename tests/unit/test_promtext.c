/* Prometheus text for `spank-ebpf report`: lines as ebpf_exporter writes
 * them, labels with escapes, lines that are not samples, and quantiles
 * checked against what PromQL's histogram_quantile() gives for the same
 * buckets. One function per case. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "promtext.h"
#include "tap.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void test_sample_lines(void)
{
	char l1[] = "ebpf_exporter_spank_io_bytes_total{jobid=\"42\",operation=\"read\"} 4096\n";
	char l2[] = "up 1";
	char l3[] = "# HELP x y";
	char l4[] = "x{a=\"}\"} 2";
	char l5[] = "x{a=\"1\" 2";
	char l6[] = "x{a=\"1\"} two";
	char l7[] = "  \n";
	struct prom_sample s;
	char v[32];

	ok(prom_parse_line(l1, &s) == 1 && !strcmp(s.name, "ebpf_exporter_spank_io_bytes_total") &&
		   s.value == 4096,
	   "a sample with labels");
	ok(prom_label(s.labels, "jobid", v, sizeof(v)) && !strcmp(v, "42"), "its jobid label");
	ok(prom_label(s.labels, "operation", v, sizeof(v)) && !strcmp(v, "read"), "its operation label");
	ok(!prom_label(s.labels, "job", v, sizeof(v)), "a label's prefix is not the label");
	ok(prom_parse_line(l2, &s) == 1 && !strcmp(s.name, "up") && !s.labels[0] && s.value == 1,
	   "a sample without labels");
	ok(prom_parse_line(l3, &s) == 0 && prom_parse_line(l7, &s) == 0, "comments and blank lines are not samples");
	ok(prom_parse_line(l4, &s) == 1 && prom_label(s.labels, "a", v, sizeof(v)) && !strcmp(v, "}"),
	   "a brace inside a quoted value does not end the labels");
	ok(prom_parse_line(l5, &s) == -1 && prom_parse_line(l6, &s) == -1, "unclosed labels, a value that is no number: invalid");
}

static void test_label_escapes(void)
{
	char line[] = "x{user=\"a\\\"b\\\\c\\nd\",jobid=\"7\"} 1";
	struct prom_sample s;
	char v[32];

	prom_parse_line(line, &s);
	ok(prom_label(s.labels, "user", v, sizeof(v)) && !strcmp(v, "a\"b\\c\nd"), "escapes undone");
	ok(prom_label(s.labels, "jobid", v, sizeof(v)) && !strcmp(v, "7"), "the label after escapes is found");
}

/* 100 observations: 10 <= 0.001, 80 more <= 0.002, 10 more <= 0.004.
 * histogram_quantile(0.5) = 0.001 + 0.001 * (50 - 10) / 80 = 0.0015;
 * (0.99) = 0.002 + 0.002 * (99 - 90) / 10 = 0.0038. */
static void test_quantiles(void)
{
	struct prom_hist h;

	memset(&h, 0, sizeof(h));
	ok(prom_hist_quantile(&h, 0.5) < 0, "no bucket: no quantile");
	prom_hist_bucket(&h, 1.0 / 0.0, 100);
	prom_hist_bucket(&h, 0.002, 90);
	prom_hist_bucket(&h, 0.004, 100);
	prom_hist_bucket(&h, 0.001, 10);
	ok(h.n == 4 && h.le[0] == 0.001 && isinf(h.le[3]), "buckets kept in order of their bound");
	ok(near(prom_hist_quantile(&h, 0.5), 0.0015), "p50 = 0.0015 (got %g)", prom_hist_quantile(&h, 0.5));
	ok(near(prom_hist_quantile(&h, 0.99), 0.0038), "p99 = 0.0038 (got %g)", prom_hist_quantile(&h, 0.99));
	ok(near(prom_hist_quantile(&h, 0.05), 0.0005), "p5 in the first bucket, from 0: 0.0005 (got %g)",
	   prom_hist_quantile(&h, 0.05));
}

static void test_quantile_in_inf_bucket(void)
{
	struct prom_hist h;

	memset(&h, 0, sizeof(h));
	prom_hist_bucket(&h, 0.001, 1);
	prom_hist_bucket(&h, 1.0 / 0.0, 10);
	ok(near(prom_hist_quantile(&h, 0.99), 0.001), "in +Inf: the highest finite bound (got %g)",
	   prom_hist_quantile(&h, 0.99));
	memset(&h, 0, sizeof(h));
	prom_hist_bucket(&h, 0.001, 0);
	prom_hist_bucket(&h, 1.0 / 0.0, 0);
	ok(prom_hist_quantile(&h, 0.5) < 0, "no observation: no quantile");
}

/* A histogram from "le:cum" pairs (le < 0: +Inf). */
static void hist_of(struct prom_hist *h, const double *pairs, int n)
{
	int i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < n; i++)
		prom_hist_bucket(h, pairs[2 * i] < 0 ? 1.0 / 0.0 : pairs[2 * i], pairs[2 * i + 1]);
}

/* sum's bounds and counts, as "le:cum le:cum ...". */
static const char *hist_text(const struct prom_hist *h)
{
	static char buf[512];
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < h->n; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%g:%g", i ? " " : "", h->le[i], h->cum[i]);
	return buf;
}

/* Cumulative histograms with different bounds add as step functions:
 * at a bound one lacks, its count at its largest bound below (0 below
 * its first), at +Inf its total, with or without a +Inf bucket. */
static void test_hist_add(void)
{
	static const double n1[] = { 0.001, 10, -1, 10 }, n2[] = { 0.002, 10, -1, 10 };
	static const double a[] = { 0.001, 5, 0.004, 10 }, b[] = { 0.002, 5, -1, 10 };
	static const double c[] = { 0.001, 1, 0.002, 2, 0.003, 3, 0.004, 4 };
	struct prom_hist sum, h;
	int i;

	memset(&sum, 0, sizeof(sum));
	hist_of(&h, n1, 2);
	prom_hist_add(&sum, &h);
	ok(!strcmp(hist_text(&sum), "0.001:10 inf:10"), "into an empty one: itself (%s)", hist_text(&sum));
	hist_of(&h, n2, 2);
	prom_hist_add(&sum, &h);
	ok(!strcmp(hist_text(&sum), "0.001:10 0.002:20 inf:20"),
	   "{0.001: 10, +Inf: 10} + {0.002: 10, +Inf: 10}: 0.001: 10, 0.002: 20, +Inf: 20 (%s)", hist_text(&sum));
	ok(near(prom_hist_quantile(&sum, 0.99), 0.00198), "... p99 0.00198 (got %g)", prom_hist_quantile(&sum, 0.99));

	hist_of(&sum, a, 2);
	hist_of(&h, b, 2);
	prom_hist_add(&sum, &h);
	ok(!strcmp(hist_text(&sum), "0.001:5 0.002:10 0.004:15 inf:20"),
	   "one without +Inf (its total: its last count) and one with it: 5, 10, 15, 20 (%s)", hist_text(&sum));
	ok(prom_hist_at(&sum, 0.0005) == 0 && prom_hist_at(&sum, 0.003) == 10 && prom_hist_at(&sum, 1.0 / 0.0) == 20,
	   "... its count below its first bound 0, between two the lower one's, at +Inf the total");

	/* More bounds than a histogram holds: the largest stays last, with
	 * the total. */
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < PROM_BUCKETS_MAX + 8; i++) {
		double one[] = { 0.001 * (i + 1), 1 };

		hist_of(&h, one, 1);
		prom_hist_add(&sum, &h);
	}
	ok(sum.n == PROM_BUCKETS_MAX && near(sum.le[sum.n - 1], 0.001 * (PROM_BUCKETS_MAX + 8)) &&
		   sum.cum[sum.n - 1] == PROM_BUCKETS_MAX + 8,
	   "%d one-bucket histograms: %d buckets, the last one the largest bound with all %d (%g: %g)",
	   PROM_BUCKETS_MAX + 8, PROM_BUCKETS_MAX, PROM_BUCKETS_MAX + 8, sum.le[sum.n - 1], sum.cum[sum.n - 1]);
	hist_of(&sum, c, 4);
	hist_of(&h, c, 4);
	prom_hist_add(&sum, &h);
	ok(!strcmp(hist_text(&sum), "0.001:2 0.002:4 0.003:6 0.004:8"), "the same bounds: added bound by bound (%s)",
	   hist_text(&sum));
}

int main(void)
{
	test_sample_lines();
	test_label_escapes();
	test_quantiles();
	test_quantile_in_inf_bucket();
	test_hist_add();
	return tap_done();
}
