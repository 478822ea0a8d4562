/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The linger window. See linger.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobset.h"
#include "linger.h"
#include "log.h"
#include "runcmd.h"
#include "transition.h"

static long long boot_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (long long)ts.tv_sec;
}

/* systemd-run beside systemctl: the same systemd, found the same way. */
static void systemd_run_path(const struct config *cfg, char *buf, size_t len)
{
	const char *slash = strrchr(cfg->systemctl, '/');

	snprintf(buf, len, "%.*s/systemd-run", (int)(slash - cfg->systemctl), cfg->systemctl);
}

static int arm(const struct config *cfg, uint32_t job, long long end)
{
	static struct runcmd_result res;
	char run[CONFIG_PATH_MAX + 16], unit[64], when[32], args[CONFIG_ARGS_BUF], why[160];
	char *argv[10 + CONFIG_KEYS];
	int n = 0;

	systemd_run_path(cfg, run, sizeof(run));
	snprintf(unit, sizeof(unit), "--unit=spank-ebpf-linger-%u-%lld", job, end);
	snprintf(when, sizeof(when), "--on-active=%u", cfg->linger);
	argv[n++] = run;
	argv[n++] = "--quiet";
	argv[n++] = "--collect";
	argv[n++] = unit;
	argv[n++] = when;
	argv[n++] = "--timer-property=AccuracySec=1s";
	argv[n++] = "--";
	argv[n++] = (char *)cfg->admin_cmd;
	argv[n++] = "linger-end";
	/* The settings, not the line as written: every key, canonical, so the
	 * timer's command shows exactly what linger-end will use. */
	n += config_args(cfg, args, argv + n);
	argv[n] = NULL;
	if (runcmd(argv, cfg->timeout * 1000, &res) == 0)
		return 0;
	runcmd_describe(&res, cfg->timeout * 1000, why, sizeof(why));
	log_msg(LOG_ERROR, "cannot arm the linger timer: \"%s\" %s; %.200s", run, why, res.output);
	return -1;
}

int linger_open(struct statefile *sf, const struct config *cfg, uint32_t job)
{
	long long end = boot_seconds() + cfg->linger;
	char text[64];
	int len = snprintf(text, sizeof(text), "end %lld\n", end);

	if (statefile_write_aux(sf, ".linger", "linger window", text, (size_t)len) < 0 ||
	    arm(cfg, job, end) < 0) {
		linger_close(sf);
		return -1;
	}
	return 0;
}

int linger_close(struct statefile *sf)
{
	return statefile_remove_aux(sf, ".linger");
}

long linger_left(struct statefile *sf)
{
	char buf[64], *end;
	long long at, now = boot_seconds();
	size_t len;

	if (statefile_read_aux(sf, ".linger", buf, sizeof(buf), &len) != 0)
		return -1;
	if (strncmp(buf, "end ", 4) != 0 || (at = strtoll(buf + 4, &end, 10)) <= 0 || *end != '\n') {
		log_msg(LOG_ERROR, "linger window file \"%s.linger\" is damaged: treated as expired",
			sf->path);
		return 0;
	}
	return at > now ? (long)(at - now) : 0;
}

int linger_end(const struct config *cfg)
{
	struct statefile sf;
	struct jobset set;
	char display[CONFIG_UNIT_MAX];
	long left;
	int rc = -1;

	jobset_init(&set);
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    statefile_load(&sf, &set) < 0)
		goto out;
	rc = 0;
	left = linger_left(&sf);
	config_unit_display(cfg, display, sizeof(display));
	if (set.n > 0 || left < 0) {
		log_msg(LOG_INFO, "linger window over: %s", set.n ? "a job joined, the exporter stays" :
			"already closed");
	} else if (left > 1) { /* a later window: its own timer ends it */
		log_msg(LOG_INFO, "linger window extended by a later job: %ld s left", left);
	} else {
		linger_close(&sf);
		log_msg(LOG_INFO, "stopping %s after %u s without jobs", display, cfg->linger);
		transition_run(&sf, cfg, TRANSITION_STOP);
	}
out:
	statefile_close(&sf);
	jobset_free(&set);
	return rc;
}
