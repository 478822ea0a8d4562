/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exporter's systemd unit: starting and stopping it, and asking systemd
 * (never guessing) whether it runs. Every call goes through runcmd: by
 * absolute path, clean environment, bounded by timeout=. */
#ifndef SPANK_EBPF_UNIT_H
#define SPANK_EBPF_UNIT_H

#include <stddef.h>
#include <sys/types.h>

#include "config.h"
#include "listenaddr.h"

enum unit_state {
	UNIT_UNKNOWN,   /* systemd could not be asked, or said something else */
	UNIT_ACTIVE,    /* active, activating, reloading, refreshing */
	UNIT_INACTIVE,  /* inactive, failed, deactivating: not serving */
};

/* The unit name without a ".service" suffix, as the log lines show it. */
void unit_display(const char *unit, char *buf, size_t len);

/* systemctl start|stop UNIT (unit= or a probe set's instance), logged ("starting X", "X started in N ms",
 * or the failure with systemctl's own words). *elapsed_ms (may be NULL)
 * gets the call's duration. Returns 0 on success, -1 on failure. */
int unit_action(const struct config *cfg, const char *unit, const char *verb,
		unsigned long *elapsed_ms);

/* systemctl is-active UNIT. word (may be NULL) gets systemd's answer, or
 * why there is none. */
enum unit_state unit_query(const struct config *cfg, char *word, size_t wordlen);

/* The same for another unit (the linger window's timer). */
enum unit_state unit_query_unit(const struct config *cfg, const char *unit, char *word,
				size_t wordlen);

/* Where systemd keeps the unit's cgroup unless told otherwise (its
 * processes are in <path>/cgroup.procs). Returns 1 when it is there, 0
 * when not (stopped, or another slice), -1 when there is no systemd tree. */
int unit_cgroup(const struct config *cfg, const char *unit, char *path, size_t len);

/* The PIDs in the unit's cgroup (at most max): systemd's own record of
 * its processes, read without running anything. 0 when it has none or
 * its cgroup is not where systemd puts it by default. */
int unit_pids(const struct config *cfg, const char *unit, pid_t *pids, int max);

/* Whether the listening sockets on a set's address a are all held by
 * processes of its unit (report reads an exporter only then: anyone
 * else's answer would be shown as the job's figures). 1 yes; 0 no, why
 * naming the holder ("its address 127.0.0.1:941 is held by uid 0
 * (root), pid 12 (python3), not by UNIT"); -1 nothing listens there. */
int unit_holds_address(const struct config *cfg, const char *unit, const struct listen_addr *a,
		       char *why, size_t whylen);

/* When systemd last saw the unit become active (for a Type=notify
 * service, its READY=1: the probes attached), as boot-time seconds
 * (jobinfo.h's clock), asked of systemd (ActiveEnterTimestampMonotonic).
 * Returns 0, or -1 when systemd cannot say (not running, never active,
 * systemctl failed). */
int unit_ready_since(const struct config *cfg, const char *unit, long long *boot_s);

/* Between these two calls the hierarchy that holds systemd's tree is
 * looked for once, then remembered: a prolog or epilog asks for each of
 * its probe sets' units, and the tree does not move under one hook.
 * Outside them (the unit tests, which make and remove trees) every call
 * looks again. */
void unit_cgroup_memo_begin(void);
void unit_cgroup_memo_end(void);

/* A join into a busy set: did the unit die under its jobs? The cheap look
 * (one stat() of the cgroup systemd gives the unit by default) answers
 * "it runs"; when the cgroup is not where it would be by default (it
 * stopped, or it lives in another slice), systemd is asked. Returns 1
 * only when systemd says it is not running; 0 when it runs or nobody can
 * tell (no systemd cgroup tree, systemctl failed): never act on a guess. */
int unit_is_dead(const struct config *cfg, const char *unit);

#endif
