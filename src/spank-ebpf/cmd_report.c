/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report [--json] JOBID: a job's figures now, from the running exporters
 * of the probe sets it holds (or held, within their linger), for a user
 * without Prometheus. Read-only and lock-free. A caller other than root
 * sees only the jobs of their own uid (the node's record of the job,
 * written by its prolog from Slurm's SLURM_JOB_UID); names are shown,
 * never compared. Whatever an exporter says is made printable first: any
 * local user may serve a set's idle port. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "httpget.h"
#include "jobinfo.h"
#include "promtext.h"
#include "sets.h"
#include "slurmjobs.h"
#include "spank-ebpf.h"
#include "statefile.h"
#include "text.h"
#include "unit.h"

/* Each set's read, and the whole report: sets are read one after the
 * other, and the report unit's RuntimeMaxSec=30 must outlast them all
 * (16 sets at 3 s would not). */
#define REPORT_TIMEOUT_MS 3000
#define REPORT_BUDGET_MS 15000
#define REPORT_BODY_MAX (16u << 20)
#define P "ebpf_exporter_spank_"

enum { OP_READ, OP_WRITE, OP_OTHER, OPS };
static const char *const op_names[OPS] = { "read", "write", "other" };

/* What a job's waits for a CPU were behind (spank-sched-detail's
 * "behind" label), in the order the report words them. */
enum { BEHIND_OTHER, BEHIND_OWN, BEHIND_OUTSIDE, BEHIND_IDLE, BEHINDS };
static const char *const behind_labels[BEHINDS] = { "other_jobs", "own_job", "outside_jobs",
						    "idle_cpu" };
static const char *const behind_words[BEHINDS] = { "behind other jobs", "behind its own tasks",
						   "behind processes outside any job",
						   "on an idle CPU (waking up)" };

struct figures {
	bool io, sched, cpu, net, oom;            /* some series of it seen */
	struct prom_hist io_lat[OPS];
	double io_bytes[OPS];
	struct prom_hist runq_by[BEHINDS], runq;  /* runq: all classes */
	double runq_sum[BEHINDS];                 /* seconds waited, per class */
	double wait_us, waits, pressure_us;       /* spank-sched */
	long long elapsed;                        /* the job's run time; -1: unknown */
	double retransmits, connects, accepts;
	double oom_kills;
};

static int report_op(const char *labels)
{
	char op[16];
	int i;

	if (!prom_label(labels, "operation", op, sizeof(op)))
		return -1;
	for (i = 0; i < OPS; i++)
		if (!strcmp(op, op_names[i]))
			return i;
	return -1;
}

static void report_bucket(struct prom_hist *h, const char *labels, double v)
{
	char le[32];

	if (prom_label(labels, "le", le, sizeof(le)))
		prom_hist_bucket(h, strcmp(le, "+Inf") ? strtod(le, NULL) : 1.0 / 0.0, v);
}

static int report_behind(const char *labels)
{
	char b[24];
	int i;

	if (!prom_label(labels, "behind", b, sizeof(b)))
		return BEHIND_OUTSIDE; /* an older spank-sched-detail: no class */
	for (i = 0; i < BEHINDS; i++)
		if (!strcmp(b, behind_labels[i]))
			return i;
	return -1;
}

/* runq, all classes: the classes' buckets added bound by bound. */
static void report_runq_total(struct figures *f)
{
	int b, i, k;

	memset(&f->runq, 0, sizeof(f->runq));
	for (b = 0; b < BEHINDS; b++)
		for (i = 0; i < f->runq_by[b].n; i++) {
			for (k = 0; k < f->runq.n && f->runq.le[k] != f->runq_by[b].le[i]; k++)
				;
			if (k == f->runq.n) {
				if (k == PROM_BUCKETS_MAX)
					continue;
				f->runq.le[k] = f->runq_by[b].le[i];
				f->runq.cum[k] = 0;
				f->runq.n++;
			}
			f->runq.cum[k] += f->runq_by[b].cum[i];
		}
}

/* One sample of the job's: into its figure. */
static void report_take(struct figures *f, const struct prom_sample *s)
{
	int op = report_op(s->labels);

	/* NaN or an infinity is no count an exporter of ours writes; taken,
	 * it would print as "nan" and break --json. */
	if (!isfinite(s->value))
		return;
	if (!strcmp(s->name, P "io_latency_seconds_bucket") && op >= 0) {
		f->io = true;
		report_bucket(&f->io_lat[op], s->labels, s->value);
	} else if (!strcmp(s->name, P "io_bytes_total") && op >= 0) {
		f->io = true;
		f->io_bytes[op] += s->value;
	} else if (!strcmp(s->name, P "sched_runq_latency_seconds_bucket")) {
		int b = report_behind(s->labels);

		f->sched = true;
		if (b >= 0)
			report_bucket(&f->runq_by[b], s->labels, s->value);
	} else if (!strcmp(s->name, P "sched_runq_latency_seconds_sum")) {
		int b = report_behind(s->labels);

		f->sched = true;
		if (b >= 0)
			f->runq_sum[b] += s->value;
	} else if (!strcmp(s->name, P "sched_wait_microseconds_total")) {
		f->cpu = true;
		f->wait_us += s->value;
	} else if (!strcmp(s->name, P "sched_waits_total")) {
		f->cpu = true;
		f->waits += s->value;
	} else if (!strcmp(s->name, P "sched_pressure_microseconds_total")) {
		f->cpu = true;
		f->pressure_us += s->value;
	} else if (!strcmp(s->name, P "net_tcp_retransmits_total")) {
		f->net = true;
		f->retransmits += s->value;
	} else if (!strcmp(s->name, P "net_tcp_connections_total")) {
		char dir[16] = "";

		f->net = true;
		prom_label(s->labels, "direction", dir, sizeof(dir));
		if (!strcmp(dir, "accept"))
			f->accepts += s->value;
		else
			f->connects += s->value;
	} else if (!strcmp(s->name, P "oom_kills_total")) {
		f->oom = true;
		f->oom_kills += s->value;
	}
}

/* The job's samples in one exporter's answer. */
static void report_read(struct figures *f, char *body, unsigned int job)
{
	char want[16], id[16], *line, *save;
	struct prom_sample s;

	snprintf(want, sizeof(want), "%u", job);
	for (line = strtok_r(body, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (prom_parse_line(line, &s) == 1 && !strncmp(s.name, P, strlen(P)) &&
		    prom_label(s.labels, "jobid", id, sizeof(id)) && !strcmp(id, want))
			report_take(f, &s);
}

static double report_count(const struct prom_hist *h)
{
	return h->n ? h->cum[h->n - 1] : 0;
}

/* The share of p out of whole, in whole percent ("31%"); "<1%" for a
 * little that rounds to 0. */
static const char *report_percent(double p, double whole, char *buf, size_t len)
{
	double pct = whole > 0 ? 100.0 * p / whole : 0;

	if (pct > 0 && pct < 0.5)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", pct > 100 ? 100 : pct);
	return buf;
}

/* spank-sched's words: the share of the job's time with a task waiting,
 * when Slurm told its run time. */
static void report_text_cpu(const struct figures *f)
{
	double pressure = f->pressure_us / 1e6, wait = f->wait_us / 1e6;
	char pct[16];

	if (f->elapsed > 0)
		printf("  CPU wait   your job waited for a CPU %s of the time (%.1f s of its %lld s with a task waiting)",
		       report_percent(pressure, (double)f->elapsed, pct, sizeof(pct)), pressure,
		       f->elapsed);
	else
		printf("  CPU wait   your job had a task waiting for a CPU for %.1f s", pressure);
	printf("; its tasks waited %.1f s in all, %.0f times\n", wait, f->waits);
}

/* spank-sched-detail's: the latency, and behind whom the time went. */
static void report_text_runq(const struct figures *f)
{
	double all = 0;
	char pct[16];
	int b, said = 0;

	printf("  run queue  %.0f waits, p50 %.6f s, p99 %.6f s", report_count(&f->runq),
	       prom_hist_quantile(&f->runq, 0.5), prom_hist_quantile(&f->runq, 0.99));
	for (b = 0; b < BEHINDS; b++)
		all += f->runq_sum[b];
	for (b = 0; all > 0 && b < BEHINDS; b++) {
		if (f->runq_sum[b] <= 0)
			continue;
		printf("%s%s %s", said++ ? ", " : "; of the time waited, ",
		       report_percent(f->runq_sum[b], all, pct, sizeof(pct)), behind_words[b]);
	}
	printf("\n");
}

static void report_text(const struct jobinfo *j, const struct figures *f, int nerr)
{
	int op;

	char user[4 * sizeof(j->user)], sets[4 * sizeof(j->sets)];
	bool io_any = false;

	printf("job %u (user %s), probe sets %s%s\n", j->job,
	       text_printable(j->user, user, sizeof(user)), text_printable(j->sets, sets, sizeof(sets)),
	       j->end ? ", ended" : "");
	for (op = 0; f->io && op < OPS; op++) {
		const struct prom_hist *h = &f->io_lat[op];

		if (report_count(h) == 0 && f->io_bytes[op] == 0)
			continue;
		io_any = true;
		/* Bytes without a latency: the device's requests carry no
		 * start time the probe can read, not an empty histogram. */
		if (report_count(h) == 0)
			printf("  I/O %-5s  %.0f bytes, latency not measured (the device keeps no request start times)\n",
			       op_names[op], f->io_bytes[op]);
		else
			printf("  I/O %-5s  %.0f requests, %.0f bytes, latency p50 %.6f s, p99 %.6f s\n",
			       op_names[op], report_count(h), f->io_bytes[op],
			       prom_hist_quantile(h, 0.5), prom_hist_quantile(h, 0.99));
	}
	if (f->io && !io_any)
		printf("  I/O        no block I/O request yet\n");
	if (f->cpu)
		report_text_cpu(f);
	if (f->sched)
		report_text_runq(f);
	if (f->net)
		printf("  TCP        %.0f retransmits, %.0f connections (%.0f connect, %.0f accept)\n",
		       f->retransmits, f->connects + f->accepts, f->connects, f->accepts);
	if (f->oom)
		printf("  OOM        %.0f processes killed\n", f->oom_kills);
	if (!f->io && !f->sched && !f->cpu && !f->net && !f->oom)
		printf("  no series of this job in its sets' exporters%s\n",
		       nerr ? " (some could not be read: above)" : " yet");
}

static void report_json_hist(const char *key, const struct prom_hist *h)
{
	double p50 = prom_hist_quantile(h, 0.5), p99 = prom_hist_quantile(h, 0.99);

	printf("\"%s\":{\"count\":%.0f,", key, report_count(h));
	if (p50 < 0)
		printf("\"p50_seconds\":null,\"p99_seconds\":null}");
	else
		printf("\"p50_seconds\":%.9g,\"p99_seconds\":%.9g}", p50, p99);
}

static void report_json(const struct jobinfo *j, const struct figures *f, char errs[][800],
			int nerr)
{
	char s[6 * 800]; /* an error (errs[]), each byte as \u00XX at worst */
	int op, i;

	printf("{\"job\":%u,\"user\":\"%s\",\"sluid\":", j->job,
	       text_json_string(j->user, s, sizeof(s)));
	if (j->sluid[0])
		printf("\"%s\"", text_json_string(j->sluid, s, sizeof(s)));
	else
		printf("null");
	printf(",\"sets\":\"%s\",\"ended\":%s", text_json_string(j->sets, s, sizeof(s)),
	       j->end ? "true" : "false");
	printf(",\"io\":");
	if (f->io) {
		printf("{");
		for (op = 0; op < OPS; op++) {
			printf("%s\"%s\":{\"bytes\":%.0f,", op ? "," : "", op_names[op], f->io_bytes[op]);
			report_json_hist("latency", &f->io_lat[op]);
			printf("}");
		}
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"cpu\":");
	if (f->cpu) {
		printf("{\"wait_seconds\":%.6f,\"waits\":%.0f,\"pressure_seconds\":%.6f,", f->wait_us / 1e6,
		       f->waits, f->pressure_us / 1e6);
		if (f->elapsed > 0)
			printf("\"elapsed_seconds\":%lld,\"waiting_share\":%.4f}", f->elapsed,
			       f->pressure_us / 1e6 / (double)f->elapsed);
		else
			printf("\"elapsed_seconds\":null,\"waiting_share\":null}");
	} else {
		printf("null");
	}
	printf(",\"sched\":");
	if (f->sched) {
		printf("{");
		report_json_hist("runq_latency", &f->runq);
		printf(",\"behind_seconds\":{");
		for (op = 0; op < BEHINDS; op++)
			printf("%s\"%s\":%.6f", op ? "," : "", behind_labels[op], f->runq_sum[op]);
		printf("}}");
	} else {
		printf("null");
	}
	if (f->net)
		printf(",\"net\":{\"retransmits\":%.0f,\"connections\":{\"connect\":%.0f,\"accept\":%.0f}}",
		       f->retransmits, f->connects, f->accepts);
	else
		printf(",\"net\":null");
	if (f->oom)
		printf(",\"oom\":{\"kills\":%.0f}", f->oom_kills);
	else
		printf(",\"oom\":null");
	printf(",\"errors\":[");
	for (i = 0; i < nerr; i++)
		printf("%s\"%s\"", i ? "," : "", text_json_string(errs[i], s, sizeof(s)));
	printf("]}\n");
}

/* Root (uid 0) sees every job; anyone else the jobs recorded with their
 * uid. A record without one (an older release's) is root's only. */
static int report_allowed(const struct jobinfo *j, long long uid)
{
	return uid == 0 || (j->uid != JOBINFO_UID_NONE && j->uid == uid);
}

static int report_job(struct cmd *cmd, unsigned long job, bool json, long long uid);

enum { OPT_JSON, OPT_SOCKET, OPT_PEER, NOPTS };
const struct option_spec report_options[] = {
	[OPT_JSON] = { "json", NULL, "one JSON object instead of text", 0 },
	[OPT_SOCKET] = { "socket", "PATH", "ask the report service listening at PATH", 0 },
	[OPT_PEER] = { "peer", NULL, "serve one request on standard input (spank-ebpf-report@.service)", OPT_ALONE },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

/* Set i's /metrics, only if its address is held by its own unit's
 * processes before and after the answer: anyone else's server there
 * (a user's, once the unit stopped) would have its numbers shown as the
 * job's. NULL with err saying why otherwise. */
static char *report_owned_get(const struct config *cfg, const struct sets *sets, int i,
			      unsigned int timeout_ms, char *err, size_t errlen)
{
	char unit[CONFIG_UNIT_MAX];
	char *body;

	sets_unit(sets, sets->set[i].name, unit, sizeof(unit));
	/* Nothing listening: the connection's own error says so. */
	if (unit_holds_address(cfg, unit, &sets->set[i].addr, err, errlen) == 0)
		return NULL;
	body = http_get_metrics(&sets->set[i].addr, timeout_ms, REPORT_BODY_MAX, err, errlen);
	if (body && unit_holds_address(cfg, unit, &sets->set[i].addr, err, errlen) != 1) {
		free(body);
		return NULL;
	}
	return body;
}

int cmd_report(struct cmd *cmd)
{
	const char *vals[NOPTS] = { NULL }, *pos[1];
	char *end;
	unsigned long job;
	int npos, rc;

	rc = parse_options(cmd, vals, pos, 1, &npos);
	if (rc)
		return rc;
	if (vals[OPT_PEER]) {
		if (npos || vals[OPT_JSON] || vals[OPT_SOCKET])
			return usage_error(cmd, "--peer takes its request from the connection on standard input");
		return report_peer_serve(cmd, report_job);
	}
	if (npos != 1)
		return usage_error(cmd, "which job?");
	job = strtoul(pos[0], &end, 10);
	if (*end || end == pos[0] || job == 0 || job > 0xfffffffdul)
		return usage_error(cmd, "\"%.40s\" is not a job ID", pos[0]);
	/* A user asks root's service, which can read every port (the
	 * firewall may close them to users); without it, the ports. */
	if (geteuid() != 0 || vals[OPT_SOCKET]) {
		rc = report_peer_ask(vals[OPT_SOCKET] ? vals[OPT_SOCKET] : REPORT_SOCKET, job, vals[OPT_JSON] != NULL);
		if (rc >= 0)
			return rc;
		if (vals[OPT_SOCKET]) {
			fprintf(stderr, "spank-ebpf: report: no report service at \"%s\"\n", vals[OPT_SOCKET]);
			return EXIT_UNSURE;
		}
	}
	return report_job(cmd, job, vals[OPT_JSON] != NULL, geteuid() == 0 ? 0 : (long long)getuid());
}

static int report_job(struct cmd *cmd, unsigned long job, bool json, long long uid)
{
	static struct sets sets;
	static struct figures f;
	static char errs[SETS_MAX][800];
	long long budget_end = clock_us() + REPORT_BUDGET_MS * 1000LL;
	struct jobinfo_list l = { 0, NULL };
	const struct jobinfo *j;
	struct statefile sf;
	char err[700];
	int rc, nerr = 0;
	const char *c;

	memset(&f, 0, sizeof(f));
	if (load_config(cmd) < 0)
		return EXIT_UNSURE;
	if (!cmd->cfg.sets[0]) {
		fprintf(stderr, "spank-ebpf: report: the plugin's line in \"%s\" has no sets=: jobs have no probe sets here\n",
			cmd->config_path);
		return EXIT_UNSURE;
	}
	if (sets_load(cmd->cfg.sets, &sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: report: %s\n", err);
		return EXIT_UNSURE;
	}
	if (statefile_open(&sf, cmd->cfg.state) < 0 || jobinfo_load(&sf, &l) < 0) {
		statefile_close(&sf);
		return EXIT_UNSURE;
	}
	statefile_close(&sf);
	j = jobinfo_find(&l, (uint32_t)job);
	if (!j || !report_allowed(j, uid)) {
		/* The same words either way: another user's job is not told apart
		 * from no job. */
		fprintf(stderr, "spank-ebpf: report: job %lu holds no probe set on this node%s\n", job,
			uid ? " (or is not yours)" : "");
		jobinfo_free(&l);
		return EXIT_ANOMALY;
	}
	for (c = j->sets; *c;) {
		size_t len = strcspn(c, ",");
		int i = sets_find(&sets, c, len);
		char *body;

		long long left_ms = (budget_end - clock_us()) / 1000;

		if (i >= 0 && left_ms < 100) {
			if (nerr < SETS_MAX)
				snprintf(errs[nerr++], sizeof(errs[0]), "set %s: not read: the report's %d s were spent",
					 sets.set[i].name, REPORT_BUDGET_MS / 1000);
		} else if (i >= 0) {
			body = report_owned_get(&cmd->cfg, &sets, i,
						left_ms < REPORT_TIMEOUT_MS ? (unsigned int)left_ms : REPORT_TIMEOUT_MS,
						err, sizeof(err));
			if (body)
				report_read(&f, body, (unsigned int)job);
			else if (nerr < SETS_MAX)
				snprintf(errs[nerr++], sizeof(errs[0]), "set %s: %s", sets.set[i].name, err);
			free(body);
		}
		c += len + (c[len] ? 1 : 0);
	}
	report_runq_total(&f);
	/* The job's run time, for the share of it spent waiting: Slurm's
	 * count, asked only when there is a wait to divide (bounded). */
	f.elapsed = -1;
	if (f.cpu) {
		cmd->ask.timeout = cmd->cfg.timeout;
		if (slurmjobs_elapsed(&cmd->ask, (uint32_t)job, &f.elapsed, err, sizeof(err)) < 0)
			f.elapsed = -1;
	}
	if (json) {
		report_json(j, &f, errs, nerr);
	} else {
		for (rc = 0; rc < nerr; rc++) {
			char shown[4 * sizeof(errs[0])];

			fprintf(stderr, "spank-ebpf: report: %s\n",
				text_printable(errs[rc], shown, sizeof(shown)));
		}
		report_text(j, &f, nerr);
	}
	jobinfo_free(&l);
	return nerr ? EXIT_ANOMALY : EXIT_OK;
}
