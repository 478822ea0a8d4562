/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job summary in Slurm's accounting: "SE1:" + base32 of lines
 *
 *   v1 job=42 at=1764000000 elapsed=95 nodes=2 kept=2
 *   f * sets=io io=0,8192000,0 l1=0.002:0/0.004:1999/0.008:2000
 *   f n1 sets=io io=0,4096000,0 l1=...
 *   f n2 sets=io io=0,4096000,0 bad=1
 *
 * "f *" is the whole job, each other "f" a node: its name, then its sets,
 * as the report shows them, with %XX for a character a name does not
 * carry as it is (a blank, '*', '=', '%') and "-" for "". Numbers read
 * back as they were written. "bad=" names the series refused as damaged
 * (report.h's SERIES_BIT), written 0. A histogram keeps only the buckets its
 * quantiles read (a bound where the count grows, and the one below it;
 * for a run-queue class, also those the classes' sum reads), so the
 * report gives the same figures from the summary as from Prometheus: the
 * reader adds the classes up as step functions. The whole job always
 * fits the bound; nodes follow in name order while they fit. Read back
 * strictly: the field is a site's too, and a token that does not read is
 * said, never half-used; whatever the writer writes, the reader reads.
 *
 * spank-fs's figures (report_fs.c), on any "f" line: "fs=N", its N
 * rows, then per row i "fmI=FSTYPE,MOUNT" ("fmI=*": the other mounts,
 * last), "fdI=" reads, writes, bytes read, bytes written, "fxI=" the 14
 * metadata counts, "flI.K=" class K's buckets (only those its p99 and
 * count read), "frI=PROC:n/..." ("*:n" the rest). Bounded: the
 * SUMMARY_FS_MOUNTS busiest mounts kept as they are (in their order), the
 * rest added into the other mounts' row; fewer for the whole job's line
 * when it would not leave room for nodes. A token without fs= (an older
 * one) reads as before; an older reader leaves these keys alone. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b32.h"
#include "report.h"

/* The mounts a line keeps as they are, and the room the whole job's fs
 * figures may take (fewer mounts kept when they would take more). */
#define SUMMARY_FS_MOUNTS 6
#define SUMMARY_FS_WHOLE_MAX 4096

/* The raw text's bound: what SUMMARY_TOKEN_MAX holds once encoded. */
#define SUMMARY_RAW_MAX ((SUMMARY_TOKEN_MAX - (sizeof(SUMMARY_TAG) - 1)) * 5 / 8)
#define SUMMARY_HEAD_MAX 128

struct summary_buf {
	char *p;
	size_t len, max;
	bool full;
};

static void summary_put(struct summary_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void summary_put(struct summary_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->max - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->max - b->len)
		b->full = true;
	else
		b->len += (size_t)n;
}

/* before, then v: as %.15g when that reads back as v, else as %.17g,
 * which always does (two bounds 1e-13 apart stay apart, the largest
 * double does not round up past it). */
static void summary_put_number(struct summary_buf *b, const char *before, double v)
{
	char s[40];

	snprintf(s, sizeof(s), "%.15g", v);
	if (strtod(s, NULL) != v)
		snprintf(s, sizeof(s), "%.17g", v);
	summary_put(b, "%s%s", before, s);
}

/* before, then n numbers, comma-separated, v[i] the figure of series
 * first + i: 0 for a damaged one (bad), which the reader refuses again
 * from "bad=", so nothing the reader refuses (inf, nan) is written. */
static void summary_put_numbers(struct summary_buf *b, const char *before, const double *v, int n,
				unsigned int bad, int first)
{
	int i;

	for (i = 0; i < n; i++)
		summary_put_number(b, i ? "," : before, bad & SERIES_BIT(first + i) ? 0 : v[i]);
}

/* A character a node or set name carries as it is; any other as %XX. */
static bool summary_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._-:[]?", c);
}

/* A name (a node's, or the sets, commas kept) as the summary keeps it:
 * as the report shows it, a byte outside printable ASCII as \xNN (as
 * text_printable writes it; report_cluster made it so already), within
 * the reader's bound; then a character it cannot carry as it is (a
 * blank, '*', '=', '%'...) as %XX, and "" as "-" ("-" itself as %2d):
 * summary_get_name reads back whatever this writes. */
