/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report's figures (report_figures.c), shared by its two sources: the
 * node's exporters (cmd_report.c) and Prometheus (report_cluster.c). */
#ifndef SPANK_EBPF_REPORT_H
#define SPANK_EBPF_REPORT_H

#include <stdbool.h>

#include <stddef.h>

#include "config.h"
#include "promtext.h"
#include "spank-ebpf.h"

struct json_object;

#define REPORT_METRIC_PREFIX "ebpf_exporter_spank_"

enum { OP_READ, OP_WRITE, OP_OTHER, OPS };

/* What a job's waits for a CPU were behind (spank-sched-detail's
 * "behind" label), in the order the report words them. */
enum { BEHIND_OTHER, BEHIND_OWN, BEHIND_OUTSIDE, BEHIND_IDLE, BEHINDS };

/* The series a figure is read from, each a bit of figures.damaged. */
enum {
	SERIES_IO_BYTES,                             /* + OP_*: io_bytes_total */
	SERIES_IO_LAT = SERIES_IO_BYTES + OPS,       /* + OP_*: io_latency_seconds_bucket */
	SERIES_RUNQ = SERIES_IO_LAT + OPS,           /* + BEHIND_*: sched_runq_..._bucket */
	SERIES_RUNQ_SUM = SERIES_RUNQ + BEHINDS,     /* + BEHIND_*: sched_runq_..._sum */
	SERIES_WAIT = SERIES_RUNQ_SUM + BEHINDS,
	SERIES_WAITS,
	SERIES_PRESSURE,
	SERIES_RETRANSMITS,
	SERIES_CONNECTS,
	SERIES_ACCEPTS,
	SERIES_OOM,
	SERIES_FS_DATA_OPS,   /* spank-fs (report_fs.c): fs_data_ops_total */
	SERIES_FS_DATA_BYTES, /* fs_data_bytes_total */
	SERIES_FS_META_OPS,   /* fs_meta_ops_total */
	SERIES_FS_META_LAT,   /* fs_meta_latency_seconds_bucket */
	SERIES_FS_RPCS,       /* fs_nfs_rpcs_total */
	SERIES_COUNT
};
#define SERIES_BIT(s) (1u << (s))

/* spank-fs's figures (report_fs.c): per file system (fstype, mount
 * point), bounded: FS_MOUNTS_MAX kept per job, in the order first seen,
 * the rest added up in one "other mounts" row (fs_mount[FS_MOUNTS_MAX]),
 * which the words name as such. */
enum { FS_READ, FS_WRITE, FS_DATA };
enum { FS_OPEN, FS_CREATE, FS_STAT, FS_SETATTR, FS_UNLINK, FS_RMDIR, FS_MKDIR, FS_RENAME, FS_LINK,
       FS_SYMLINK, FS_MKNOD, FS_READDIR, FS_FSYNC, FS_LOCK, FS_METAS };
enum { FSC_OPEN, FSC_STAT, FSC_SETATTR, FSC_NAMESPACE, FSC_READDIR, FSC_FSYNC, FSC_LOCK, FS_CLASSES };
#define FS_MOUNTS_MAX 16
#define FS_PROCS_MAX 12   /* NFS procedures kept per mount; the rest: proc_other */
#define FS_HIST_MAX 32    /* exp2 from 1 us: 28 bounds and +Inf */
#define FS_FSTYPE_MAX 32
#define FS_MOUNT_MAX 64   /* the probe's bound: 63 bytes */
#define FS_PROC_MAX 24

/* A latency histogram of the fs set, smaller than prom_hist (a job's
 * figures hold FS_CLASSES of them per mount). */
struct fs_hist {
	int n;
	double le[FS_HIST_MAX];
	double cum[FS_HIST_MAX];
};

struct fs_mount {
	char fstype[FS_FSTYPE_MAX]; /* "" with NFS RPCs alone (they carry no fstype) */
	char mount[FS_MOUNT_MAX];   /* "": the probe could not read it */
	double data_ops[FS_DATA], data_bytes[FS_DATA];
	double meta[FS_METAS];
	struct fs_hist lat[FS_CLASSES];
	int nprocs;
	struct {
		char name[FS_PROC_MAX];
		double n;
	} proc[FS_PROCS_MAX];
	double proc_other; /* the procedures beyond FS_PROCS_MAX, or a name not one */
};

/* A node's name as a report keeps it (the instance's host). */
#define CLUSTER_NODE_MAX 128

