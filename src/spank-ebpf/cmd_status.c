/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status [--json]: what the node's state says, what systemd says of the
 * unit, what Slurm says of each held job, and every disagreement among
 * them, named. Reads without the lock (writers rename atomically) and
 * changes nothing. Exit: 0 healthy, 1 anomalies, 2 cannot tell. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobset.h"
#include "jsonout.h"
#include "sets.h"
#include "transition.h"
#include "linger.h"
#include "slurmjobs.h"
#include "spank-ebpf.h"
#include "statefile.h"
#include "unit.h"

#define MAX_NOTES 8

struct note {
	const char *kind;
	char text[400];
};

/* One unit the node looks after: unit= (without sets), or a probe set's
 * instance; what systemd and the state's window say of it. */
struct target_view {
	struct target t;
	size_t held;
	enum unit_state unit;
	char unit_word[200];
	long linger_left;
	char timer[160], timer_word[200];   /* the window's timer, "" none */
	long timer_due_in;
};

struct report {
	bool readable, damaged, corrupt, asked, answered;
	int tmpfs;
	struct jobset set;
	struct job_answer *ans;
	int ntargets;
	struct target_view targets[JOBSET_SETS_MAX];
	char slurm_why[400];
	struct note anomalies[MAX_NOTES], unknowns[MAX_NOTES];
	int nanom, nunk;
};

static void note(struct note *list, int *n, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct note *list, int *n, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (*n == MAX_NOTES)
		return;
	list[*n].kind = kind;
	va_start(ap, fmt);
	vsnprintf(list[*n].text, sizeof(list[*n].text), fmt, ap);
	va_end(ap);
	(*n)++;
}

/* The node's name as given or as Slurm said it; "this node" when neither. */
static const char *node_name(const struct cmd *cmd)
{
	return cmd->ask.node ? cmd->ask.node : cmd->ask.asked_node[0] ? cmd->ask.asked_node : "this node";
}

/* A set's address held by anyone but its unit: the unit cannot start
 * (or, started, is not what answers there). Named, with the holder. */
static void gather_address(const struct config *cfg, const struct sets *sets, struct report *r,
			   const struct target_view *v)
{
	int i = sets ? sets_find(sets, v->t.name, strlen(v->t.name)) : -1;
	char why[300];

	if (i >= 0 && unit_holds_address(cfg, v->t.unit, &sets->set[i].addr, why, sizeof(why)) == 0)
		note(r->anomalies, &r->nanom, "address_taken", "set %s: %s", v->t.name, why);
}

/* One target: systemd's word on its unit and on its window's timer. */
static void gather_target(const struct config *cfg, const struct sets *sets, struct statefile *sf,
			  bool readable, struct report *r, struct target_view *v)
{
	const char *u = v->t.unit;

	v->linger_left = readable ? linger_left(sf, &v->t) : -1;
	if (v->linger_left >= 0 && linger_timer(sf, &v->t, v->timer, sizeof(v->timer), &v->timer_due_in) == 0)
		strcat(v->timer, ".timer");
	v->unit = unit_query_unit(cfg, u, v->unit_word, sizeof(v->unit_word));
	if (v->unit == UNIT_UNKNOWN)
		note(r->unknowns, &r->nunk, "unit_unknown", "cannot tell whether %s runs: %s", u, v->unit_word);
	gather_address(cfg, sets, r, v);
	/* An open window ends by its timer: systemd says whether it is there. */
	if (readable && v->linger_left > 0 && v->timer[0] && v->timer_due_in > 0) {
		if (unit_query_unit(cfg, v->timer, v->timer_word, sizeof(v->timer_word)) == UNIT_INACTIVE)
			note(r->anomalies, &r->nanom, "linger_timer_gone",
			     "the linger window's timer %s is gone (systemd says %s): the window would end only at the next reconcile, which arms another",
			     v->timer, v->timer_word);
	} else if (readable && v->linger_left > 0) {
		note(r->anomalies, &r->nanom, "linger_timer_missing",
		     "the linger window of %s has no pending timer: it would end only at the next reconcile, which arms one", u);
	}
	if (readable && v->unit == UNIT_ACTIVE && v->held == 0 && v->linger_left <= 0)
		note(r->anomalies, &r->nanom, "unit_without_holder",
		     "%s is running but no job holds it (spank-ebpf reconcile stops it)", u);
	if (readable && v->unit == UNIT_INACTIVE && v->held > 0)
		note(r->anomalies, &r->nanom, "holders_without_unit",
		     "%zu jobs hold %s but it is not running (%s; spank-ebpf reconcile starts it)",
		     v->held, u, v->unit_word);
}