static void summary_put_name(struct summary_buf *b, const char *name, bool commas)
{
	char shown[CLUSTER_NODE_MAX], piece[8];
	size_t i, n = 0, l;

	for (i = 0; name[i]; i++) {
		unsigned char c = (unsigned char)name[i];

		snprintf(piece, sizeof(piece), c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
		l = strlen(piece);
		if (n + l >= sizeof(shown))
			break;
		memcpy(shown + n, piece, l);
		n += l;
	}
	shown[n] = '\0';
	if (n == 0) {
		summary_put(b, "-");
		return;
	}
	for (i = 0; i < n; i++) {
		if ((summary_name_char(shown[i]) || (commas && shown[i] == ',')) && strcmp(shown, "-"))
			summary_put(b, "%c", shown[i]);
		else
			summary_put(b, "%%%02x", (unsigned char)shown[i]);
	}
}

/* Is bound i of h one its quantiles read: where its count grows, or the
 * one below such a bound? */
static bool summary_bound_read(const struct prom_hist *h, int i)
{
	double prev = i ? h->cum[i - 1] : 0;

	return h->cum[i] != prev || (i + 1 < h->n && h->cum[i + 1] != h->cum[i]);
}


/* One bucket, "le:count", after a '/' but for the first. */
static void summary_put_bucket(struct summary_buf *b, bool *first, double le, double cum)
{
	if (isinf(le))
		summary_put(b, "%sinf", *first ? "" : "/");
	else
		summary_put_number(b, *first ? "" : "/", le);
	summary_put_number(b, ":", cum);
	*first = false;
}
/* h's buckets that its quantiles read, and those that total's read (the
 * run-queue classes' sum, which the reader adds up again: a bound only
 * the sum needs is kept by the class that has it). */
static void summary_put_hist(struct summary_buf *b, const char *key, const struct prom_hist *h,
			     const struct prom_hist *total)
{
	int i, k = 0;
	bool first = true;

	if (h->n == 0 || h->cum[h->n - 1] <= 0)
		return;
	summary_put(b, " %s=", key);
	for (i = 0; i < h->n; i++) {
		bool keep = summary_bound_read(h, i);

		for (; total && k < total->n && total->le[k] < h->le[i]; k++)
			;
		if (total && k < total->n && total->le[k] == h->le[i])
			keep = keep || summary_bound_read(total, k);
		if (!keep)
			continue;
		summary_put_bucket(b, &first, h->le[i], h->cum[i]);
	}
}

/* Only the buckets class h's p99 and count read: the bucket its p99
 * falls in, the one below it, the last (the count). */
static void summary_put_fs_hist(struct summary_buf *b, const char *key, const struct fs_hist *h)
{
	double total = h->n ? h->cum[h->n - 1] : 0;
	int i, at;
	bool first = true;

	if (total <= 0)
		return;
	for (at = 0; at < h->n && !(h->cum[at] >= 0.99 * total && h->cum[at] > 0); at++)
		;
	summary_put(b, " %s=", key);
	for (i = 0; i < h->n; i++) {
		if (i != at - 1 && i != at && i != h->n - 1)
			continue;
		summary_put_bucket(b, &first, h->le[i], h->cum[i]);
	}
}

static double summary_fs_ops(const struct fs_mount *m)
{
	double n = m->data_ops[FS_READ] + m->data_ops[FS_WRITE];
	int i;

	for (i = 0; i < FS_METAS; i++)
		n += m->meta[i];
	return n;
}

/* One fs row, the i-th: other, the other mounts' row. */
static void summary_put_fs_row(struct summary_buf *b, int i, const struct fs_mount *m, bool other,
			       unsigned int bad)
{
	double d[4] = { m->data_ops[FS_READ], m->data_ops[FS_WRITE], m->data_bytes[FS_READ],
			m->data_bytes[FS_WRITE] };
	char key[16];
	int k;

	summary_put(b, " fm%d=", i);
	if (other) {
		summary_put(b, "*");
	} else {
		summary_put_name(b, m->fstype, false);
		summary_put(b, ",");
		summary_put_name(b, m->mount, false);
	}
	snprintf(key, sizeof(key), " fd%d=", i);
	summary_put_numbers(b, key, d, 2, bad, SERIES_FS_DATA_OPS);
	summary_put_numbers(b, ",", d + 2, 2, bad, SERIES_FS_DATA_BYTES);
	snprintf(key, sizeof(key), " fx%d=", i);
	for (k = 0; k < FS_METAS; k++)
		summary_put_number(b, k ? "," : key, bad & SERIES_BIT(SERIES_FS_META_OPS) ? 0 : m->meta[k]);
	for (k = 0; k < FS_CLASSES && !(bad & SERIES_BIT(SERIES_FS_META_LAT)); k++) {
		snprintf(key, sizeof(key), "fl%d.%d", i, k);
		summary_put_fs_hist(b, key, &m->lat[k]);
	}
	if ((m->nprocs || m->proc_other > 0) && !(bad & SERIES_BIT(SERIES_FS_RPCS))) {
		summary_put(b, " fr%d=", i);
		for (k = 0; k < m->nprocs; k++) {
			summary_put(b, "%s%s", k ? "/" : "", m->proc[k].name);
			summary_put_number(b, ":", m->proc[k].n);
		}
		if (m->proc_other > 0) {
			summary_put(b, "%s*", m->nprocs ? "/" : "");
			summary_put_number(b, ":", m->proc_other);
		}
	}
}

/* f's fs rows: the keep busiest as they are, in their order, the rest
 * added into the other mounts' row. Returns bad with the series that
 * adding made damaged (a sum too large: written 0, named in "bad="). */
static unsigned int summary_put_fs(struct summary_buf *b, const struct figures *f, unsigned int bad, int keep)
{
	static struct figures kept;
	bool in[FS_MOUNTS_MAX] = { false };
	int i, k, rows = 0;

	report_figures_free(&kept);
	memset(&kept, 0, sizeof(kept));
	for (k = 0; k < keep && k < f->fs_n; k++) {
		int best = -1;

		for (i = 0; i < f->fs_n; i++)
			if (!in[i] && (best < 0 || summary_fs_ops(&f->fs_mount[i]) > summary_fs_ops(&f->fs_mount[best])))
				best = i;
		in[best] = true;
	}
	/* Added as a node's rows are (report_fs_add_row); out of memory:
	 * refused as damaged, written 0. */
	for (i = 0; i < f->fs_n; i++)
		if (!report_fs_add_row(&kept, &f->fs_mount[i], !in[i]))
			bad |= SERIES_BIT(SERIES_FS_META_OPS);
	if (f->fs_other && !report_fs_add_row(&kept, &f->fs_mount[FS_MOUNTS_MAX], true))
		bad |= SERIES_BIT(SERIES_FS_META_OPS);
	bad |= report_fs_damaged(&kept);
	summary_put(b, " fs=%d", kept.fs_n + (kept.fs_other ? 1 : 0));
	for (i = 0; i < kept.fs_n; i++)
		summary_put_fs_row(b, rows++, &kept.fs_mount[i], false, bad);
	if (kept.fs_other)
		summary_put_fs_row(b, rows, &kept.fs_mount[FS_MOUNTS_MAX], true, bad);
	report_figures_free(&kept);
	return bad;
}

/* One "f" line: f's figures, nothing for what it has not. name NULL:
 * the whole job's ("*"). Its damaged series are named in "bad=" (their
 * bits), their figures written 0 and their buckets left out. */
static void summary_put_figures(struct summary_buf *b, const char *name, const char *sets,
				const struct figures *f, int fs_keep)
{
	unsigned int bad = report_damaged(f);
	char key[4];
	int i;

	summary_put(b, "f ");
	if (!name)
		summary_put(b, "*");
	else
		summary_put_name(b, name, false);
	summary_put(b, " sets=");
	summary_put_name(b, sets, true);
	if (f->io) {
		summary_put_numbers(b, " io=", f->io_bytes, OPS, bad, SERIES_IO_BYTES);
		for (i = 0; i < OPS; i++) {
			snprintf(key, sizeof(key), "l%d", i);
			if (!(bad & SERIES_BIT(SERIES_IO_LAT + i)))
				summary_put_hist(b, key, &f->io_lat[i], NULL);
		}
	}
	if (f->sched) {
		summary_put_numbers(b, " qs=", f->runq_sum, BEHINDS, bad, SERIES_RUNQ_SUM);
		for (i = 0; i < BEHINDS; i++) {
			snprintf(key, sizeof(key), "q%d", i);
			if (!(bad & SERIES_BIT(SERIES_RUNQ + i)))
				summary_put_hist(b, key, &f->runq_by[i], &f->runq);
		}
	}
	if (f->cpu) {
		double cpu[] = { f->wait_us, f->waits, f->pressure_us };

		summary_put_numbers(b, " cpu=", cpu, 3, bad, SERIES_WAIT);
		summary_put(b, ",%d", f->cpu_nodes);
	}
	if (f->net) {
		double net[] = { f->retransmits, f->connects, f->accepts };

		summary_put_numbers(b, " net=", net, 3, bad, SERIES_RETRANSMITS);
	}
	if (f->oom)
		summary_put_numbers(b, " oom=", &f->oom_kills, 1, bad, SERIES_OOM);
	if (f->fs)
		bad = summary_put_fs(b, f, bad, fs_keep);
	if (bad)
		summary_put(b, " bad=%u", bad);
	/* Observed for part of the run: from when, which set; on the whole
	 * job's line, which node too. */
	if (f->late_s > 0) {
		summary_put(b, " late=%lld,", f->late_s);
		summary_put_name(b, f->late_set, false);
		if (!name && f->late_node[0]) {
			summary_put(b, " latenode=");
			summary_put_name(b, f->late_node, false);
		}
	}
	summary_put(b, "\n");
}

long summary_encode(const struct summary *h, const struct figures *all, const struct cluster *c,
		    char *tok, size_t len)
{
	static char raw[SUMMARY_RAW_MAX + 1], line[SUMMARY_RAW_MAX + 1];
	struct summary_buf body = { raw + SUMMARY_HEAD_MAX, 0, SUMMARY_RAW_MAX - SUMMARY_HEAD_MAX + 1, false };
	char head[SUMMARY_HEAD_MAX];
	size_t kept, hl;
	int n;

	if (len < SUMMARY_TOKEN_MAX + 1)
		return -1;
	/* The whole job's line, with as many of its mounts as leave room. */
	for (n = SUMMARY_FS_MOUNTS;; n--) {
		struct summary_buf fs = { line, 0, sizeof(line), false };

		body.len = 0;
		body.full = false;
		summary_put_figures(&body, NULL, "", all, n);
		if (!all->fs || n == 0)
			break;
		summary_put_fs(&fs, all, report_damaged(all), n);
		if (!fs.full && fs.len <= SUMMARY_FS_WHOLE_MAX)
			break;
	}
	if (body.full)
		return -1;
	for (kept = 0; kept < c->n; kept++) {
		struct summary_buf l = { line, 0, sizeof(line), false };

		summary_put_figures(&l, c->node[kept].name, c->node[kept].sets, &c->node[kept].f, SUMMARY_FS_MOUNTS);
		if (l.full || body.len + l.len >= body.max)
			break;
		memcpy(body.p + body.len, line, l.len + 1);
		body.len += l.len;
	}
	n = snprintf(head, sizeof(head), "v1 job=%lu at=%lld elapsed=%lld nodes=%zu kept=%zu%s\n", h->job,
		     h->at, h->elapsed, h->nodes, kept, h->early ? " early=1" : "");
	if (n < 0 || (size_t)n >= sizeof(head))
		return -1;
	hl = (size_t)n;
	/* The head right before the body, in the room left for it. */
	memcpy(raw + SUMMARY_HEAD_MAX - hl, head, hl);
	memcpy(tok, SUMMARY_TAG, sizeof(SUMMARY_TAG) - 1);
	if (b32_encode(raw + SUMMARY_HEAD_MAX - hl, hl + body.len, tok + sizeof(SUMMARY_TAG) - 1,
		       len - (sizeof(SUMMARY_TAG) - 1)) < 0)
		return -1;
	return (long)kept;
}

/* The token's word in field: its tag in either case (Slurm 22.05's
 * sacctmgr stores "se1:"), after a blank or at the start, up to the next
 * blank. NULL when none. */
static const char *summary_find(const char *field, size_t *n)
{
	const char *p;

	for (p = field; (p = strcasestr(p, SUMMARY_TAG)); p++) {
		if (p == field || strchr(" \t\r\n", p[-1])) {
			*n = strcspn(p, " \t\r\n");
			return p;
		}
	}
	return NULL;
}

/* Is the word (n bytes, its tag first) a summary, ours to replace: base32
 * whose text starts as a head does ("v1 job=", any version)? An admin's
 * "se1:cluster-A" is their word, kept. */
static bool summary_word_is_token(const char *w, size_t n)
{
	static unsigned char raw[SUMMARY_RAW_MAX + 4];
	size_t t = sizeof(SUMMARY_TAG) - 1, d;
	long got;

	if (n <= t || n - t > SUMMARY_TOKEN_MAX)
		return false;
	got = b32_decode(w + t, n - t, raw, sizeof(raw));
	if (got < 4 || raw[0] != 'v')
		return false;
	d = strspn((const char *)raw + 1, "0123456789");
	return d > 0 && (size_t)got > 1 + d + 5 && !memcmp(raw + 1 + d, " job=", 5);
}

int summary_field_put(const char *field, const char *tok, char *out, size_t len)
{
	const char *p = field, *w;
	size_t o, n, tl = strlen(tok);

	if (tl + 1 >= len)
		return -1;
	memcpy(out, tok, tl);
	out[tl] = ' ';
	o = tl + 1;
	/* The rest of the field byte for byte (an admin's text, newlines and
	 * all, jobstats' JS1: last), less earlier summaries and one blank
	 * beside each. */
	for (;;) {
		size_t rest;

		w = p;
		while ((w = summary_find(w, &n)) && !summary_word_is_token(w, n))
			w += n;
		rest = w ? (size_t)(w - p) : strlen(p);
		if (o + rest >= len)
			return -1;
		memcpy(out + o, p, rest);
		o += rest;
		if (!w)
			break;
		p = w + n;
		if (*p == ' ')
			p++;
		else if (o > tl + 1 && out[o - 1] == ' ')
			o--;
	}
	/* Nothing after the token: no blank either. */
	if (o == tl + 1)
		o = tl;
	out[o] = '\0';
	return 0;
}

/* --- reading ----------------------------------------------------------- */

/* A hexadecimal digit's value; -1 for any other character. */
static int summary_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A name as summary_put_name writes it, into out (len bytes): "-" is "",
 * %XX a printable ASCII character (either case: Slurm 22.05 lowercases
 * the field), any other character one a name carries as it is. -1 for
 * anything else, or a name out cannot hold. */
static int summary_get_name(const char *w, bool commas, char *out, size_t len)
{
	size_t n = 0;

	if (!strcmp(w, "-")) {
		out[0] = '\0';
		return 0;
	}
	for (; *w; w++) {
		char c = *w;

		if (c == '%') {
			int hi = summary_hex(w[1]), lo = hi < 0 ? -1 : summary_hex(w[2]);

			if (lo < 0 || hi * 16 + lo < 0x20 || hi * 16 + lo >= 0x7f)
				return -1;
			c = (char)(hi * 16 + lo);
			w += 2;
		} else if (!summary_name_char(c) && !(commas && c == ',')) {
			return -1;
		}
		if (n + 1 >= len)
			return -1;
		out[n++] = c;
	}
	out[n] = '\0';
	return n ? 0 : -1;
}

/* A count: finite, 0 or more, the whole text. */
static int summary_number(const char *s, size_t n, double *v)
{
	char buf[40], *end;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!strchr("0123456789.", buf[0]))
		return -1;
	*v = strtod(buf, &end);
	return *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* "a,b,c" into v[0..n-1]: exactly n numbers. */
static int summary_numbers(const char *s, double *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		size_t l = strcspn(s, ",");

		if (summary_number(s, l, &v[i]) < 0)
			return -1;
		s += l;
		if (i + 1 < n && *s++ != ',')
			return -1;
	}
	return *s ? -1 : 0;
}

