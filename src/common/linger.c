/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The linger window. See linger.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobset.h"
#include "linger.h"
#include "log.h"
#include "observe.h"
#include "runcmd.h"
#include "transition.h"
#include "unit.h"

#define TIMER_NAME_MAX 128

struct window {
	long long end;               /* boot-time seconds; 0: no window */
	char timer[TIMER_NAME_MAX];  /* the pending timer's unit, "" none */
	long long due;               /* when it fires */
};

static long long boot_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (long long)ts.tv_sec;
}

/* A timer that fired this long ago may still have its linger-end waiting
 * for the lock (held by the caller): that run arms the next one. */
static long long fired_grace(const struct config *cfg)
{
	return (long long)cfg->lock_timeout + 2LL * cfg->timeout;
}

/* Reads the window; a missing file is no window. A damaged one is logged
 * and read as no window (its timer finds nothing to do). An end beyond
 * linger= from now is capped there: only a forged or damaged file says so. */
/* "<key> " then a canonical decimal then "\n", at *p; moves *p past it. */
static int take_number(const char **p, const char *key, long long *v)
{
	size_t klen = strlen(key);
	const char *s = *p;
	char *end;

	if (strncmp(s, key, klen) != 0 || s[klen] < '0' || s[klen] > '9' ||
	    (s[klen] == '0' && s[klen + 1] != '\n'))
		return -1;
	*v = strtoll(s + klen, &end, 10);
	if (*end != '\n' || end - (s + klen) > 18)
		return -1;
	*p = end + 1;
	return 0;
}

/* <state>.linger for unit=, <state>.linger.<set> for a probe set. */
static void window_file(const struct target *t, char *buf, size_t len)
{
	snprintf(buf, len, ".linger%s", t->aux);
}

static void window_read(struct statefile *sf, const struct target *t, struct window *w)
{
	static const char name_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	char buf[256], file[64];
	const char *p = buf;
	long long now = boot_seconds();
	size_t len, nlen;

	memset(w, 0, sizeof(*w));
	window_file(t, file, sizeof(file));
	if (statefile_read_aux(sf, file, buf, sizeof(buf), &len) != 0)
		return;
	if (strlen(buf) != len || take_number(&p, "end ", &w->end) < 0) {
		log_msg(LOG_ERROR, "linger window file \"%s%s\" is damaged: treated as expired",
			sf->path, file);
		memset(w, 0, sizeof(*w));
		w->end = 1; /* long past: the window is over */
		return;
	}
	if (*p) {
		nlen = strncmp(p, "timer ", 6) ? 0 : strspn(p + 6, name_chars);
		if (nlen == 0 || nlen >= sizeof(w->timer) || p[6 + nlen] != ' ') {
			log_msg(LOG_ERROR, "linger window file \"%s%s\" has a damaged timer line: ignored",
				sf->path, file);
		} else {
			snprintf(w->timer, sizeof(w->timer), "%.*s", (int)nlen, p + 6);
			p += 6 + nlen;
			if (take_number(&p, " ", &w->due) < 0 || *p) {
				log_msg(LOG_ERROR, "linger window file \"%s%s\" has a damaged timer line: ignored",
					sf->path, file);
				w->timer[0] = '\0';
			}
		}
	}
	if (w->end > now + t->linger) {
		log_msg(LOG_ERROR, "linger window file \"%s%s\" ends in %lld s, beyond linger=%u: capped",
			sf->path, file, w->end - now, t->linger);
		w->end = now + t->linger;
	}
}

/* Replaces the file (atomically, under the lock), or removes it when it
 * records nothing. */
static int window_write(struct statefile *sf, const struct target *t, const struct window *w)
{
	char text[256], file[64];
	int len;

	window_file(t, file, sizeof(file));
	if (w->end == 0 && !w->timer[0]) {
		statefile_remove_aux(sf, file);
		return 0;
	}
	len = snprintf(text, sizeof(text), "end %lld\n", w->end);
	if (w->timer[0])
		len += snprintf(text + len, sizeof(text) - (size_t)len, "timer %s %lld\n",
				w->timer, w->due);
	return statefile_write_aux(sf, file, "linger window", text, (size_t)len);
}

