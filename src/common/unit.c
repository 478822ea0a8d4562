/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exporter's systemd unit. See unit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "runcmd.h"
#include "unit.h"

/* Logs each line of the program's output, so systemctl's own words about
 * a failing unit reach the slurmd log. */
static void log_output(enum log_level level, const struct runcmd_result *res)
{
	const char *p = res->output;
	int lines = 0;

	/* At most 20 lines: systemctl's own words fit, a flood does not. */
	while (*p && lines++ < 20) {
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
	if (*p || res->truncated)
		log_msg(level, "systemctl: (more output not logged)");
}

static int systemctl(const struct config *cfg, const char *unit, const char *verb,
		     bool no_block, struct runcmd_result *res)
{
	char *argv[] = { (char *)cfg->systemctl, "--no-ask-password", (char *)verb,
			 "--", (char *)unit, NULL, NULL };

	if (no_block) { /* systemctl --no-ask-password start --no-block -- UNIT */
		argv[3] = "--no-block";
		argv[4] = "--";
		argv[5] = (char *)unit;
	}
	return runcmd(argv, cfg->timeout * 1000, res);
}

void unit_display(const char *unit, char *buf, size_t len)
{
	size_t n = strlen(unit);

	if (n > 8 && !strcmp(unit + n - 8, ".service"))
		n -= 8;
	snprintf(buf, len, "%.*s", (int)n, unit);
}

/* A program beside systemctl (journalctl): the same systemd. */
static void beside_systemctl(const struct config *cfg, const char *name, char *buf, size_t len)
{
	const char *slash = strrchr(cfg->systemctl, '/');

	snprintf(buf, len, "%.*s/%s", (int)(slash - cfg->systemctl), cfg->systemctl, name);
}

/* The first line of out that reads like an error; NULL if none (*last:
 * its last line, NULL when out is empty). */
static const char *said_pick(const char *out, const char **last_line)
{
	/* "ailed"/"ailure", not "ail": ebpf_exporter says "fanotify not
	 * available" before the line that tells why it failed. */
	static const char *const errorish[] = { "rror", "ailed", "ailure", "issed", "annot",
						 "o such", "not exist", "enied", "not permitted",
						 "nvalid" };
	const char *p, *last = NULL;
	size_t i;

	for (p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
		size_t n = strcspn(p, "\n");

		if (n == 0)
			continue;
		last = p;
		for (i = 0; i < sizeof(errorish) / sizeof(errorish[0]); i++) {
			const char *hit = strstr(p, errorish[i]);

			if (hit && hit < p + n)
				return p;
		}
	}
	*last_line = last;
	return NULL;
}

/* The value of "Key=" in systemctl show's answer, into buf ("" if none). */
static void show_value(const char *out, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p;

	buf[0] = '\0';
	for (p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0))
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + kl + 1, "\n"), p + kl + 1);
			return;
		}
}

int unit_ready_since(const struct config *cfg, const char *unit, long long *boot_s)
{
	static struct runcmd_result res;
	char *show[] = { (char *)cfg->systemctl, "show", "--property=ActiveState",
			 "--property=ActiveEnterTimestampMonotonic", "--", (char *)unit, NULL };
	char state[32], mono[32], *end;
	struct timespec boot, now;
	unsigned long long us;

	if (runcmd(show, cfg->timeout * 1000, &res) < 0)
		return -1;
	show_value(res.output, "ActiveState", state, sizeof(state));
	show_value(res.output, "ActiveEnterTimestampMonotonic", mono, sizeof(mono));
	errno = 0;
	us = strtoull(mono, &end, 10);
	if (strcmp(state, "active") || !mono[0] || *end || errno || us == 0)
		return -1;
	/* Monotonic to boot time: the two differ by the time suspended,
	 * today's offset (a node that suspended under a job is rare). */
	clock_gettime(CLOCK_BOOTTIME, &boot);
	clock_gettime(CLOCK_MONOTONIC, &now);
	*boot_s = (long long)(us / 1000000ull) + ((long long)boot.tv_sec - (long long)now.tv_sec);
	return 0;
}