/* "le:cum/le:cum..." into h: bounds rising, counts not falling. */
static int summary_hist(const char *s, struct prom_hist *h)
{
	double last_le = -1, last_cum = 0;

	memset(h, 0, sizeof(*h));
	while (*s) {
		size_t l = strcspn(s, ":"), m;
		double le, cum;

		if (l == 3 && !strncmp(s, "inf", 3))
			le = INFINITY;
		else if (summary_number(s, l, &le) < 0)
			return -1;
		if (s[l] != ':')
			return -1;
		s += l + 1;
		m = strcspn(s, "/");
		if (summary_number(s, m, &cum) < 0 || le <= last_le || cum < last_cum ||
		    h->n == PROM_BUCKETS_MAX || isinf(last_le))
			return -1;
		prom_hist_bucket(h, le, cum);
		last_le = le;
		last_cum = cum;
		s += m;
		if (*s == '/' && !*++s)
			return -1;
	}
	return h->n ? 0 : -1;
}

/* Why the fs part of a line did not read, for the words. */
static const char *summary_fs_why;

/* -2 with why: the fs part of a line refused. */
static int summary_fs_refuse(const char *why)
{
	summary_fs_why = why;
	return -2;
}

/* Row i of the line's fs rows (fmI seen), or NULL. */
static struct fs_mount *summary_fs_row(struct figures *f, long i)
{
	if (i >= 0 && i < f->fs_n)
		return &f->fs_mount[i];
	if (f->fs_other && i == f->fs_n)
		return &f->fs_mount[FS_MOUNTS_MAX];
	return NULL;
}

