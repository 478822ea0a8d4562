/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank-fs's figures (probes/spank-fs.yaml; docs/OPERATING.md, "Which
 * job is hammering the file server?"): per file system a job used (its
 * type and mount point), the data calls and bytes, the metadata calls by
 * operation, their latency by class, and the NFS RPCs they caused, read
 * sample by sample, added up over nodes and worded for report_figures.c.
 * Bounded: FS_MOUNTS_MAX mounts per job, in the order first seen, the
 * rest in one "other mounts" row, said so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "promtext.h"
#include "report.h"
#include "text.h"

const char *const report_fs_data_names[FS_DATA] = { "read", "write" };
const char *const report_fs_meta_names[FS_METAS] = { "open",   "create", "stat",    "setattr", "unlink",
						     "rmdir",  "mkdir",  "rename",  "link",    "symlink",
						     "mknod",  "readdir", "fsync",  "lock" };
const char *const report_fs_class_names[FS_CLASSES] = { "open",    "stat",  "setattr", "namespace",
							"readdir", "fsync", "lock" };

/* The network file systems: the command's one list, for the words, the
 * hint and spank-ebpf top (the contrib rules' regex is checked against
 * it by tests/contrib.sh). */
/* The network file systems, and FUSE ("fuse.*"), which are served by
 * a daemon and usually by the network too: the one list, which
 * report_fs_network_regex gives Prometheus (top) and contrib.sh compares
 * with the rules' and the dashboard's. */
static const char *const report_fs_net[] = { "nfs", "nfs4", "lustre", "gpfs", "beegfs", "ceph", "cifs", "smb3" };
#define REPORT_FS_FUSE_RE "fuse[.].+"

bool report_fs_network(const char *fstype)
{
	size_t i;

	if (!strncmp(fstype, "fuse.", 5))
		return true;
	for (i = 0; i < sizeof(report_fs_net) / sizeof(report_fs_net[0]); i++)
		if (!strcmp(fstype, report_fs_net[i]))
			return true;
	return false;
}

const char *report_fs_network_regex(void)
{
	static char re[128];
	size_t i, at = 0;

	if (re[0])
		return re;
	for (i = 0; i < sizeof(report_fs_net) / sizeof(report_fs_net[0]); i++)
		at += (size_t)snprintf(re + at, sizeof(re) - at, "%s|", report_fs_net[i]);
	snprintf(re + at, sizeof(re) - at, "%s", REPORT_FS_FUSE_RE);
	return re;
}

void report_fs_hist_get(const struct fs_hist *h, struct prom_hist *out)
{
	memset(out, 0, sizeof(*out));
	out->n = h->n;
	memcpy(out->le, h->le, (size_t)h->n * sizeof(h->le[0]));
	memcpy(out->cum, h->cum, (size_t)h->n * sizeof(h->cum[0]));
}

/* More bounds than it holds: those in between left out, the largest
 * kept last, so the total stays whole (as prom_hist_add does). */
void report_fs_hist_put(struct fs_hist *h, const struct prom_hist *in)
{
	int n = in->n > FS_HIST_MAX ? FS_HIST_MAX : in->n;

	h->n = n;
	memcpy(h->le, in->le, (size_t)n * sizeof(h->le[0]));
	memcpy(h->cum, in->cum, (size_t)n * sizeof(h->cum[0]));
	if (in->n > n) {
		h->le[n - 1] = in->le[in->n - 1];
		h->cum[n - 1] = in->cum[in->n - 1];
	}
}

static void report_fs_hist_add(struct fs_hist *sum, const struct fs_hist *h)
{
	static struct prom_hist a, b;

	if (!h->n)
		return;
	report_fs_hist_get(sum, &a);
	report_fs_hist_get(h, &b);
	prom_hist_add(&a, &b);
	report_fs_hist_put(sum, &a);
}

static double report_fs_hist_count(const struct fs_hist *h)
{
	return h->n ? h->cum[h->n - 1] : 0;
}

static double report_fs_p99(const struct fs_hist *h)
{
	static struct prom_hist p;

	report_fs_hist_get(h, &p);
	return prom_hist_quantile(&p, 0.99);
}

/* The checks and the sorted insert are the io histograms' own
 * (report_hist_ok, prom_hist_bucket), on a copy: one rule for both. */
static bool report_fs_hist_ok(const struct fs_hist *h)
{
	static struct prom_hist p;

	report_fs_hist_get(h, &p);
	return report_hist_ok(&p);
}

