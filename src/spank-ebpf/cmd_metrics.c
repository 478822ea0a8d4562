/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics [--textfile DIR]: the node's holds and the counters of
 * transitions (stats.h) in Prometheus text format, on stdout or written
 * atomically to DIR/spank_ebpf.prom for node_exporter's textfile
 * collector. Reads without the lock; asks systemd, never Slurm. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobset.h"
#include "sets.h"
#include "spank-ebpf.h"
#include "statefile.h"
#include "stats.h"
#include "transition.h"
#include "unit.h"

#define PROM_NAME "spank_ebpf.prom"

/* labels: more labels after the target's ("" for none); rows of one
 * name follow each other and share one HELP and TYPE (a reason each). */
static const struct {
	enum stat_id id;
	const char *name, *type, *help;
	double scale;
	const char *labels;
} series[] = {
	{ STAT_STARTS, "spank_ebpf_starts_total", "counter", "systemctl start runs of the exporter's unit (first job, restart, reconcile).", 1, "" },
	{ STAT_STOPS, "spank_ebpf_stops_total", "counter", "systemctl stop runs of the exporter's unit.", 1, "" },
	{ STAT_START_FAILURES, "spank_ebpf_start_failures_total", "counter", "Starts that failed or timed out.", 1, "" },
	{ STAT_STOP_FAILURES, "spank_ebpf_stop_failures_total", "counter", "Stops that failed or timed out.", 1, "" },
	{ STAT_RESTARTS, "spank_ebpf_restarts_total", "counter", "Starts of a unit found dead while jobs held it.", 1, "" },
	{ STAT_RECONCILE_RUNS, "spank_ebpf_reconcile_runs_total", "counter", "spank-ebpf reconcile runs.", 1, "" },
	{ STAT_RECONCILE_FAILURES, "spank_ebpf_reconcile_failures_total", "counter", "Reconcile runs that could not tell (Slurm or systemd did not answer) and changed nothing.", 1, "" },
	{ STAT_RECONCILE_REMOVED, "spank_ebpf_reconcile_removed_jobs_total", "counter", "Held job IDs removed because Slurm said they no longer run here.", 1, "" },
	{ STAT_LAST_START_MS, "spank_ebpf_last_start_duration_seconds", "gauge", "How long the last successful start took.", 1000, "" },
	{ STAT_LAST_STOP_MS, "spank_ebpf_last_stop_duration_seconds", "gauge", "How long the last successful stop took.", 1000, "" },
	{ STAT_NOT_OBSERVED_RECORDS_FULL, "spank_ebpf_jobs_not_observed_total", "counter", "Jobs that held the set but were kept out of its probe filter, by reason (records_full: the node already kept the most job records; user_share: their user's jobs already took half of the probes' capacity).", 1, ",reason=\"records_full\"" },
	{ STAT_NOT_OBSERVED_USER_SHARE, "spank_ebpf_jobs_not_observed_total", "counter", "Jobs that held the set but were kept out of its probe filter, by reason (records_full: the node already kept the most job records; user_share: their user's jobs already took half of the probes' capacity).", 1, ",reason=\"user_share\"" },
};

/* A label value in Prometheus' text format: backslash, double quote and
 * newline escaped (a unit name may hold systemd's \x2d escapes). */
static void label_value(char *buf, size_t len, const char *v)
{
	size_t n = 0;

	for (; *v && n + 3 < len; v++) {
		if (*v == '\\' || *v == '"') {
			buf[n++] = '\\';
			buf[n++] = *v;
		} else if (*v == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = *v;
		}
	}
	buf[n] = '\0';
}

/* One target's figures: unit=, or a probe set's instance. */
struct row {
	char label[3 * CONFIG_UNIT_MAX];  /* unit="...", with set="..." for a set */
	size_t held;
	enum unit_state unit;
	struct stats st;
};

/* The targets' figures into rows (at most JOBSET_SETS_MAX); returns how
 * many. *ok: the state (and every counters file) could be read. */
static int gather_rows(const struct cmd *cmd, struct row *rows, int *ok, int *unknown)
{
	static struct sets sets_file;
	const struct sets *sets = NULL;
	struct statefile sf;
	struct jobset set;
	char word[200], value[2 * CONFIG_UNIT_MAX], err[600];
	int n = 0, b, count;

	jobset_init(&set);
	if (cmd->cfg.sets[0] && sets_load(cmd->cfg.sets, &sets_file, err, sizeof(err)) == 0)
		sets = &sets_file;
	else if (cmd->cfg.sets[0])
		fprintf(stderr, "spank-ebpf: metrics: %s\n", err);
	*ok = statefile_open(&sf, cmd->cfg.state) == 0 && statefile_load(&sf, &set) >= 0;
	*unknown = 0;
	count = target_names(&cmd->cfg, sets, &set);
	for (b = 0; b < count; b++) {
		struct row *r = &rows[n++];
		struct target t;

		target_of(&cmd->cfg, sets, set.names[b], &t);
		r->held = jobset_holders(&set, b);
		if (*ok && stats_load_of(&sf, t.aux, &r->st) < 0)
			*ok = 0;
		r->unit = unit_query_unit(&cmd->cfg, t.unit, word, sizeof(word));
		*unknown |= r->unit == UNIT_UNKNOWN;
		label_value(value, sizeof(value), t.unit);
		if (strcmp(t.name, JOBSET_LEGACY))
			snprintf(r->label, sizeof(r->label), "set=\"%s\",unit=\"%s\"", t.name, value);
		else
			snprintf(r->label, sizeof(r->label), "unit=\"%s\"", value);
	}
	statefile_close(&sf);
	jobset_free(&set);
	return n;
}