/* systemd-run beside systemctl: the same systemd, found the same way. */
static void systemd_run_path(const struct config *cfg, char *buf, size_t len)
{
	const char *slash = strrchr(cfg->systemctl, '/');

	snprintf(buf, len, "%.*s/systemd-run", (int)(slash - cfg->systemctl), cfg->systemctl);
}

/* The timer's unit name: the exporter's unit (systemd's unit-name
 * characters but '@' and '\', which would make it something else), when
 * it is due and who armed it, so no two are ever the same. */
static void timer_name(const struct target *t, long long due, char *buf, size_t len)
{
	char unit[64];
	size_t i;

	unit_display(t->unit, unit, sizeof(unit));
	for (i = 0; unit[i]; i++)
		if (unit[i] == '@' || unit[i] == '\\' || unit[i] == '.' || unit[i] == ':')
			unit[i] = '_';
	snprintf(buf, len, "spank-ebpf-linger-%s-%lld-%ld", unit, due, (long)getpid());
}

/* Arms the one timer for the window's end w->end and records it in *w. */
static int arm_timer(const struct config *cfg, const struct target *t, struct window *w)
{
	static struct runcmd_result res;
	char run[CONFIG_PATH_MAX + 16], name[TIMER_NAME_MAX], unit[TIMER_NAME_MAX + 8], when[32];
	char args[CONFIG_ARGS_BUF], why[160], set[JOBSET_NAME_MAX + 8];
	char *argv[12 + CONFIG_KEYS + CONFIG_OPTIONAL_KEYS];
	long long now = boot_seconds(), in = w->end - now;
	int n = 0;

	if (in < 1)
		in = 1;
	systemd_run_path(cfg, run, sizeof(run));
	timer_name(t, now + in, name, sizeof(name));
	snprintf(unit, sizeof(unit), "--unit=%s", name);
	snprintf(when, sizeof(when), "--on-active=%lld", in);
	argv[n++] = run;
	argv[n++] = "--quiet";
	argv[n++] = "--collect";
	argv[n++] = unit;
	argv[n++] = when;
	argv[n++] = "--timer-property=AccuracySec=1s";
	argv[n++] = "--";
	argv[n++] = (char *)cfg->admin_cmd;
	argv[n++] = "linger-end";
	if (strcmp(t->name, JOBSET_LEGACY)) {
		snprintf(set, sizeof(set), "--set=%s", t->name);
		argv[n++] = set;
	}
	/* The settings, not the line as written: every key, canonical, so the
	 * timer's command shows exactly what linger-end will use. */
	n += config_args(cfg, args, argv + n);
	argv[n] = NULL;
	if (runcmd(argv, cfg->timeout * 1000, &res) == 0) {
		snprintf(w->timer, sizeof(w->timer), "%s", name);
		w->due = now + in;
		return 0;
	}
	runcmd_describe(&res, cfg->timeout * 1000, why, sizeof(why));
	log_msg(LOG_ERROR, "cannot arm the linger timer: \"%s\" %s; %.200s", run, why, res.output);
	return -1;
}

/* Is the recorded timer still to fire (or fired so recently that its run
 * is yet to come, and will arm the next)? And not after the window's end
 * (linger= lowered since): then the window would outlast linger=. */
static int timer_pending(const struct config *cfg, const struct window *w)
{
	long long now = boot_seconds();

	return w->timer[0] && w->due > now - fired_grace(cfg) && w->due <= w->end + 1;
}

int linger_open(struct statefile *sf, const struct config *cfg, const struct target *t)
{
	struct window w;

	window_read(sf, t, &w);
	w.end = boot_seconds() + t->linger;
	if (!timer_pending(cfg, &w) && arm_timer(cfg, t, &w) < 0) {
		linger_forget(sf, t);
		return -1;
	}
	if (window_write(sf, t, &w) < 0) {
		linger_forget(sf, t);
		return -1;
	}
	return 0;
}

