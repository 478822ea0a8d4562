/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `spank-ebpf top`: the running jobs of the cluster ranked by their
 * probes' rates, from Prometheus. cmd_top.c gathers (Slurm's job list,
 * one bounded query per column), sorts, filters and writes the plain and
 * JSON forms; top_screen.c is the full screen (ncurses), which only lays
 * out what cmd_top.c formats, so everything but the terminal is tested
 * without one. */
#ifndef SPANK_EBPF_TOP_H
#define SPANK_EBPF_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "slurmjobs.h"
#include "spank-ebpf.h"

/* The columns, in the order they are shown: the job's own, then one per
 * figure (each from one query, TOP_QUERIES in all). */
enum top_col {
	TOP_JOBID,
	TOP_USER,
	TOP_PARTITION,
	TOP_NODES,
	TOP_IO_BPS,   /* I/O bytes a second (io) */
	TOP_IO_P99,   /* I/O p99 latency, the worst node's (io) */
	TOP_FS_OPS,   /* network file system metadata operations a second (fs) */
	TOP_CPU_WAIT, /* share of the time a task waited for a CPU (sched) */
	TOP_BEHIND,   /* behind whom most of that wait went (sched-detail) */
	TOP_RETRANS,  /* TCP retransmits a second (net) */
	TOP_OOM,      /* OOM kills while the job ran (oom) */
	TOP_COLS
};
#define TOP_FIRST_FIGURE TOP_IO_BPS
#define TOP_QUERIES (TOP_COLS - TOP_FIRST_FIGURE)

#define TOP_FSTYPES_MAX 4
#define TOP_FSTYPE_MAX 32

struct top_fs {
	char type[TOP_FSTYPE_MAX];
	double ops;
};

/* One job's figures, or one node's of it. NAN: no series of it. */
struct top_figs {
	double v[TOP_COLS];
	double behind_s[BEHINDS]; /* seconds a second waited, by class */
	int nfs;
	struct top_fs fs[TOP_FSTYPES_MAX]; /* by fstype, the most first */
	int cpu_nodes;           /* nodes whose CPU wait is averaged */
};

struct top_node {
	char name[CLUSTER_NODE_MAX];
	struct top_figs f;
};

struct top_row {
	struct running_job j;
	size_t node_count;        /* Slurm's nodes of the job */
	struct top_figs f;        /* the whole job */
	size_t nn;
	struct top_node *node;    /* nodes with series, sorted by name */
	bool any;                 /* some series of it came */
};

struct top_filter {
	char user[64], partition[64], node[CLUSTER_NODE_MAX]; /* "": none */
};

struct top_view {
	/* What Slurm and Prometheus said at the last refresh. */
	size_t n;
	struct top_row *row;      /* the jobs with series, sorted */
	size_t running;           /* running jobs Slurm showed, series or not */
	double at;                /* the refresh's time (Unix seconds) */
	unsigned int window;      /* the rates' range, seconds */
	bool all_users;           /* root or an operator: every user's jobs */
	/* Partial figures, in words (a column's query that failed, series
	 * left out); "" when the figures are whole. */
	char failed[TOP_QUERIES][400];
	char left_out[600];
	char slurm_failed[600];   /* squeue could not be asked: no rows */
	/* How it is shown. */
	enum top_col sort;
	bool reverse;
	struct top_filter filter;
};

/* The whole command's state, for the screen. */
struct top_ctx {
	struct cmd *cmd;
	unsigned int delay;       /* seconds between refreshes */
	long iterations;          /* -n; 0: until q */
	struct top_view v;
};

/* Refreshes v from Slurm and Prometheus (bounded by timeout=). */
void top_refresh(struct top_ctx *t);
/* Sorts v's rows by v->sort (and reverse). */
void top_sort(struct top_view *v);

/* A column's heading, its width on screen, its key in JSON. */
const char *top_col_heading(enum top_col c);
int top_col_width(enum top_col c);
bool top_col_left(enum top_col c); /* text, aligned left */
/* The text of column c of figures f (row r for the job's own columns;
 * node for a node's line, NULL for the job's): printable ASCII, "-" for
 * no series. */
void top_cell(const struct top_row *r, const struct top_node *node, enum top_col c, char *buf,
	      size_t len);
/* The first line: what is shown, when, sorted how, filtered how. */
void top_title(const struct top_ctx *t, char *buf, size_t len);
/* The words of what is partial or failed, one a call from *at on
 * (0 first); false when none is left. */
bool top_note_next(const struct top_view *v, int *at, char *buf, size_t len);

/* The full screen until q (top_screen.c): 0, or -1 when there is no
 * terminal library (built without ncurses) or it cannot start (why). */
int top_screen(struct top_ctx *t, char *why, size_t whylen);

#endif