struct figures {
	bool io, sched, cpu, net, oom, fs;        /* some series of it seen */
	/* Series refused as damaged (SERIES_BIT): a value that is not a
	 * finite count, a bucket bound that is NaN or negative. Its figure
	 * is never shown as a number (report_damaged adds those whose sum
	 * is not finite). */
	unsigned int damaged;
	struct prom_hist io_lat[OPS];
	double io_bytes[OPS];
	struct prom_hist runq_by[BEHINDS], runq;  /* runq: all classes */
	double runq_sum[BEHINDS];                 /* seconds waited, per class */
	double wait_us, waits, pressure_us;       /* spank-sched */
	long long elapsed;                        /* the job's run time; -1: unknown */
	int cpu_nodes;                            /* nodes whose CPU wait is summed; 0: one */
	double retransmits, connects, accepts;
	double oom_kills;
	int fs_n;                                 /* fs_mount[0..fs_n-1] seen */
	bool fs_other;                            /* fs_mount[FS_MOUNTS_MAX] holds some */
	int fs_rows;                              /* a summary's fs=: the rows it says it has */
	/* FS_MOUNTS_MAX + 1 rows, allocated with the first (most nodes'
	 * figures have none: a job's cluster report holds one figures per
	 * node); report_figures_free frees them. */
	struct fs_mount *fs_mount;
	/* Observed for part of the run: a set of the job began to observe
	 * it late_s seconds after its start on a node (that set's exporter
	 * became ready then: a start that outlived timeout=, a restart
	 * under the job), late_set; 0: every set from the start. Summed
	 * over nodes: the latest, with its node. */
	long long late_s;
	char late_set[32];
	char late_node[CLUSTER_NODE_MAX];
};

/* Below this, a set that became ready after the job joined is taken
 * as observing it from the start (the prolog's own wait). */
#define REPORT_LATE_MIN_S 1
/* The job observed by set from late_s seconds after its start (on
 * node, NULL: this node): kept when it is the latest. */
void report_note_late(struct figures *f, long long late_s, const char *set, const char *node);

struct cluster;
/* f's allocations (its fs rows), f left without them; c's nodes' and
 * c->node. */
void report_figures_free(struct figures *f);
void report_cluster_free(struct cluster *c);

/* One sample (a series of the project's sets) into f. */
void report_take(struct figures *f, const struct prom_sample *s);
/* The samples of job in an exporter's /metrics text (modified). */
void report_read(struct figures *f, char *body, unsigned int job);
/* f->runq from its classes; once all samples are in. */
void report_runq_total(struct figures *f);
/* f's counts and buckets added into sum (a job's nodes). */
void report_figures_add(struct figures *sum, const struct figures *f);
bool report_figures_any(const struct figures *f);
/* f's damaged series (SERIES_BIT): those refused as they were read, and
 * those whose figure is not finite (a sum too large) or whose buckets'
 * counts fall. */
unsigned int report_damaged(const struct figures *f);
/* The words for the damaged series in damaged, from the *at-th series
 * on: the next one's into buf, after where ("node n1: "); false when
 * none is left. */
bool report_damage_next(unsigned int damaged, int *at, const char *where, char *buf, size_t len);
/* The figures' lines (indented two spaces), and their JSON members
 * ("io":...,"oom":...) added to obj (jsonout.h). */
void report_text_figures(const struct figures *f, int nerr);
void report_json_figures(struct json_object *obj, const struct figures *f);

struct report_hint;
/* spank-fs (report_fs.c), for report_figures.c: a sample of the fs set
 * (name without the prefix) into f; f's fs figures added into sum; its
 * damaged fs series (SERIES_BIT); its lines and its "fs" JSON member. */
void report_fs_take(struct figures *f, const char *name, const char *labels, double value);
void report_fs_add(struct figures *sum, const struct figures *f);
/* m added into sum's row of the same fstype and mount (made when it has
 * none), or into its other mounts' row. false: out of memory. */
bool report_fs_add_row(struct figures *sum, const struct fs_mount *m, bool other);
/* f's rows, allocated (zeroed) when it has none; NULL: out of memory. */
struct fs_mount *report_fs_rows(struct figures *f);
unsigned int report_fs_damaged(const struct figures *f);
void report_fs_text(const struct figures *f, unsigned int bad);
struct json_object *report_fs_json(const struct figures *f, unsigned int bad);
/* A network file system's type (nfs, nfs4, lustre, gpfs, beegfs, ceph,
 * cifs, smb3, fuse.*): the one list the command keeps. */
bool report_fs_network(const char *fstype);
/* The same list as a PromQL regex ("nfs|nfs4|...|fuse[.].+"). */
const char *report_fs_network_regex(void);
/* fs_hist as prom_hist and back (quantiles, adding). */
/* Is h's every bound a number, 0 or more, rising, and every count
 * finite, 0 or more, not falling? */