int linger_close(struct statefile *sf, const struct target *t)
{
	struct window w;

	window_read(sf, t, &w);
	if (w.end == 0)
		return 0;
	w.end = 0;
	if (window_write(sf, t, &w) < 0)
		linger_forget(sf, t); /* no window either way */
	return 1;
}

void linger_forget(struct statefile *sf, const struct target *t)
{
	char file[64];

	window_file(t, file, sizeof(file));
	statefile_remove_aux(sf, file);
}

long linger_left(struct statefile *sf, const struct target *t)
{
	struct window w;
	long long now = boot_seconds();

	window_read(sf, t, &w);
	if (w.end == 0)
		return -1;
	return w.end > now ? (long)(w.end - now) : 0;
}

int linger_timer(struct statefile *sf, const struct target *t, char *name, size_t len,
		 long *due_in)
{
	struct window w;

	window_read(sf, t, &w);
	snprintf(name, len, "%s", w.timer);
	if (!w.timer[0])
		return -1;
	*due_in = (long)(w.due - boot_seconds());
	return 0;
}

int linger_rearm(struct statefile *sf, const struct config *cfg, const struct target *t)
{
	struct window w;

	window_read(sf, t, &w);
	if (w.end == 0)
		return 0;
	w.timer[0] = '\0';
	if (arm_timer(cfg, t, &w) < 0)
		return -1;
	return window_write(sf, t, &w);
}

int linger_end(const struct config *cfg, const struct sets *sets, const struct target *given)
{
	struct target started = *given, *t = &started;
	struct statefile sf;
	struct jobset set;
	struct window w;
	char display[CONFIG_UNIT_MAX];
	long long now;
	size_t held;
	int rc = -1;

	jobset_init(&set);
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    statefile_load(&sf, &set) < 0)
		goto out;
	rc = 0;
	now = boot_seconds();
	held = jobset_holders(&set, jobset_bit(&set, t->name, strlen(t->name)));
	window_read(&sf, t, &w);
	/* The recorded timer has fired (it is this run, or one before it):
	 * it is no longer pending. */
	if (w.timer[0] && w.due <= now + 1)
		w.timer[0] = '\0';
	unit_display(t->unit, display, sizeof(display));
	if (held > 0 || w.end == 0) {
		log_msg(LOG_INFO, "linger window over: %s", held ? "a job joined, the exporter stays" :
			"already closed");
		window_write(&sf, t, &w);
	} else if (w.end > now + 1) {
		/* A later job left since the timer was armed: one timer for
		 * what is left, unless one is pending already. */
		log_msg(LOG_INFO, "linger window moved on by a later job: %lld s left", w.end - now);
		if (!timer_pending(cfg, &w) && arm_timer(cfg, t, &w) < 0)
			log_msg(LOG_ERROR, "the window ends at the next reconcile instead");
		window_write(&sf, t, &w);
	} else if (strcmp(t->name, JOBSET_LEGACY) && !target_recorded(&sf, t)) {
		/* Not noted as started (see transition.h): reconcile's. */
		linger_forget(&sf, t);
		log_msg(LOG_INFO, "linger window over: set %s has no unit noted as started; left for spank-ebpf reconcile",
			t->name);
	} else {
		linger_forget(&sf, t);
		unit_display(t->unit, display, sizeof(display));
		log_msg(LOG_INFO, "stopping %s after %u s without jobs", display, t->linger);
		transition_run(&sf, cfg, t, TRANSITION_STOP);
	}
	/* The window's end is also the end of the grace of the jobs that
	 * left in it (observe.h). */
	observe_prune(&sf, cfg, sets, &set);
out:
	statefile_close(&sf);
	jobset_free(&set);
	return rc;
}