static void report_fs_hist_bucket(struct fs_hist *h, double le, double cum)
{
	static struct prom_hist p;

	report_fs_hist_get(h, &p);
	prom_hist_bucket(&p, le, cum);
	report_fs_hist_put(h, &p);
}

static int report_fs_index(const char *const *names, int n, const char *labels, const char *key)
{
	char v[24];
	int i;

	if (!prom_label(labels, key, v, sizeof(v)))
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

/* The row of (fstype, mount) in f: found, or a new one, or "other
 * mounts" once FS_MOUNTS_MAX are kept. fstype "" (an NFS RPC's, which
 * carries none) matches the mount's row whatever its type; a row made
 * by an RPC takes the type of the first series that names one. */
struct fs_mount *report_fs_rows(struct figures *f)
{
	if (!f->fs_mount)
		f->fs_mount = calloc(FS_MOUNTS_MAX + 1, sizeof(*f->fs_mount));
	return f->fs_mount;
}

/* NULL: out of memory. */
static struct fs_mount *report_fs_row(struct figures *f, const char *fstype, const char *mount)
{
	struct fs_mount *m;
	int i;

	if (!report_fs_rows(f))
		return NULL;
	for (i = 0; i < f->fs_n; i++) {
		m = &f->fs_mount[i];
		if (strcmp(m->mount, mount))
			continue;
		if (!fstype[0] || !strcmp(m->fstype, fstype))
			return m;
		if (!m->fstype[0]) {
			snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
			return m;
		}
	}
	if (f->fs_n == FS_MOUNTS_MAX) {
		f->fs_other = true;
		return &f->fs_mount[FS_MOUNTS_MAX];
	}
	m = &f->fs_mount[f->fs_n++];
	memset(m, 0, sizeof(*m));
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	snprintf(m->mount, sizeof(m->mount), "%s", mount);
	return m;
}

/* An NFS procedure as mountstats names it: upper case, digits, '_'. */
static bool report_fs_proc_ok(const char *p)
{
	return p[0] && strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(p);
}

/* n RPCs of procedure name into m: its own entry while there is room,
 * else (or a name that is not one) "other". */
static void report_fs_proc_add(struct fs_mount *m, const char *name, double n)
{
	int i;

	for (i = 0; report_fs_proc_ok(name) && i < m->nprocs; i++)
		if (!strcmp(m->proc[i].name, name)) {
			m->proc[i].n += n;
			return;
		}
	if (!report_fs_proc_ok(name) || m->nprocs == FS_PROCS_MAX) {
		m->proc_other += n;
		return;
	}
	snprintf(m->proc[m->nprocs].name, sizeof(m->proc[0].name), "%s", name);
	m->proc[m->nprocs++].n = n;
}

/* A count of series: finite, 0 or more, else the series refused. */
static bool report_fs_count_ok(struct figures *f, int series, double v)
{
	if (isfinite(v) && v >= 0)
		return true;
	f->damaged |= SERIES_BIT(series);
	return false;
}

void report_fs_take(struct figures *f, const char *name, const char *labels, double v)
{
	char fstype[FS_FSTYPE_MAX] = "", mount[FS_MOUNT_MAX] = "", proc[FS_PROC_MAX] = "";
	struct fs_mount *m;
	int i;

	/* Labels longer than the probe writes are cut, as it cuts them. */
	prom_label(labels, "fstype", fstype, sizeof(fstype));
	prom_label(labels, "mount", mount, sizeof(mount));
	if (!strcmp(name, "fs_data_ops_total") || !strcmp(name, "fs_data_bytes_total")) {
		bool bytes = name[8] == 'b';

		f->fs = true;
		i = report_fs_index(report_fs_data_names, FS_DATA, labels, "op");
		if (i < 0 || !report_fs_count_ok(f, bytes ? SERIES_FS_DATA_BYTES : SERIES_FS_DATA_OPS, v))
			return;
		m = report_fs_row(f, fstype, mount);
		if (!m)
			f->damaged |= SERIES_BIT(bytes ? SERIES_FS_DATA_BYTES : SERIES_FS_DATA_OPS);
		else if (bytes)
			m->data_bytes[i] += v;
		else
			m->data_ops[i] += v;
	} else if (!strcmp(name, "fs_meta_ops_total")) {
		f->fs = true;
		i = report_fs_index(report_fs_meta_names, FS_METAS, labels, "op");
		if (i >= 0 && report_fs_count_ok(f, SERIES_FS_META_OPS, v)) {
			m = report_fs_row(f, fstype, mount);
			if (m)
				m->meta[i] += v;
			else
				f->damaged |= SERIES_BIT(SERIES_FS_META_OPS);
		}
	} else if (!strcmp(name, "fs_meta_latency_seconds_bucket")) {
		char le[32], *end;
		double bound = NAN;

		f->fs = true;
		i = report_fs_index(report_fs_class_names, FS_CLASSES, labels, "class");
		if (i < 0)
			return;
		if (prom_label(labels, "le", le, sizeof(le))) {
			bound = strcmp(le, "+Inf") ? strtod(le, &end) : INFINITY;
			if (strcmp(le, "+Inf") && (end == le || *end))
				bound = NAN;
		}
		if (isnan(bound) || bound < 0) {
			f->damaged |= SERIES_BIT(SERIES_FS_META_LAT);
			return;
		}
		if (!report_fs_count_ok(f, SERIES_FS_META_LAT, v))
			return;
		m = report_fs_row(f, fstype, mount);
		if (!m) {
			f->damaged |= SERIES_BIT(SERIES_FS_META_LAT);
			return;
		}
		/* The other mounts' row adds its mounts' buckets up, bound by
		 * bound: one exporter's mounts share their bounds. */
		if (m == &f->fs_mount[FS_MOUNTS_MAX]) {
			int b;

			for (b = 0; b < m->lat[i].n && m->lat[i].le[b] != bound; b++)
				;
			if (b < m->lat[i].n)
				v += m->lat[i].cum[b];
		}
		report_fs_hist_bucket(&m->lat[i], bound, v);
	} else if (!strcmp(name, "fs_nfs_rpcs_total")) {
		f->fs = true;
		if (!report_fs_count_ok(f, SERIES_FS_RPCS, v))
			return;
		prom_label(labels, "procedure", proc, sizeof(proc));
		m = report_fs_row(f, "", mount);
		if (m)
			report_fs_proc_add(m, proc, v);
		else
			f->damaged |= SERIES_BIT(SERIES_FS_RPCS);
	}
}

static void report_fs_row_add(struct fs_mount *sum, const struct fs_mount *m)
{
	int i;

	for (i = 0; i < FS_DATA; i++) {
		sum->data_ops[i] += m->data_ops[i];
		sum->data_bytes[i] += m->data_bytes[i];
	}
	for (i = 0; i < FS_METAS; i++)
		sum->meta[i] += m->meta[i];
	for (i = 0; i < FS_CLASSES; i++)
		report_fs_hist_add(&sum->lat[i], &m->lat[i]);
	for (i = 0; i < m->nprocs; i++)
		report_fs_proc_add(sum, m->proc[i].name, m->proc[i].n);
	sum->proc_other += m->proc_other;
}

bool report_fs_add_row(struct figures *sum, const struct fs_mount *m, bool other)
{
	struct fs_mount *to;

	if (other) {
		if (!report_fs_rows(sum))
			return false;
		sum->fs_other = true;
		to = &sum->fs_mount[FS_MOUNTS_MAX];
	} else {
		to = report_fs_row(sum, m->fstype, m->mount);
	}
	if (!to)
		return false;
	report_fs_row_add(to, m);
	return true;
}

void report_fs_add(struct figures *sum, const struct figures *f)
{
	int i;

	sum->fs |= f->fs;
	/* Out of memory: the sum lacks a row, refused as damaged. */
	for (i = 0; i < f->fs_n; i++)
		if (!report_fs_add_row(sum, &f->fs_mount[i], false))
			sum->damaged |= SERIES_BIT(SERIES_FS_META_OPS);
	if (f->fs_other && !report_fs_add_row(sum, &f->fs_mount[FS_MOUNTS_MAX], true))
		sum->damaged |= SERIES_BIT(SERIES_FS_META_OPS);
}

void report_figures_free(struct figures *f)
{
	free(f->fs_mount);
	f->fs_mount = NULL;
	f->fs_n = 0;
	f->fs_other = false;
}

void report_cluster_free(struct cluster *c)
{
	size_t i;

	for (i = 0; c->node && i < c->n; i++)
		report_figures_free(&c->node[i].f);
	free(c->node);
	c->node = NULL;
	c->n = 0;
}

/* A row's figures that are not finite counts (a sum too large): their
 * series. */
static unsigned int report_fs_row_damaged(const struct fs_mount *m)
{
	unsigned int bad = 0;
	int i;

	for (i = 0; i < FS_DATA; i++) {
		if (!isfinite(m->data_ops[i]) || m->data_ops[i] < 0)
			bad |= SERIES_BIT(SERIES_FS_DATA_OPS);
		if (!isfinite(m->data_bytes[i]) || m->data_bytes[i] < 0)
			bad |= SERIES_BIT(SERIES_FS_DATA_BYTES);
	}
	for (i = 0; i < FS_METAS; i++)
		if (!isfinite(m->meta[i]) || m->meta[i] < 0)
			bad |= SERIES_BIT(SERIES_FS_META_OPS);
	for (i = 0; i < FS_CLASSES; i++)
		if (!report_fs_hist_ok(&m->lat[i]))
			bad |= SERIES_BIT(SERIES_FS_META_LAT);
	for (i = 0; i < m->nprocs; i++)
		if (!isfinite(m->proc[i].n) || m->proc[i].n < 0)
			bad |= SERIES_BIT(SERIES_FS_RPCS);
	if (!isfinite(m->proc_other) || m->proc_other < 0)
		bad |= SERIES_BIT(SERIES_FS_RPCS);
	return bad;
}

unsigned int report_fs_damaged(const struct figures *f)
{
	unsigned int bad = 0;
	int i;

	for (i = 0; i < f->fs_n; i++)
		bad |= report_fs_row_damaged(&f->fs_mount[i]);
	if (f->fs_other)
		bad |= report_fs_row_damaged(&f->fs_mount[FS_MOUNTS_MAX]);
	return bad;
}

/* Bytes in decimal units ("8.0 MB"), as a person reads them. */
static const char *report_fs_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "kB", "MB", "GB", "TB", "PB" };
	int u = -1;

	if (b < 1000) {
		snprintf(buf, len, "%.0f bytes", b);
		return buf;
	}
	while (b >= 1000 && u < 4) {
		b /= 1000;
		u++;
	}
	snprintf(buf, len, "%.1f %s", b, unit[u]);
	return buf;
}

