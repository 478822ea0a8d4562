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

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c < 0x7f ? c : 0xfffd);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_notes(const struct note *list, int n)
{
	int i;

	putchar('[');
	for (i = 0; i < n; i++) {
		printf("%s{\"kind\":", i ? "," : "");
		json_string(list[i].kind);
		printf(",\"message\":");
		json_string(list[i].text);
		putchar('}');
	}
	putchar(']');
}

static const char *health(const struct report *r)
{
	return r->nanom ? "anomalies" : r->nunk ? "unknown" : "healthy";
}

static void json_long(long v)
{
	if (v < 0)
		printf("null");
	else
		printf("%ld", v);
}

static void json_timer(bool readable, const struct target_view *v)
{
	if (readable && v->linger_left >= 0 && v->timer[0]) {
		printf("{\"name\":");
		json_string(v->timer);
		printf(",\"due_in\":%ld}", v->timer_due_in);
	} else {
		printf("null");
	}
}

/* ["io","sched"]: the names of mask's sets. */
static void json_names(const struct jobset *set, uint32_t mask)
{
	int b, n = 0;

	putchar('[');
	for (b = 0; b < set->nnames; b++)
		if (mask & (1u << b)) {
			printf("%s", n++ ? "," : "");
			json_string(set->names[b]);
		}
	putchar(']');
}

static void json_target(bool readable, const struct target_view *v)
{
	printf("{\"set\":");
	if (strcmp(v->t.name, JOBSET_LEGACY))
		json_string(v->t.name);
	else
		printf("null");
	printf(",\"name\":");
	json_string(v->t.unit);
	printf(",\"state\":");
	if (v->unit == UNIT_UNKNOWN)
		printf("null");
	else
		json_string(v->unit_word);
	printf(",\"active\":%s,\"held\":", v->unit == UNIT_UNKNOWN ? "null" :
	       v->unit == UNIT_ACTIVE ? "true" : "false");
	if (readable)
		printf("%zu", v->held);
	else
		printf("null");
	printf(",\"linger_left\":");
	json_long(readable ? v->linger_left : -1);
	printf(",\"linger_timer\":");
	json_timer(readable, v);
	putchar('}');
}

static void print_json(const struct cmd *cmd, const struct report *r)
{
	static const struct target_view none = { .linger_left = -1, .unit = UNIT_UNKNOWN };
	const struct target_view *first = r->ntargets ? &r->targets[0] : &none;
	size_t i;
	int k;

	printf("{\"version\":1,\"node\":");
	if (cmd->ask.node || cmd->ask.asked_node[0])
		json_string(node_name(cmd));
	else
		printf("null"); /* not given, and nothing needed asking Slurm */
	printf(",\"health\":\"%s\",\"state\":{\"path\":", health(r));
	json_string(cmd->cfg.state);
	printf(",\"readable\":%s,\"damaged\":%s,\"corrupt_copy\":%s,\"on_tmpfs\":%s,\"linger_left\":",
	       r->readable ? "true" : "false", r->damaged ? "true" : "false",
	       r->corrupt ? "true" : "false",
	       r->tmpfs < 0 ? "null" : r->tmpfs ? "true" : "false");
	json_long(first->linger_left);
	printf(",\"linger_timer\":");
	json_timer(r->readable, first);
	/* What an unreadable state holds is unknown: null, never 0 or []. */
	if (r->readable) {
		printf(",\"count\":%zu,\"jobs\":[", r->set.n);
		for (i = 0; i < r->set.n; i++)
			printf("%s%u", i ? "," : "", r->set.ids[i]);
		printf("],\"holds\":[");
		for (i = 0; i < r->set.n; i++) {
			printf("%s{\"id\":%u,\"sets\":", i ? "," : "", r->set.ids[i]);
			json_names(&r->set, r->set.masks[i]);
			putchar('}');
		}
		printf("]");
	} else {
		printf(",\"count\":null,\"jobs\":null,\"holds\":null");
	}
	printf("},\"unit\":");
	json_target(r->readable, first);
	printf(",\"targets\":[");
	for (k = 0; k < r->ntargets; k++) {
		printf("%s", k ? "," : "");
		json_target(r->readable, &r->targets[k]);
	}
	printf("],\"slurm\":{\"asked\":%s,\"answered\":%s,\"error\":",
	       r->asked ? "true" : "false", r->answered ? "true" : "false");
	if (r->asked && !r->answered)
		json_string(r->slurm_why);
	else
		printf("null");
	printf(",\"jobs\":[");
	for (i = 0; r->answered && i < r->set.n; i++) {
		printf("%s{\"id\":%u,\"here\":%s,\"state\":", i ? "," : "", r->set.ids[i],
		       r->ans[i].where == JOB_HERE ? "true" : "false");
		if (r->ans[i].state[0])
			json_string(r->ans[i].state);
		else
			printf("null");
		putchar('}');
	}
	printf("]},\"anomalies\":");
	json_notes(r->anomalies, r->nanom);
	printf(",\"unknowns\":");
	json_notes(r->unknowns, r->nunk);
	printf("}\n");
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