/* A row's index after a key's letters ("fd3", "fl3.2": 3, *rest ".2"):
 * digits, at most two. -1 for none. */
static long summary_fs_index(const char *key, size_t kl, size_t at, size_t *end)
{
	size_t e = at;

	while (e < kl && e - at < 3 && key[e] >= '0' && key[e] <= '9')
		e++;
	if (e == at || e - at > 2 || (e - at > 1 && key[at] == '0'))
		return -1;
	*end = e;
	return strtol(key + at, NULL, 10);
}

/* "PROC:n/PROC:n/ *:n" into m: names as mountstats writes them, each
 * once, "*" (the rest) last. */
static int summary_fs_procs(struct fs_mount *m, const char *val)
{
	char name[FS_PROC_MAX];
	double n;

	while (*val) {
		size_t l = strcspn(val, ":"), k;

		if (val[l] != ':' || l == 0 || l >= sizeof(name))
			return -1;
		memcpy(name, val, l);
		name[l] = '\0';
		val += l + 1;
		k = strcspn(val, "/");
		if (summary_number(val, k, &n) < 0)
			return -1;
		val += k;
		if (*val == '/' && !*++val)
			return -1;
		if (!strcmp(name, "*")) {
			if (*val || m->proc_other > 0)
				return -1;
			m->proc_other = n;
			continue;
		}
		if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != l || m->nprocs == FS_PROCS_MAX)
			return -1;
		for (k = 0; k < (size_t)m->nprocs; k++)
			if (!strcmp(m->proc[k].name, name))
				return -1;
		snprintf(m->proc[m->nprocs].name, sizeof(m->proc[0].name), "%s", name);
		m->proc[m->nprocs++].n = n;
	}
	return 0;
}