static void gather(struct cmd *cmd, struct report *r)
{
	static struct sets sets_file;
	const struct config *cfg = &cmd->cfg;
	const struct sets *sets = NULL;
	struct statefile sf;
	char err[600];
	int loaded = -1, b, n;

	memset(r, 0, sizeof(*r));
	jobset_init(&r->set);
	r->tmpfs = statefile_on_tmpfs(cfg->state);
	if (cfg->sets[0] && sets_load(cfg->sets, &sets_file, err, sizeof(err)) == 0)
		sets = &sets_file;
	else if (cfg->sets[0])
		note(r->unknowns, &r->nunk, "sets_unreadable", "%s", err);
	if (statefile_open(&sf, cfg->state) == 0) {
		loaded = statefile_load(&sf, &r->set);
		r->corrupt = statefile_has_aux(&sf, ".corrupt");
	}
	r->readable = loaded >= 0;
	r->damaged = loaded > 0;
	n = target_names(cfg, sets, &r->set);
	for (b = 0; b < n && r->ntargets < JOBSET_SETS_MAX; b++) {
		struct target_view *v = &r->targets[r->ntargets++];

		target_of(cfg, sets, r->set.names[b], &v->t);
		v->held = jobset_holders(&r->set, b);
		gather_target(cfg, sets, &sf, r->readable, r, v);
	}
	statefile_close(&sf);

	if (!r->readable)
		note(r->unknowns, &r->nunk, "state_unreadable",
		     "the state %s cannot be read (see the error above)", cfg->state);
	if (r->damaged)
		note(r->anomalies, &r->nanom, "state_damaged",
		     "the state %s is damaged; the next prolog, epilog or reconcile rewrites it from the %zu valid job IDs it holds",
		     cfg->state, r->set.n);
	if (r->corrupt)
		note(r->anomalies, &r->nanom, "corrupt_copy",
		     "%s.corrupt exists: a damaged state was found earlier; inspect it, then remove it",
		     cfg->state);
	if (r->tmpfs == 0)
		note(r->anomalies, &r->nanom, "state_not_on_tmpfs",
		     "the state's directory is not on tmpfs: after a reboot it would still name dead jobs");

	if (r->set.n > 0) {
		r->asked = true;
		r->ans = calloc(r->set.n, sizeof(*r->ans));
		r->answered = r->ans &&
			slurmjobs_ask(&cmd->ask, &r->set, r->ans, r->slurm_why, sizeof(r->slurm_why)) == 0;
		if (!r->answered)
			note(r->unknowns, &r->nunk, "slurm_unknown",
			     "cannot tell which held jobs Slurm still runs on %s: %s", node_name(cmd),
			     r->ans ? r->slurm_why : "out of memory");
	}
	if (r->answered) {
		char ids[300] = "";
		size_t i, gone = 0, len = 0;

		for (i = 0; i < r->set.n; i++) {
			if (r->ans[i].where != JOB_GONE)
				continue;
			gone++;
			if (len < sizeof(ids) - 16)
				len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%u",
							len ? ", " : "", r->set.ids[i]);
		}
		if (gone)
			note(r->anomalies, &r->nanom, "jobs_gone",
			     "%zu held job IDs Slurm no longer runs on %s: %s%s (spank-ebpf reconcile removes them)",
			     gone, node_name(cmd), ids, len >= sizeof(ids) - 16 ? ", ..." : "");
	}
}

/* [{"kind":...,"message":...}, ...] */
static struct json_object *status_json_notes(const struct note *list, int n)
{
	struct json_object *a = json_object_new_array(), *o;
	int i;

	for (i = 0; i < n; i++) {
		o = json_object_new_object();
		jsonout_add(o, "kind", jsonout_string(list[i].kind));
		jsonout_add(o, "message", jsonout_string(list[i].text));
		jsonout_append(a, o);
	}
	return a;
}

static const char *health(const struct report *r)
{
	return r->nanom ? "anomalies" : r->nunk ? "unknown" : "healthy";
}

/* v, or null for a negative v (not known). */
static struct json_object *status_json_long(long v)
{
	return v < 0 ? NULL : jsonout_int(v);
}

static struct json_object *status_json_timer(bool readable, const struct target_view *v)
{
	struct json_object *o;

