/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading Prometheus' text exposition format, as the probe sets'
 * exporters serve it, for `spank-ebpf report`: one sample per line, its
 * labels, and the quantiles of a histogram from its cumulative buckets
 * (as PromQL's histogram_quantile() computes them). */
#ifndef SPANK_EBPF_PROMTEXT_H
#define SPANK_EBPF_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>

#define PROM_BUCKETS_MAX 64

struct prom_sample {
	const char *name;    /* NUL-terminated, inside the parsed line */
	const char *labels;  /* the text between { and }, or "" */
	double value;
};

/* Parses one line in place (line is modified). Returns 1 for a sample, 0
 * for a comment or blank line, -1 for a line that is not valid. */
int prom_parse_line(char *line, struct prom_sample *s);

/* The value of label key among labels (escapes \\ \" \n undone), into
 * buf. Returns true when the label is there. */
bool prom_label(const char *labels, const char *key, char *buf, size_t len);

/* One histogram's cumulative buckets, as they are read. */
struct prom_hist {
	int n;
	double le[PROM_BUCKETS_MAX];   /* upper bounds; +Inf allowed */
	double cum[PROM_BUCKETS_MAX];  /* observations <= le */
	double count, sum;
};

/* Adds a bucket (any order; a bound seen twice keeps the last). */
void prom_hist_bucket(struct prom_hist *h, double le, double cum);
/* h's count at bound le, h read as the step function a cumulative
 * histogram is: its count at its largest bound <= le, 0 below its first;
 * at +Inf its total (its last count, with or without a +Inf bucket). */
double prom_hist_at(const struct prom_hist *h, double le);
/* h added into sum (both sorted, as prom_hist_bucket keeps them), bound
 * by bound over the union of their bounds, each one's count there from
 * prom_hist_at: a bound one lacks counts what it has below it, not 0. */
void prom_hist_add(struct prom_hist *sum, const struct prom_hist *h);
/* The q-quantile (0 <= q <= 1), linear within the bucket it falls in;
 * -1 when the histogram has no observation. */
double prom_hist_quantile(const struct prom_hist *h, double q);

#endif