/* Returns 0, or -1 when the state cannot be read or systemd not asked
 * (the error is logged; what could be read is written). Each family's
 * HELP and TYPE once, then its samples, one per target. */
static int render(const struct cmd *cmd, FILE *out)
{
	static struct row rows[JOBSET_SETS_MAX];
	int n, k, ok, unknown, any_up = 0;
	size_t i;

	n = gather_rows(cmd, rows, &ok, &unknown);
	fprintf(out, "# HELP spank_ebpf_state_readable Whether the plugin's state could be read (0: see spank-ebpf status).\n"
		     "# TYPE spank_ebpf_state_readable gauge\nspank_ebpf_state_readable %d\n", ok);
	if (ok) {
		fprintf(out, "# HELP spank_ebpf_jobs Jobs holding the exporter (or the probe set) on this node.\n"
			     "# TYPE spank_ebpf_jobs gauge\n");
		for (k = 0; k < n; k++)
			fprintf(out, "spank_ebpf_jobs{%s} %zu\n", rows[k].label, rows[k].held);
	}
	for (k = 0; k < n; k++)
		any_up |= rows[k].unit != UNIT_UNKNOWN;
	if (any_up)
		fprintf(out, "# HELP spank_ebpf_unit_up Whether systemd says the exporter's unit is active.\n"
			     "# TYPE spank_ebpf_unit_up gauge\n");
	for (k = 0; k < n; k++)
		if (rows[k].unit != UNIT_UNKNOWN)
			fprintf(out, "spank_ebpf_unit_up{%s} %d\n", rows[k].label, rows[k].unit == UNIT_ACTIVE);
	for (i = 0; ok && i < sizeof(series) / sizeof(series[0]); i++) {
		if (i == 0 || strcmp(series[i].name, series[i - 1].name))
			fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", series[i].name, series[i].help,
				series[i].name, series[i].type);
		for (k = 0; k < n; k++) {
			if (series[i].scale == 1)
				fprintf(out, "%s{%s%s} %llu\n", series[i].name, rows[k].label,
					series[i].labels,
					(unsigned long long)rows[k].st.v[series[i].id]);
			else
				fprintf(out, "%s{%s} %.3f\n", series[i].name, rows[k].label,
					(double)rows[k].st.v[series[i].id] / series[i].scale);
		}
	}
	return ok && !unknown ? 0 : -1;
}

/* DIR/.spank_ebpf.prom.XXXXXX, then rename: node_exporter reads only
 * *.prom files, never a half-written one. */
static int write_textfile(const struct cmd *cmd, const char *dir)
{
	char tmp[4096], dst[4096];
	FILE *f;
	int fd, rc, err;

	snprintf(tmp, sizeof(tmp), "%s/." PROM_NAME ".XXXXXX", dir);
	snprintf(dst, sizeof(dst), "%s/" PROM_NAME, dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "spank-ebpf: metrics: cannot write in \"%s\": %s\n", dir, strerror(errno));
		return EXIT_ANOMALY;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		fprintf(stderr, "spank-ebpf: metrics: \"%s\": %s\n", tmp, strerror(err));
		return EXIT_ANOMALY;
	}
	rc = render(cmd, f);
	if (fchmod(fd, 0644) < 0 || fflush(f) != 0 || ferror(f)) {
		err = errno;
		fclose(f);
		unlink(tmp);
		fprintf(stderr, "spank-ebpf: metrics: cannot write \"%s\": %s\n", tmp, strerror(err));
		return EXIT_ANOMALY;
	}
	if (fclose(f) != 0 || rename(tmp, dst) < 0) {
		err = errno;
		unlink(tmp);
		fprintf(stderr, "spank-ebpf: metrics: cannot write \"%s\": %s\n", dst, strerror(err));
		return EXIT_ANOMALY;
	}
	return rc < 0 ? EXIT_UNSURE : EXIT_OK;
}

enum { OPT_TEXTFILE, NOPTS };
const struct option_spec metrics_options[] = {
	[OPT_TEXTFILE] = { "textfile", "DIR", "write DIR/spank_ebpf.prom atomically, not standard output", 0 },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

int cmd_metrics(struct cmd *cmd)
{
	if (cmd->opt[OPT_TEXTFILE])
		return write_textfile(cmd, cmd->opt[OPT_TEXTFILE]);
	if (render(cmd, stdout) < 0)
		return EXIT_UNSURE;
	return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_ANOMALY;
}
