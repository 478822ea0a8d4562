/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report's figures (report_figures.c), shared by its two sources: the
 * node's exporters (cmd_report.c) and Prometheus (report_cluster.c). */
#ifndef SPANK_EBPF_REPORT_H
#define SPANK_EBPF_REPORT_H

#include <stdbool.h>

#include "promtext.h"
#include "spank-ebpf.h"

#define REPORT_METRIC_PREFIX "ebpf_exporter_spank_"

enum { OP_READ, OP_WRITE, OP_OTHER, OPS };

/* What a job's waits for a CPU were behind (spank-sched-detail's
 * "behind" label), in the order the report words them. */
enum { BEHIND_OTHER, BEHIND_OWN, BEHIND_OUTSIDE, BEHIND_IDLE, BEHINDS };

struct figures {
	bool io, sched, cpu, net, oom;            /* some series of it seen */
	struct prom_hist io_lat[OPS];
	double io_bytes[OPS];
	struct prom_hist runq_by[BEHINDS], runq;  /* runq: all classes */
	double runq_sum[BEHINDS];                 /* seconds waited, per class */
	double wait_us, waits, pressure_us;       /* spank-sched */
	long long elapsed;                        /* the job's run time; -1: unknown */
	int cpu_nodes;                            /* nodes whose CPU wait is summed; 0: one */
	double retransmits, connects, accepts;
	double oom_kills;
};

/* One sample (a series of the project's sets) into f. */
void report_take(struct figures *f, const struct prom_sample *s);
/* The samples of job in an exporter's /metrics text (modified). */
void report_read(struct figures *f, char *body, unsigned int job);
/* f->runq from its classes; once all samples are in. */
void report_runq_total(struct figures *f);
/* f's counts and buckets added into sum (a job's nodes). */
void report_figures_add(struct figures *sum, const struct figures *f);
bool report_figures_any(const struct figures *f);
/* The figures' lines (indented two spaces), and their JSON members
 * ("io":...,"oom":...). */
void report_text_figures(const struct figures *f, int nerr);
void report_json_figures(const struct figures *f);

/* A figure that says something, in plain words, with the threshold it
 * crossed. */
struct report_hint {
	const char *key;   /* for JSON: "slow_storage", ... */
	char text[300];
};
#define REPORT_HINTS_MAX 8
/* f's hints into h (at most max); returns how many. */
int report_hints(const struct figures *f, struct report_hint *h, int max);

/* report JOBID from Prometheus, for every node the job ran on
 * (report_cluster.c): as the caller, who sees what Slurm shows them. */
int report_cluster(struct cmd *cmd, unsigned long job, bool json);

#endif