/* The failed start's own words: of the lines its last run logged, the
 * first that reads like an error, else the last. The service's own lines
 * come first: those of its invocation (_SYSTEMD_INVOCATION_ID), else
 * those of its unit since this run began (_SYSTEMD_UNIT, --since its
 * InactiveExitTimestamp: journald takes the invocation from the sender's
 * cgroup, which a process that has exited no longer has, while the unit
 * comes with its stream; seen on a loaded guest). journald reads them
 * from the service's stream and may not have them yet when systemd's own
 * "Failed with result" is in (1.5 s later on a loaded node, 3 s and more
 * beside a build), so when the first ask finds none, journald is asked
 * to sync (journalctl --sync: it returns once journald has processed what
 * was queued to it, the service's stream included), then they are asked
 * for every 200 ms, for up to UNIT_SAID_WAIT_MS, until one reads like an
 * error; then systemd's lines too (INVOCATION_ID). Asked of systemd
 * (bounded calls); "" when it cannot be. Only a failed start pays. */
#define UNIT_SAID_WAIT_MS 3000
static void unit_said(const struct config *cfg, const char *unit, char *line, size_t len)
{
	static struct runcmd_result res;
	char journalctl[CONFIG_PATH_MAX + 16], id[64], since[80], match1[96], match2[96],
	     match3[CONFIG_UNIT_MAX + 16];
	char *show[] = { (char *)cfg->systemctl, "show", "--property=InvocationID",
			 "--property=InactiveExitTimestamp", "--", (char *)unit, NULL };
	char *own[] = { journalctl, "--no-pager", "-q", "-o", "cat", "-n", "30", match1, NULL };
	char *by_unit[] = { journalctl, "--no-pager", "-q", "-o", "cat", "-n", "30", "--since", since,
			    match3, NULL };
	char *all[] = { journalctl, "--no-pager", "-q", "-o", "cat", "-n", "30", match1, "+",
			match2, NULL };
	char *sync[] = { journalctl, "--sync", NULL };
	const char *pick = NULL, *last = NULL;
	bool synced = false;
	long long t0;
	size_t i;

	line[0] = '\0';
	if (runcmd(show, cfg->timeout * 1000, &res) < 0)
		return;
	show_value(res.output, "InvocationID", id, sizeof(id));
	show_value(res.output, "InactiveExitTimestamp", since, sizeof(since));
	if (strspn(id, "0123456789abcdef") < 32)
		return;
	id[32] = '\0';
	snprintf(match1, sizeof(match1), "_SYSTEMD_INVOCATION_ID=%s", id);
	snprintf(match2, sizeof(match2), "INVOCATION_ID=%s", id);
	snprintf(match3, sizeof(match3), "_SYSTEMD_UNIT=%s", unit);
	beside_systemctl(cfg, "journalctl", journalctl, sizeof(journalctl));
	for (t0 = clock_us(); !pick; ) {
		if (runcmd(own, cfg->timeout * 1000, &res) < 0)
			return;
		pick = said_pick(res.output, &last);
		if (!pick && since[0] && runcmd(by_unit, cfg->timeout * 1000, &res) == 0)
			pick = said_pick(res.output, &last);
		if (pick || clock_us() - t0 >= UNIT_SAID_WAIT_MS * 1000LL)
			break;
		if (!synced) {
			/* Not root, or no journald: the polls go on. */
			synced = true;
			if (runcmd(sync, cfg->timeout * 1000, &res) == 0)
				continue;
		}
		usleep(200 * 1000);
	}
	if (!pick) {
		if (runcmd(all, cfg->timeout * 1000, &res) < 0)
			return;
		pick = said_pick(res.output, &last);
	}
	if (!pick)
		pick = last;
	if (!pick)
		return;
	snprintf(line, len, "%.*s", (int)strcspn(pick, "\n"), pick);
	for (i = 0; line[i]; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] >= 0x7f)
			line[i] = '?';
}