/* One fs key of an "f" line (fs=, fmI, fdI, fxI, flI.K, frI) into f:
 * 0, -2 with summary_fs_why, or 1 for a key that is none of them. */
static int summary_fs_take(struct figures *f, const char *key, size_t kl, const char *val)
{
	double v[FS_METAS];
	struct fs_mount *m;
	size_t end;
	long i;

	if (kl == 2 && !strncmp(key, "fs", 2)) {
		if (f->fs || summary_numbers(val, v, 1) < 0 || v[0] != floor(v[0]) || v[0] > FS_MOUNTS_MAX + 1)
			return summary_fs_refuse("fs= is not a count of rows, or is there twice");
		f->fs = true;
		f->fs_rows = (int)v[0];
		return 0;
	}
	if (kl < 3 || key[0] != 'f' || !strchr("mdxlr", key[1]))
		return 1;
	i = summary_fs_index(key, kl, 2, &end);
	if (i < 0 || (key[1] != 'l' && end != kl))
		return 1;
	if (!f->fs)
		return summary_fs_refuse("a row before fs=");
	if (key[1] == 'm') {
		char fstype[FS_FSTYPE_MAX], mount[FS_MOUNT_MAX];
		const char *comma = strchr(val, ',');
		int k;

		if (i != f->fs_n + (f->fs_other ? 1 : 0) || f->fs_other || i >= f->fs_rows)
			return summary_fs_refuse("a row out of its order, after the other mounts', or beyond fs=");
		if (!report_fs_rows(f))
			return summary_fs_refuse("out of memory");
		if (!strcmp(val, "*")) {
			f->fs_other = true;
			return 0;
		}
		if (!comma || f->fs_n == FS_MOUNTS_MAX || (size_t)(comma - val) >= sizeof(fstype))
			return summary_fs_refuse("a row's fstype and mount do not read");
		memcpy(fstype, val, (size_t)(comma - val));
		fstype[comma - val] = '\0';
		if (summary_get_name(fstype, false, fstype, sizeof(fstype)) < 0 ||
		    summary_get_name(comma + 1, false, mount, sizeof(mount)) < 0)
			return summary_fs_refuse("a row's fstype and mount do not read");
		for (k = 0; k < f->fs_n; k++)
			if (!strcmp(f->fs_mount[k].fstype, fstype) && !strcmp(f->fs_mount[k].mount, mount))
				return summary_fs_refuse("a mount's row twice");
		m = &f->fs_mount[f->fs_n++];
		snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
		snprintf(m->mount, sizeof(m->mount), "%s", mount);
		return 0;
	}
	m = summary_fs_row(f, i);
	if (!m)
		return summary_fs_refuse("figures of a row not named before them");
	if (key[1] == 'd') {
		if (summary_numbers(val, v, 4) < 0)
			return summary_fs_refuse("a row's data figures are not 4 counts");
		m->data_ops[FS_READ] = v[0];
		m->data_ops[FS_WRITE] = v[1];
		m->data_bytes[FS_READ] = v[2];
		m->data_bytes[FS_WRITE] = v[3];
	} else if (key[1] == 'x') {
		if (summary_numbers(val, m->meta, FS_METAS) < 0)
			return summary_fs_refuse("a row's metadata figures are not 14 counts");
	} else if (key[1] == 'r') {
		if (m->nprocs || m->proc_other > 0 || summary_fs_procs(m, val) < 0)
			return summary_fs_refuse("a row's NFS RPCs do not read (PROCEDURE:count, each once)");
	} else {
		struct prom_hist h;
		long k;
		size_t e2;

		if (end >= kl || key[end] != '.' || (k = summary_fs_index(key, kl, end + 1, &e2)) < 0 || e2 != kl ||
		    k >= FS_CLASSES || m->lat[k].n || summary_hist(val, &h) < 0 || h.n > FS_HIST_MAX)
			return summary_fs_refuse("a row's latency buckets do not read (bounds rising, counts not falling)");
		report_fs_hist_put(&m->lat[k], &h);
	}
	return 0;
}