	if (!(readable && v->linger_left >= 0 && v->timer[0]))
		return NULL;
	o = json_object_new_object();
	jsonout_add(o, "name", jsonout_string(v->timer));
	jsonout_add(o, "due_in", jsonout_int(v->timer_due_in));
	return o;
}

/* ["io","sched"]: the names of mask's sets. */
static struct json_object *status_json_names(const struct jobset *set, uint32_t mask)
{
	struct json_object *a = json_object_new_array();
	int b;

	for (b = 0; b < set->nnames; b++)
		if (mask & (1u << b))
			jsonout_append(a, jsonout_string(set->names[b]));
	return a;
}

static struct json_object *status_json_target(bool readable, const struct target_view *v)
{
	struct json_object *o = json_object_new_object();

	jsonout_add(o, "set", strcmp(v->t.name, JOBSET_LEGACY) ? jsonout_string(v->t.name) : NULL);
	jsonout_add(o, "name", jsonout_string(v->t.unit));
	jsonout_add(o, "state", v->unit == UNIT_UNKNOWN ? NULL : jsonout_string(v->unit_word));
	jsonout_add(o, "active", v->unit == UNIT_UNKNOWN ? NULL : jsonout_bool(v->unit == UNIT_ACTIVE));
	jsonout_add(o, "held", readable ? jsonout_int((long long)v->held) : NULL);
	jsonout_add(o, "linger_left", status_json_long(readable ? v->linger_left : -1));
	jsonout_add(o, "linger_timer", status_json_timer(readable, v));
	return o;
}

static void print_json(const struct cmd *cmd, const struct report *r)
{
	static const struct target_view none = { .linger_left = -1, .unit = UNIT_UNKNOWN };
	const struct target_view *first = r->ntargets ? &r->targets[0] : &none;
	struct json_object *o = json_object_new_object(), *st = json_object_new_object(),
			   *slurm = json_object_new_object(), *a, *h;
	size_t i;
	int k;

	jsonout_add(o, "version", jsonout_int(1));
	/* null: not given, and nothing needed asking Slurm */
	jsonout_add(o, "node", cmd->ask.node || cmd->ask.asked_node[0] ? jsonout_string(node_name(cmd)) : NULL);
	jsonout_add(o, "health", jsonout_string(health(r)));
	jsonout_add(st, "path", jsonout_string(cmd->cfg.state));
	jsonout_add(st, "readable", jsonout_bool(r->readable));
	jsonout_add(st, "damaged", jsonout_bool(r->damaged));
	jsonout_add(st, "corrupt_copy", jsonout_bool(r->corrupt));
	jsonout_add(st, "on_tmpfs", r->tmpfs < 0 ? NULL : jsonout_bool(r->tmpfs));
	jsonout_add(st, "linger_left", status_json_long(first->linger_left));
	jsonout_add(st, "linger_timer", status_json_timer(r->readable, first));
	/* What an unreadable state holds is unknown: null, never 0 or []. */
	if (r->readable) {
		jsonout_add(st, "count", jsonout_int((long long)r->set.n));
		a = json_object_new_array();
		for (i = 0; i < r->set.n; i++)
			jsonout_append(a, jsonout_int(r->set.ids[i]));
		jsonout_add(st, "jobs", a);
		a = json_object_new_array();
		for (i = 0; i < r->set.n; i++) {
			h = json_object_new_object();
			jsonout_add(h, "id", jsonout_int(r->set.ids[i]));
			jsonout_add(h, "sets", status_json_names(&r->set, r->set.masks[i]));
			jsonout_append(a, h);
		}
		jsonout_add(st, "holds", a);
	} else {
		jsonout_add(st, "count", NULL);
		jsonout_add(st, "jobs", NULL);
		jsonout_add(st, "holds", NULL);
	}
	jsonout_add(o, "state", st);
	jsonout_add(o, "unit", status_json_target(r->readable, first));
	a = json_object_new_array();
	for (k = 0; k < r->ntargets; k++)
		jsonout_append(a, status_json_target(r->readable, &r->targets[k]));
	jsonout_add(o, "targets", a);
	jsonout_add(slurm, "asked", jsonout_bool(r->asked));
	jsonout_add(slurm, "answered", jsonout_bool(r->answered));
	jsonout_add(slurm, "error", r->asked && !r->answered ? jsonout_string(r->slurm_why) : NULL);
	a = json_object_new_array();
	for (i = 0; r->answered && i < r->set.n; i++) {
		h = json_object_new_object();
		jsonout_add(h, "id", jsonout_int(r->set.ids[i]));
		jsonout_add(h, "here", jsonout_bool(r->ans[i].where == JOB_HERE));
		jsonout_add(h, "state", r->ans[i].state[0] ? jsonout_string(r->ans[i].state) : NULL);
		jsonout_append(a, h);
	}
	jsonout_add(slurm, "jobs", a);
	jsonout_add(o, "slurm", slurm);
	jsonout_add(o, "anomalies", status_json_notes(r->anomalies, r->nanom));
	jsonout_add(o, "unknowns", status_json_notes(r->unknowns, r->nunk));
	jsonout_print(stdout, o);
}