bool report_hist_ok(const struct prom_hist *h);
void report_fs_hist_get(const struct fs_hist *h, struct prom_hist *out);
void report_fs_hist_put(struct fs_hist *h, const struct prom_hist *in);
/* The fs hint (heavy metadata on a network file system) into h, when
 * n < max: returns the new n. */
int report_fs_hints(const struct figures *f, unsigned int bad, struct report_hint *h, int n, int max);
/* The names the labels carry, in the enums' order. */
extern const char *const report_fs_meta_names[FS_METAS];
extern const char *const report_fs_class_names[FS_CLASSES];
extern const char *const report_fs_data_names[FS_DATA];

/* A figure that says something, in plain words, with the threshold it
 * crossed. */
struct report_hint {
	const char *key;   /* for JSON: "slow_storage", ... */
	char text[300];
};
#define REPORT_HINTS_MAX 8
/* f's hints into h (at most max); returns how many. */
int report_hints(const struct figures *f, struct report_hint *h, int max);

/* A job's figures per node and for the whole job (Prometheus' answer,
 * or a stored summary's). */
#define CLUSTER_READY_MAX 8
struct cluster_node {
	char name[CLUSTER_NODE_MAX]; /* the instance's host, made printable */
	char sets[128];              /* from spank_ebpf_job_info, "" unknown */
	struct figures f;
	/* When the job joined its sets there, and when each set's exporter
	 * there last became ready (Unix seconds; jobinfo.h's textfile). */
	double start;
	int nready;
	struct {
		char set[32];
		double at;
	} ready[CLUSTER_READY_MAX];
};

struct cluster {
	size_t n;
	struct cluster_node *node;
	char failed[700]; /* why Prometheus could not be read; "" when it was */
	char left_out[800]; /* series of nodes outside the job, in words; "" none */
};

/* report JOBID from Prometheus, for every node the job ran on
 * (report_cluster.c): as the caller, who sees what Slurm shows them;
 * from the job's stored summary when Prometheus has nothing of it, or
 * with from_summary. */
int report_cluster(struct cmd *cmd, unsigned long job, bool json, bool from_summary);
/* The job's figures from Prometheus over r's start and end (0: running),
 * from r's nodes alone (c->left_out names the others), by deadline
 * (clock_us()): per node into c (sorted by name; free c->node), the
 * whole job into all. 0, or -1 (c->failed says why, in full). */
int report_cluster_collect(const struct config *cfg, unsigned long job, const struct job_range *r,
			   long long deadline, struct cluster *c, struct figures *all);
/* (c and all are overwritten first: free them with report_cluster_free
 * and report_figures_free.) */

/* The node of job nodes (Slurm's, expanded) a series' instance label
 * names ("n1:941", "n1.example.org:941", "[fe80::1]:941"): its index,
 * or -1 for a node outside them; host gets the instance's host either
 * way (not yet printable). For `top` too. */
struct hostlist;
long cluster_instance_host(const struct hostlist *nodes, const char *labels, char *host, size_t len);

/* The job summary kept in Slurm's accounting (report_summary.c): a token
 * "SE1:" + base32 of a compact text, stored by `spank-ebpf summary` at
 * the job's end (EpilogSlurmctld) beside whatever else the field holds. */
#define SUMMARY_TAG "SE1:"
#define SUMMARY_TOKEN_MAX 16384 /* the token's bound, its tag included */
struct summary {
	unsigned long job;
	long long at;      /* when it was made, Unix seconds */
	long long elapsed; /* the job's run time, s */
	size_t nodes;      /* nodes with series; the per-node figures kept: c->n */
	bool early;        /* made before Prometheus had scraped the job's
			    * series after its end: its last seconds may be
			    * missing ("early=1" in the head; none in older
			    * tokens) */
};
/* The token of h, all and c's nodes (in their order) into tok (len >=
 * SUMMARY_TOKEN_MAX + 1): the whole job always, then as many nodes as
 * fit the bound. Returns the nodes kept, or -1 when even the whole job
 * does not fit. */
long summary_encode(const struct summary *h, const struct figures *all, const struct cluster *c,
		    char *tok, size_t len);
/* The token of job in field (other words in it are left alone): into
 * *h, *all and c (free them with report_figures_free and
 * report_cluster_free; *all and c are overwritten first). 1 when read, 0 when the field has none,
 * -1 when it cannot be read (why says). */
int summary_decode(const char *field, unsigned long job, struct summary *h, struct figures *all,
		   struct cluster *c, char *why, size_t whylen);
/* field with tok in place of its own earlier tokens, put first: jobstats
 * reads from its "JS1:" to the field's end. -1 when out is too small. */
int summary_field_put(const char *field, const char *tok, char *out, size_t len);

#endif
