/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The start/stop step. See transition.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "transition.h"
#include "unit.h"

void target_of(const struct config *cfg, const struct sets *sets, const char *name,
	       struct target *t)
{
	static const struct sets fallback = { .unit = "spank-ebpf-exporter@.service" };
	int i = sets ? sets_find(sets, name, strlen(name)) : -1;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (!strcmp(name, JOBSET_LEGACY)) {
		snprintf(t->unit, sizeof(t->unit), "%s", cfg->unit);
		t->linger = cfg->linger;
		return;
	}
	sets_unit(sets ? sets : &fallback, name, t->unit, sizeof(t->unit));
	snprintf(t->aux, sizeof(t->aux), ".%s", name);
	t->linger = i >= 0 && sets->set[i].linger_given ? sets->set[i].linger : cfg->linger;
}

int target_names(const struct config *cfg, const struct sets *sets, struct jobset *set)
{
	int i;

	if (!cfg->sets[0])
		jobset_bit(set, JOBSET_LEGACY, 1);
	for (i = 0; sets && i < sets->n; i++)
		jobset_bit(set, sets->set[i].name, strlen(sets->set[i].name));
	return set->nnames;
}

#define UNITS_FILE ".units"
#define UNITS_MAX_BYTES (JOBSET_SETS_MAX * (JOBSET_NAME_MAX + CONFIG_UNIT_MAX + 2) + 1)

/* <state>.units as a table of (set, unit); returns how many rows, 0 when
 * missing or unreadable (logged by statefile_read_aux). */
static int units_load(struct statefile *sf, char names[][JOBSET_NAME_MAX + 1],
		      char units[][CONFIG_UNIT_MAX])
{
	static char buf[UNITS_MAX_BYTES];
	char *line, *save;
	size_t len;
	int n = 0;

	if (statefile_read_aux(sf, UNITS_FILE, buf, sizeof(buf), &len) != 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && n < JOBSET_SETS_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		/* Only what the plugin writes: a set's name, a unit's name. */
		if (!sp || (size_t)(sp - line) > JOBSET_NAME_MAX || strlen(sp + 1) >= CONFIG_UNIT_MAX ||
		    !sp[1] || strchr(sp + 1, ' ') || strchr(sp + 1, '/'))
			continue;
		snprintf(names[n], JOBSET_NAME_MAX + 1, "%.*s", (int)(sp - line), line);
		snprintf(units[n], CONFIG_UNIT_MAX, "%s", sp + 1);
		n++;
	}
	return n;
}

/* Replaces t's row by unit (or drops it, unit NULL); lock held. */
static void units_note(struct statefile *sf, const struct target *t, const char *unit)
{
	static char names[JOBSET_SETS_MAX][JOBSET_NAME_MAX + 1];
	static char units[JOBSET_SETS_MAX][CONFIG_UNIT_MAX];
	static char buf[UNITS_MAX_BYTES];
	int n = units_load(sf, names, units), i;
	size_t len = 0;
	bool same = false;

	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], t->name)) {
			same = unit && !strcmp(units[i], unit);
			continue;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %s\n", names[i], units[i]);
	}
	if (same)
		return; /* already noted: no write */
	if (unit)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %s\n", t->name, unit);
	if (len == 0)
		statefile_remove_aux(sf, UNITS_FILE);
	else
		statefile_write_aux(sf, UNITS_FILE, "started units", buf, len);
}

int target_recorded(struct statefile *sf, struct target *t)
{
	static char names[JOBSET_SETS_MAX][JOBSET_NAME_MAX + 1];
	static char units[JOBSET_SETS_MAX][CONFIG_UNIT_MAX];
	int n, i;

	if (!t->aux[0])
		return 0;
	n = units_load(sf, names, units);
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], t->name)) {
			snprintf(t->unit, sizeof(t->unit), "%s", units[i]);
			return 1;
		}
	return 0;
}

void target_forget(struct statefile *sf, const struct target *t)
{
	if (t->aux[0])
		units_note(sf, t, NULL);
}

int target_recorded_names(struct statefile *sf, struct jobset *set)
{
	static char names[JOBSET_SETS_MAX][JOBSET_NAME_MAX + 1];
	static char units[JOBSET_SETS_MAX][CONFIG_UNIT_MAX];
	int n = units_load(sf, names, units), i;

	for (i = 0; i < n; i++)
		jobset_bit(set, names[i], strlen(names[i]));
	return set->nnames;
}

int transition_run(struct statefile *sf, const struct config *cfg, const struct target *t,
		   enum transition what)
{
	bool start = what != TRANSITION_STOP;
	struct stats add = { { 0 } };
	unsigned long ms = 0;
	int ev = start ? EV_STARTED : EV_STOPPED;

	if (what == TRANSITION_RESTART) {
		ev |= EV_RESTARTED;
		add.v[STAT_RESTARTS] = 1;
	}
	add.v[start ? STAT_STARTS : STAT_STOPS] = 1;
	/* Noted before systemctl runs: a start cut short may leave it up. */
	if (start && t->aux[0])
		units_note(sf, t, t->unit);
	if (unit_action(cfg, t->unit, start ? "start" : "stop", &ms) < 0) {
		ev |= EV_UNIT_FAILED;
		add.v[start ? STAT_START_FAILURES : STAT_STOP_FAILURES] = 1;
		stats_update_of(sf, t->aux, &add, STAT_COUNT, 0);
	} else {
		stats_update_of(sf, t->aux, &add, start ? STAT_LAST_START_MS : STAT_LAST_STOP_MS, ms);
		if (!start)
			target_forget(sf, t);
	}
	return ev;
}