static void print_text(const struct cmd *cmd, const struct report *r)
{
	size_t i;
	int k;

	if (r->readable) {
		printf("state %s: %zu job%s", cmd->cfg.state, r->set.n, r->set.n == 1 ? "" : "s");
		for (i = 0; i < r->set.n && i < 32; i++)
			printf("%s%u", i ? ", " : " (", r->set.ids[i]);
		printf("%s\n", r->set.n == 0 ? "" : r->set.n > 32 ? ", ...)" : ")");
	} else {
		printf("state %s: unreadable\n", cmd->cfg.state);
	}
	for (k = 0; k < r->ntargets; k++) {
		const struct target_view *v = &r->targets[k];
		const char *w = v->unit == UNIT_UNKNOWN ? "unknown" : v->unit_word;

		/* Without sets, the lines of before sets existed. */
		if (!strcmp(v->t.name, JOBSET_LEGACY))
			printf("unit %s: %s\n", v->t.unit, w);
		else if (r->readable)
			printf("set %s, unit %s: %s, %zu job%s\n", v->t.name, v->t.unit, w, v->held,
			       v->held == 1 ? "" : "s");
		else
			printf("set %s, unit %s: %s\n", v->t.name, v->t.unit, w);
		if (!r->readable && !strcmp(v->t.name, JOBSET_LEGACY))
			printf("linger window: unknown\n");
		else if (v->linger_left >= 0 && v->timer[0])
			printf("linger window%s%s: %ld s left (timer %s, due in %ld s)\n",
			       strcmp(v->t.name, JOBSET_LEGACY) ? " of " : "",
			       strcmp(v->t.name, JOBSET_LEGACY) ? v->t.name : "", v->linger_left,
			       v->timer, v->timer_due_in);
		else if (v->linger_left >= 0)
			printf("linger window%s%s: %ld s left (no timer)\n",
			       strcmp(v->t.name, JOBSET_LEGACY) ? " of " : "",
			       strcmp(v->t.name, JOBSET_LEGACY) ? v->t.name : "", v->linger_left);
	}
	if (!r->readable && cmd->cfg.sets[0])
		printf("linger window: unknown\n");
	for (i = 0; r->answered && i < r->set.n; i++) {
		char names[400] = "";
		size_t n = 0;
		int b;

		for (b = 0; cmd->cfg.sets[0] && b < r->set.nnames && n < sizeof(names); b++)
			if (r->set.masks[i] & (1u << b))
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
						      n ? "," : " (sets ", r->set.names[b]);
		printf("job %u: %s%s%s\n", r->set.ids[i],
		       r->ans[i].where == JOB_HERE ? r->ans[i].state :
		       r->ans[i].state[0] ? r->ans[i].state : "not listed on this node",
		       names, n ? ")" : "");
	}
	for (k = 0; k < r->nanom; k++)
		printf("anomaly: %s\n", r->anomalies[k].text);
	for (k = 0; k < r->nunk; k++)
		printf("cannot tell: %s\n", r->unknowns[k].text);
	printf("health: %s\n", health(r));
}

enum { OPT_JSON, OPT_NODE, OPT_SQUEUE, NOPTS };
const struct option_spec status_options[] = {
	[OPT_JSON] = { "json", NULL, "one JSON object instead of text", 0 },
	[OPT_NODE] = { "node", "NAME", "this node's Slurm NodeName (see spank-ebpf --help)", 0 },
	[OPT_SQUEUE] = { "squeue", "PATH", "the squeue to ask slurmctld with", 0 },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

int cmd_status(struct cmd *cmd)
{
	struct report r;

	gather(cmd, &r);
	if (cmd->opt[OPT_JSON])
		print_json(cmd, &r);
	else
		print_text(cmd, &r);
	free(r.ans);
	jobset_free(&r.set);
	return r.nanom ? EXIT_ANOMALY : r.nunk ? EXIT_UNSURE : EXIT_OK;
}