/* One key=value of an "f" line into f. Unknown keys: a newer release's,
 * left alone. */
static int summary_take(struct figures *f, char *sets, size_t setslen, const char *key, size_t kl,
			const char *val)
{
	double v[4];
	int fs = summary_fs_take(f, key, kl, val);

	if (fs <= 0)
		return fs;
	if (kl == 4 && !strncmp(key, "sets", 4)) {
		if (summary_get_name(val, true, sets, setslen) < 0)
			return -1;
	} else if (kl == 2 && !strncmp(key, "io", 2)) {
		if (summary_numbers(val, v, 3) < 0)
			return -1;
		f->io = true;
		memcpy(f->io_bytes, v, sizeof(f->io_bytes));
	} else if (kl == 2 && key[0] == 'l' && key[1] >= '0' && key[1] < '0' + OPS) {
		f->io = true;
		return summary_hist(val, &f->io_lat[key[1] - '0']);
	} else if (kl == 2 && !strncmp(key, "qs", 2)) {
		if (summary_numbers(val, v, 4) < 0)
			return -1;
		f->sched = true;
		memcpy(f->runq_sum, v, sizeof(f->runq_sum));
	} else if (kl == 2 && key[0] == 'q' && key[1] >= '0' && key[1] < '0' + BEHINDS) {
		f->sched = true;
		return summary_hist(val, &f->runq_by[key[1] - '0']);
	} else if (kl == 3 && !strncmp(key, "cpu", 3)) {
		if (summary_numbers(val, v, 4) < 0 || v[3] > 1e6)
			return -1;
		f->cpu = true;
		f->wait_us = v[0];
		f->waits = v[1];
		f->pressure_us = v[2];
		f->cpu_nodes = (int)v[3];
	} else if (kl == 3 && !strncmp(key, "net", 3)) {
		if (summary_numbers(val, v, 3) < 0)
			return -1;
		f->net = true;
		f->retransmits = v[0];
		f->connects = v[1];
		f->accepts = v[2];
	} else if (kl == 3 && !strncmp(key, "bad", 3)) {
		/* The series refused as damaged; bits of a newer release's
		 * series left alone. */
		if (summary_numbers(val, v, 1) < 0 || v[0] != floor(v[0]) || v[0] > UINT_MAX)
			return -1;
		f->damaged |= (unsigned int)v[0] & (SERIES_BIT(SERIES_COUNT) - 1);
	} else if (kl == 4 && !strncmp(key, "late", 4)) {
		char *comma, *e;
		long long s;

		comma = strchr(val, ',');
		if (!comma)
			return -1;
		errno = 0;
		s = strtoll(val, &e, 10);
		if (e != comma || errno || s < REPORT_LATE_MIN_S || s > 100LL * 365 * 86400 ||
		    summary_get_name(comma + 1, false, f->late_set, sizeof(f->late_set)) < 0)
			return -1;
		f->late_s = s;
	} else if (kl == 8 && !strncmp(key, "latenode", 8)) {
		if (summary_get_name(val, false, f->late_node, sizeof(f->late_node)) < 0)
			return -1;
	} else if (kl == 3 && !strncmp(key, "oom", 3)) {
		if (summary_numbers(val, v, 1) < 0)
			return -1;
		f->oom = true;
		f->oom_kills = v[0];
	}
	return 0;
}