/* A latency in the unit that reads best: "850 us", "4.0 ms", "1.20 s". */
static const char *report_fs_seconds(double s, char *buf, size_t len)
{
	if (s < 0.001)
		snprintf(buf, len, "%.0f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else
		snprintf(buf, len, "%.2f s", s);
	return buf;
}

static double report_fs_meta_total(const struct fs_mount *m)
{
	double n = 0;
	int i;

	for (i = 0; i < FS_METAS; i++)
		n += m->meta[i];
	return n;
}

/* "nfs4 /home", "other mounts (beyond the first 16 seen)". */
static void report_fs_where(const struct figures *f, const struct fs_mount *m, char *buf, size_t len)
{
	char t[4 * FS_FSTYPE_MAX], p[4 * FS_MOUNT_MAX];

	if (m == &f->fs_mount[FS_MOUNTS_MAX])
		snprintf(buf, len, "other mounts (more than a report keeps, added up)");
	else
		snprintf(buf, len, "%s %s", m->fstype[0] ? text_printable(m->fstype, t, sizeof(t)) : "(type unknown)",
			 m->mount[0] ? text_printable(m->mount, p, sizeof(p)) : "(mount point unknown)");
}

#define FS_REFUSED "not shown: a damaged series (named in the errors)"

/* One mount's line: its data calls, its metadata calls by operation (the
 * most first), the p99 latency of each class with calls. */
static void report_fs_text_row(const struct figures *f, const struct fs_mount *m, unsigned int bad)
{
	char where[600], b[32], lat[32];
	double meta = report_fs_meta_total(m);
	int i, k, said = 0, order[FS_METAS];
	bool data = m->data_ops[FS_READ] > 0 || m->data_ops[FS_WRITE] > 0 || m->data_bytes[FS_READ] > 0 ||
		    m->data_bytes[FS_WRITE] > 0;

	report_fs_where(f, m, where, sizeof(where));
	printf("  file systems: %s: ", where);
	if (bad & (SERIES_BIT(SERIES_FS_DATA_OPS) | SERIES_BIT(SERIES_FS_DATA_BYTES))) {
		printf("data calls " FS_REFUSED);
		said++;
	} else if (data) {
		for (i = 0; i < FS_DATA; i++)
			if (m->data_ops[i] > 0 || m->data_bytes[i] > 0)
				printf("%s%.0f %ss, %s", said++ ? ", " : "", m->data_ops[i], report_fs_data_names[i],
				       report_fs_bytes(m->data_bytes[i], b, sizeof(b)));
	}
	if (bad & SERIES_BIT(SERIES_FS_META_OPS)) {
		printf("%smetadata operations " FS_REFUSED, said++ ? "; " : "");
	} else if (meta > 0) {
		/* By count, the most first; ties in the label's order. */
		for (i = 0; i < FS_METAS; i++)
			order[i] = i;
		for (i = 1; i < FS_METAS; i++)
			for (k = i; k > 0 && m->meta[order[k]] > m->meta[order[k - 1]]; k--) {
				int t = order[k];

				order[k] = order[k - 1];
				order[k - 1] = t;
			}
		printf("%s%.0f metadata operations (", said++ ? "; " : "", meta);
		for (i = 0; i < FS_METAS && m->meta[order[i]] > 0; i++)
			printf("%s%.0f %s", i ? ", " : "", m->meta[order[i]], report_fs_meta_names[order[i]]);
		printf(")");
	}
	if (bad & SERIES_BIT(SERIES_FS_META_LAT)) {
		printf("%slatency " FS_REFUSED, said++ ? "; " : "");
	} else {
		for (i = 0, k = 0; i < FS_CLASSES; i++) {
			double p99 = report_fs_p99(&m->lat[i]);

			if (p99 < 0)
				continue;
			printf("%s%s %s", k++ ? ", " : (said++ ? "; p99 " : "p99 "), report_fs_class_names[i],
			       report_fs_seconds(p99, lat, sizeof(lat)));
		}
	}
	if (!said)
		printf("no call counted yet");
	printf("\n");
}

/* "NFS RPCs on /home: 4000 WRITE, 1000 GETATTR, ..., 12 other": the five
 * most, then the rest added up. */
static void report_fs_text_rpcs(const struct figures *f, const struct fs_mount *m, unsigned int bad)
{
	char where[600];
	int order[FS_PROCS_MAX], i, k;
	double rest = m->proc_other;

	if (!m->nprocs && m->proc_other <= 0)
		return;
	report_fs_where(f, m, where, sizeof(where));
	if (bad & SERIES_BIT(SERIES_FS_RPCS)) {
		printf("  NFS RPCs on %s: " FS_REFUSED "\n", where);
		return;
	}
	for (i = 0; i < m->nprocs; i++)
		order[i] = i;
	for (i = 1; i < m->nprocs; i++)
		for (k = i; k > 0 && m->proc[order[k]].n > m->proc[order[k - 1]].n; k--) {
			int t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	printf("  NFS RPCs on %s: ", where);
	for (i = 0; i < m->nprocs; i++) {
		if (i < 5)
			printf("%s%.0f %s", i ? ", " : "", m->proc[order[i]].n, m->proc[order[i]].name);
		else
			rest += m->proc[order[i]].n;
	}
	if (rest > 0)
		printf("%s%.0f other", m->nprocs ? ", " : "", rest);
	printf("\n");
}

static bool report_fs_rpcs_only(const struct fs_mount *m)
{
	int i;

	if (report_fs_meta_total(m) > 0 || m->data_ops[FS_READ] > 0 || m->data_ops[FS_WRITE] > 0 ||
	    m->data_bytes[FS_READ] > 0 || m->data_bytes[FS_WRITE] > 0)
		return false;
	for (i = 0; i < FS_CLASSES; i++)
		if (m->lat[i].n)
			return false;
	return m->nprocs > 0 || m->proc_other > 0;
}

void report_fs_text(const struct figures *f, unsigned int bad)
{
	int i;

	if (!f->fs)
		return;
	if (!f->fs_n && !f->fs_other) {
		printf("  file systems: no call counted yet\n");
		return;
	}
	for (i = 0; i <= FS_MOUNTS_MAX; i++) {
		if (i >= f->fs_n && i < FS_MOUNTS_MAX)
			continue;
		if (i == FS_MOUNTS_MAX && !f->fs_other)
			break;
		/* A mount with NFS RPCs alone (its calls not counted yet, or
		 * the probe saw none): its RPCs' line, no "no call" beside it. */
		if (!report_fs_rpcs_only(&f->fs_mount[i]))
			report_fs_text_row(f, &f->fs_mount[i], bad);
		report_fs_text_rpcs(f, &f->fs_mount[i], bad);
	}
}

static struct json_object *report_fs_num(double v, bool damaged)
{
	return damaged ? NULL : jsonout_double(v, 0);
}

static struct json_object *report_fs_json_row(const struct figures *f, const struct fs_mount *m, unsigned int bad)
{
	struct json_object *o = json_object_new_object(), *d, *x;
	bool other = m == &f->fs_mount[FS_MOUNTS_MAX];
	int i;

	jsonout_add(o, "fstype", other ? NULL : jsonout_string(m->fstype));
	jsonout_add(o, "mount", other ? NULL : jsonout_string(m->mount));
	jsonout_add(o, "other_mounts", jsonout_bool(other));
	jsonout_add(o, "network", jsonout_bool(!other && report_fs_network(m->fstype)));
	d = json_object_new_object();
	for (i = 0; i < FS_DATA; i++) {
		x = json_object_new_object();
		jsonout_add(x, "ops", report_fs_num(m->data_ops[i], bad & SERIES_BIT(SERIES_FS_DATA_OPS)));
		jsonout_add(x, "bytes", report_fs_num(m->data_bytes[i], bad & SERIES_BIT(SERIES_FS_DATA_BYTES)));
		jsonout_add(d, report_fs_data_names[i], x);
	}
	jsonout_add(o, "data", d);
	d = json_object_new_object();
	for (i = 0; i < FS_METAS; i++)
		jsonout_add(d, report_fs_meta_names[i], report_fs_num(m->meta[i], bad & SERIES_BIT(SERIES_FS_META_OPS)));
	jsonout_add(o, "meta", d);
	d = json_object_new_object();
	for (i = 0; i < FS_CLASSES; i++) {
		double p99 = report_fs_p99(&m->lat[i]);
		bool no = bad & SERIES_BIT(SERIES_FS_META_LAT);

		x = json_object_new_object();
		jsonout_add(x, "count", report_fs_num(report_fs_hist_count(&m->lat[i]), no));
		jsonout_add(x, "p99_seconds", p99 < 0 || no ? NULL : jsonout_double_g(p99, 9));
		jsonout_add(d, report_fs_class_names[i], x);
	}
	jsonout_add(o, "latency", d);
	d = NULL;
	if (!(bad & SERIES_BIT(SERIES_FS_RPCS))) {
		d = json_object_new_object();
		for (i = 0; i < m->nprocs; i++)
			jsonout_add(d, m->proc[i].name, jsonout_double(m->proc[i].n, 0));
		if (m->proc_other > 0)
			jsonout_add(d, "other", jsonout_double(m->proc_other, 0));
	}
	jsonout_add(o, "nfs_rpcs", d);
	return o;
}

struct json_object *report_fs_json(const struct figures *f, unsigned int bad)
{
	struct json_object *a;
	int i;

	if (!f->fs)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < f->fs_n; i++)
		jsonout_append(a, report_fs_json_row(f, &f->fs_mount[i], bad));
	if (f->fs_other)
		jsonout_append(a, report_fs_json_row(f, &f->fs_mount[FS_MOUNTS_MAX], bad));
	return a;
}

/* The hint's threshold (spank-ebpf(8)): metadata calls on one network
 * file system's mount, each a round trip to its servers. */
#define HINT_FS_META_OPS 100000

int report_fs_hints(const struct figures *f, unsigned int bad, struct report_hint *h, int n, int max)
{
	char where[600];
	int i;

	if (!f->fs || (bad & SERIES_BIT(SERIES_FS_META_OPS)))
		return n;
	for (i = 0; i < f->fs_n && n < max; i++) {
		const struct fs_mount *m = &f->fs_mount[i];
		double meta = report_fs_meta_total(m);

		if (!report_fs_network(m->fstype) || meta < HINT_FS_META_OPS)
			continue;
		report_fs_where(f, m, where, sizeof(where));
		h[n].key = "fs_metadata_heavy";
		snprintf(h[n++].text, sizeof(h->text),
			 "%.0f metadata operations on %.100s, %d or more: each a round trip to file servers every job shares (many small files, stat/open in a loop; a node's local disk is faster)",
			 meta, where, HINT_FS_META_OPS);
		break; /* one such hint: the busiest mounts' words would repeat */
	}
	return n;
}