int unit_action(const struct config *cfg, const char *unit, const char *verb,
		unsigned long *elapsed_ms)
{
	char said[300];
	static struct runcmd_result res; /* 64 KiB of output: not on the stack */
	char display[CONFIG_UNIT_MAX], why[160];
	bool start = !strcmp(verb, "start");
	bool queued = start && cfg->start == START_BACKGROUND;

	unit_display(unit, display, sizeof(display));
	log_msg(LOG_INFO, "%s %s", start ? "starting" : "stopping", display);
	if (systemctl(cfg, unit, verb, queued, &res) == 0) {
		/* How long jobs wait for the unit: systemd's own time plus the
		 * exporter's start-up (the benchmarks collect this line). */
		if (queued)
			log_msg(LOG_INFO, "%s start queued in %lu ms (start=background: the job does not wait for it)",
				display, res.elapsed_ms);
		else
			log_msg(LOG_INFO, "%s %s in %lu ms", display, start ? "started" : "stopped",
				res.elapsed_ms);
		log_output(LOG_DEBUG, &res);
		if (elapsed_ms)
			*elapsed_ms = res.elapsed_ms;
		return 0;
	}
	runcmd_describe(&res, cfg->timeout * 1000, why, sizeof(why));
	log_msg(LOG_ERROR, "failed to %s %s: %s %s %s %s",
		verb, unit, cfg->systemctl, verb, unit, why);
	log_output(LOG_ERROR, &res);
	if (elapsed_ms)
		*elapsed_ms = res.elapsed_ms;
	/* Why it failed is in its own journal, not in systemctl's words. */
	if (start && !res.timed_out) {
		unit_said(cfg, unit, said, sizeof(said));
		if (said[0])
			log_msg(LOG_ERROR, "%s said: %s", display, said);
	}
	return -1;
}

enum unit_state unit_query(const struct config *cfg, char *word, size_t wordlen)
{
	return unit_query_unit(cfg, cfg->unit, word, wordlen);
}

enum unit_state unit_query_unit(const struct config *cfg, const char *unit, char *word,
				size_t wordlen)
{
	static const char *const up[] = { "active", "activating", "reloading", "refreshing" };
	static const char *const down[] = { "inactive", "failed", "deactivating" };
	static struct runcmd_result res;
	char answer[32], why[160];
	size_t i;

	/* is-active exits non-zero for anything but "active": the answer is
	 * the first line of its output, as long as it ran to completion. */
	systemctl(cfg, unit, "is-active", false, &res);
	if (!res.exited || res.exec_errno) {
		runcmd_describe(&res, cfg->timeout * 1000, why, sizeof(why));
		if (word)
			snprintf(word, wordlen, "%s is-active %s %s", cfg->systemctl, unit, why);
		return UNIT_UNKNOWN;
	}
	snprintf(answer, sizeof(answer), "%.*s", (int)strcspn(res.output, "\n"), res.output);
	if (word)
		snprintf(word, wordlen, "%s", answer);
	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++)
		if (!strcmp(answer, up[i]))
			return UNIT_ACTIVE;
	for (i = 0; i < sizeof(down) / sizeof(down[0]); i++)
		if (!strcmp(answer, down[i]))
			return UNIT_INACTIVE;
	if (word)
		snprintf(word, wordlen, "unexpected answer \"%.20s\" from %s is-active",
			 answer, cfg->systemctl);
	return UNIT_UNKNOWN;
}

/* Where systemd puts the unit's cgroup unless told otherwise: a template
 * instance "a@b.service" in system.slice/system-a.slice/ ("-" in the
 * template's name escaped as \x2d), anything else in system.slice/. */
static void default_cgroup(const char *unit, char *buf, size_t len)
{
	const char *at = strchr(unit, '@');
	size_t n = 0;

	if (!at) {
		snprintf(buf, len, "system.slice/%s", unit);
		return;
	}
	n = (size_t)snprintf(buf, len, "system.slice/system-");
	for (const char *p = unit; p < at && n + 5 < len; p++)
		n += (size_t)snprintf(buf + n, len - n, *p == '-' ? "\\x2d" : "%c", *p);
	snprintf(buf + n, len - n, ".slice/%s", unit);
}