/* An "f" line (without "f "): the whole job's (*whole), or a node's
 * (its name); its sets and figures. */
static int summary_figures_line(char *line, bool *whole, char *name, size_t namelen, char *sets,
				size_t setslen, struct figures *f)
{
	char *w, *save;

	memset(f, 0, sizeof(*f));
	sets[0] = '\0';
	name[0] = '\0';
	w = strtok_r(line, " ", &save);
	if (!w)
		return -1;
	*whole = !strcmp(w, "*");
	if (!*whole && summary_get_name(w, false, name, namelen) < 0)
		return -1;
	while ((w = strtok_r(NULL, " ", &save))) {
		char *eq = strchr(w, '=');

		int rc;

		if (!eq || eq == w)
			return -1;
		rc = summary_take(f, sets, setslen, w, (size_t)(eq - w), eq + 1);
		if (rc < 0)
			return rc;
	}
	if (f->fs && f->fs_n + (f->fs_other ? 1 : 0) != f->fs_rows)
		return summary_fs_refuse("fewer rows than fs= says");
	report_runq_total(f);
	return 0;
}

static int summary_head(const char *line, unsigned long job, struct summary *h, size_t *kept)
{
	unsigned long long j, nodes, k;
	long long at, elapsed;
	int used = 0;

	/* " early=1": made before the job's last scrape; a head without it
	 * (every older token) was not. */
	if (sscanf(line, "v1 job=%llu at=%lld elapsed=%lld nodes=%llu kept=%llu%n", &j, &at, &elapsed,
		   &nodes, &k, &used) != 5 || (line[used] != '\0' && strcmp(line + used, " early=1")))
		return -1;
	h->early = line[used] != '\0';
	if (j != job || at < 0 || elapsed < 0 || k > nodes || nodes > 1000000)
		return -1;
	h->job = job;
	h->at = at;
	h->elapsed = elapsed;
	h->nodes = (size_t)nodes;
	*kept = (size_t)k;
	return 0;
}

