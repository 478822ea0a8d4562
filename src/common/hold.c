/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's hold on the exporter. See hold.h. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hold.h"
#include "jobset.h"
#include "log.h"
#include "runcmd.h"
#include "statefile.h"

/* Logs each line of the program's output, so systemctl's own words about
 * a failing unit reach the slurmd log. */
static void log_output(enum log_level level, const struct runcmd_result *res)
{
	const char *p = res->output;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		char line[256];
		int i, j = 0;

		for (i = 0; i < len && j < (int)sizeof(line) - 1; i++)
			line[j++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
		line[j] = '\0';
		if (j)
			log_msg(level, "systemctl: %s", line);
		p += len + (nl ? 1 : 0);
	}
	if (res->truncated)
		log_msg(level, "systemctl: (output truncated at %d bytes)", RUNCMD_OUTPUT_MAX);
}

static int unit_action(const struct config *cfg, const char *verb)
{
	char *argv[] = { (char *)cfg->systemctl, "--no-ask-password", (char *)verb,
			 "--", (char *)cfg->unit, NULL };
	unsigned int timeout_ms = cfg->timeout * 1000;
	struct runcmd_result res;
	char display[CONFIG_UNIT_MAX], why[160];
	int rc;

	config_unit_display(cfg, display, sizeof(display));
	log_msg(LOG_INFO, "%s %s", !strcmp(verb, "start") ? "starting" : "stopping",
		display);
	rc = runcmd(argv, timeout_ms, &res);
	if (rc == 0) {
		/* How long jobs wait for the unit: systemd's own time plus the
		 * exporter's start-up (the benchmarks collect this line). */
		log_msg(LOG_INFO, "%s %s in %lu ms", display,
			!strcmp(verb, "start") ? "started" : "stopped", res.elapsed_ms);
		log_output(LOG_DEBUG, &res);
		return 0;
	}
	runcmd_describe(&res, timeout_ms, why, sizeof(why));
	log_msg(LOG_ERROR, "failed to %s %s: %s %s %s %s; the job is not affected",
		verb, cfg->unit, cfg->systemctl, verb, cfg->unit, why);
	log_output(LOG_ERROR, &res);
	return -1;
}

/* 1 when systemd's cgroup tree is there but the unit has no cgroup in it
 * (the service is not running), 0 when it runs or we cannot tell (no
 * systemd, another layout, a unit in its own Slice=). */
static int unit_is_dead(const struct config *cfg)
{
	static const char *const hierarchies[] = { "", "/unified", "/systemd" };
	char path[CONFIG_PATH_MAX + CONFIG_UNIT_MAX];
	struct stat st;
	size_t i;

	/* The first hierarchy that has systemd's system.slice decides. */
	for (i = 0; i < sizeof(hierarchies) / sizeof(hierarchies[0]); i++) {
		snprintf(path, sizeof(path), "%s%s/system.slice", cfg->cgroup_root,
			 hierarchies[i]);
		if (stat(path, &st) < 0)
			continue;
		snprintf(path, sizeof(path), "%s%s/system.slice/%s", cfg->cgroup_root,
			 hierarchies[i], cfg->unit);
		return stat(path, &st) < 0;
	}
	return 0;
}

int hold_update(const struct config *cfg, uint32_t job, enum hold_op op,
		int *events)
{
	struct statefile sf;
	struct jobset set;
	size_t before;
	int changed, ev = 0, rc = -1;

	jobset_init(&set);
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    statefile_load(&sf, &set) < 0)
		goto out;

	before = set.n;
	changed = op == HOLD_ACQUIRE ? jobset_add(&set, job) : jobset_remove(&set, job);
	if (changed < 0) {
		log_msg(LOG_ERROR, "cannot add job %u: the state already holds %zu jobs",
			job, set.n);
		goto out;
	}
	if (changed == 0) {
		log_msg(LOG_INFO, op == HOLD_ACQUIRE ?
			"job %u already holds %s; refcount stays %zu" :
			"job %u holds no reference on %s; refcount stays %zu",
			job, cfg->unit, set.n);
		rc = 0;
		goto out;
	}
	if (statefile_store(&sf, &set) < 0)
		goto out;
	ev |= HOLD_CHANGED;
	rc = 0;
	log_msg(LOG_INFO, "refcount now %zu", set.n);

	if (before == 0 && set.n > 0) {
		ev |= HOLD_STARTED;
		if (unit_action(cfg, "start") < 0)
			ev |= HOLD_UNIT_FAILED;
	} else if (before > 0 && set.n == 0) {
		ev |= HOLD_STOPPED;
		if (unit_action(cfg, "stop") < 0)
			ev |= HOLD_UNIT_FAILED;
	} else if (op == HOLD_ACQUIRE && unit_is_dead(cfg)) {
		log_msg(LOG_ERROR, "%s is not running although %zu other jobs hold it; starting it again",
			cfg->unit, before);
		ev |= HOLD_STARTED | HOLD_RESTARTED;
		if (unit_action(cfg, "start") < 0)
			ev |= HOLD_UNIT_FAILED;
	}
out:
	statefile_close(&sf);
	jobset_free(&set);
	if (events)
		*events = ev;
	return rc;
}

int hold_is_held(const struct config *cfg, uint32_t job)
{
	return statefile_peek(cfg->state, job);
}