/* The hierarchy found for root while the memo is on (unit.h). */
static struct {
	bool on, known;
	int at; /* index into hierarchies, or -1: no systemd tree */
	char root[sizeof(((struct config *)0)->cgroup_root)];
} cgroup_memo;

void unit_cgroup_memo_begin(void)
{
	cgroup_memo.on = true;
	cgroup_memo.known = false;
}

void unit_cgroup_memo_end(void)
{
	cgroup_memo.on = false;
}

int unit_cgroup(const struct config *cfg, const char *unit, char *path, size_t len)
{
	static const char *const hierarchies[] = { "", "/unified", "/systemd" };
	char rel[2 * CONFIG_UNIT_MAX];
	struct stat st;
	int i, at = -1;

	if (cgroup_memo.on && cgroup_memo.known && !strcmp(cgroup_memo.root, cfg->cgroup_root)) {
		at = cgroup_memo.at;
	} else {
		/* The first hierarchy that has systemd's system.slice decides. */
		for (i = 0; i < (int)(sizeof(hierarchies) / sizeof(hierarchies[0])); i++) {
			snprintf(path, len, "%s%s/system.slice", cfg->cgroup_root, hierarchies[i]);
			if (stat(path, &st) == 0) {
				at = i;
				break;
			}
		}
		if (cgroup_memo.on) {
			cgroup_memo.known = true;
			cgroup_memo.at = at;
			snprintf(cgroup_memo.root, sizeof(cgroup_memo.root), "%s", cfg->cgroup_root);
		}
	}
	if (at < 0)
		return -1;
	default_cgroup(unit, rel, sizeof(rel));
	snprintf(path, len, "%s%s/%s", cfg->cgroup_root, hierarchies[at], rel);
	return stat(path, &st) == 0;
}

/* The PIDs in the unit's cgroup (at most max): systemd's own record of
 * its processes, read without running anything. */
int unit_pids(const struct config *cfg, const char *unit, pid_t *pids, int max)
{
	char path[CONFIG_PATH_MAX + 3 * CONFIG_UNIT_MAX], buf[4096], *p, *end;
	ssize_t len;
	int fd, n = 0;

	if (unit_cgroup(cfg, unit, path, sizeof(path) - 16) != 1)
		return 0;
	strcat(path, "/cgroup.procs");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (p = buf; *p && n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > 0)
			pids[n++] = (pid_t)v;
		end += strspn(end, "\n");
	}
	return n;
}

int unit_holds_address(const struct config *cfg, const char *unit, const struct listen_addr *a,
		       char *why, size_t whylen)
{
	struct listen_holder stranger;
	pid_t pids[64];
	char who[200];
	int np = unit_pids(cfg, unit, pids, 64), rc;

	rc = listenaddr_owned(a, pids, np, &stranger);
	if (rc == 1)
		return 1;
	if (rc < 0) {
		snprintf(why, whylen, "nothing listens on its address %s", a->text);
		return -1;
	}
	listenaddr_describe(&stranger, who, sizeof(who));
	snprintf(why, whylen, "its address %s is held by %s, not by %s", a->text, who, unit);
	return 0;
}

/* 1: the cgroup is there (it runs); 0: not there; -1: no systemd tree. */
static int cgroup_present(const struct config *cfg, const char *unit)
{
	char path[CONFIG_PATH_MAX + 3 * CONFIG_UNIT_MAX];

	return unit_cgroup(cfg, unit, path, sizeof(path));
}

int unit_is_dead(const struct config *cfg, const char *unit)
{
	char word[200];
	enum unit_state st;

	if (cgroup_present(cfg, unit) != 0)
		return 0; /* running, or no systemd here to ask */
	st = unit_query_unit(cfg, unit, word, sizeof(word));
	if (st == UNIT_UNKNOWN)
		log_msg(LOG_ERROR, "cannot tell whether %s runs (%s); leaving it as it is",
			unit, word);
	return st == UNIT_INACTIVE;
}