int summary_decode(const char *field, unsigned long job, struct summary *h, struct figures *all,
		   struct cluster *c, char *why, size_t whylen)
{
	static unsigned char raw[SUMMARY_RAW_MAX + 4];
	const char *tok;
	char *line, *save;
	size_t n, kept = 0;
	long got;
	bool whole = false;

	memset(c, 0, sizeof(*c));
	memset(all, 0, sizeof(*all));
	tok = summary_find(field, &n);
	if (!tok)
		return 0;
	n -= sizeof(SUMMARY_TAG) - 1;
	got = b32_decode(tok + sizeof(SUMMARY_TAG) - 1, n, raw, sizeof(raw));
	if (got < 0 || memchr(raw, '\0', (size_t)got)) {
		snprintf(why, whylen, "its summary is not base32 text");
		return -1;
	}
	line = strtok_r((char *)raw, "\n", &save);
	if (!line || summary_head(line, job, h, &kept) < 0) {
		snprintf(why, whylen, "its summary's first line is not one this release reads (v1, for job %lu)",
			 job);
		return -1;
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		char name[CLUSTER_NODE_MAX], sets[128];
		struct figures f;
		bool is_job;

		int rc;

		f.fs_mount = NULL;
		rc = strncmp(line, "f ", 2) ? -1 :
		     summary_figures_line(line + 2, &is_job, name, sizeof(name), sets, sizeof(sets), &f);
		if (rc < 0)
			report_figures_free(&f);
		if (rc == -2) {
			snprintf(why, whylen, "its summary is damaged: its file system figures do not read: %s",
				 summary_fs_why);
			goto refused;
		}
		if (rc < 0)
			goto damaged;
		f.elapsed = h->elapsed;
		if (is_job && !whole) {
			*all = f;
			whole = true;
		} else if (!is_job && whole && c->n < kept) {
			struct cluster_node *nd;

			if (c->n % 16 == 0) {
				nd = realloc(c->node, (c->n + 16) * sizeof(*nd));
				if (!nd) {
					report_figures_free(&f);
					goto damaged;
				}
				c->node = nd;
			}
			nd = &c->node[c->n++];

			snprintf(nd->name, sizeof(nd->name), "%s", name);
			snprintf(nd->sets, sizeof(nd->sets), "%s", sets);
			nd->f = f;
			/* A node's line names no node: its own. */
			if (nd->f.late_s > 0)
				snprintf(nd->f.late_node, sizeof(nd->f.late_node), "%s", name);
		} else {
			report_figures_free(&f);
			goto damaged;
		}
	}
	if (!whole || c->n != kept)
		goto damaged;
	return 1;
damaged:
	snprintf(why, whylen, "its summary is damaged (a line this release cannot read)");
refused:
	report_cluster_free(c);
	report_figures_free(all);
	memset(c, 0, sizeof(*c));
	return -1;
}
