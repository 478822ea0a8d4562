/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Plugin configuration: the key=value arguments of the plugstack.conf line. */
#ifndef SPANK_EBPF_CONFIG_H
#define SPANK_EBPF_CONFIG_H

#include <stddef.h>

enum ebpf_mode { MODE_OPT_IN, MODE_ALWAYS };

/* start=wait: the prolog waits for systemctl start, so payloads begin
 * with the probes live (the default). start=background: the prolog only
 * queues the start (systemctl start --no-block) and the job goes on; the
 * lock is held for milliseconds, not for the exporter's start-up. */
enum start_mode { START_WAIT, START_BACKGROUND };

#define CONFIG_PATH_MAX 256   /* leaves room for ".lock"/".tmp" suffixes */
#define CONFIG_UNIT_MAX 256   /* systemd's own limit on unit names */
#define CONFIG_TIMEOUT_MAX 600
#define CONFIG_LINGER_MAX 86400 /* a day: longer is "always on" */

#define DEFAULT_UNIT "ebpf_exporter.service"
#define DEFAULT_STATE "/run/ebpf_exporter.refcount"
#define DEFAULT_TIMEOUT 10      /* seconds per systemctl call */
#define DEFAULT_LOCK_TIMEOUT 60 /* seconds waiting for the state lock */

/* The most bounded external calls (each up to timeout=) one holder of the
 * lock makes: a join that finds the unit dead asks systemd, then starts
 * it; a reconcile asks Slurm, asks systemd, then starts or stops it. A
 * waiter must not give up before such a holder is done, so the parser
 * requires lock_timeout > CONFIG_LOCKED_CALLS x timeout. */
#define CONFIG_LOCKED_CALLS 3

struct config {
	enum ebpf_mode mode;
	char unit[CONFIG_UNIT_MAX];
	char state[CONFIG_PATH_MAX];
	char systemctl[CONFIG_PATH_MAX];
	unsigned int timeout;      /* seconds */
	unsigned int lock_timeout; /* seconds */
	enum start_mode start;
	unsigned int linger;       /* seconds the exporter outlives the last job */
	char sets[CONFIG_PATH_MAX]; /* the probe sets file (sets.h); "": none, one unit= */
	/* For `spank-ebpf report` on login nodes (promapi.h): Prometheus' URL,
	 * a CA file for https, a netrc file for basic auth; "": none. */
	char prometheus[CONFIG_PATH_MAX];
	char prometheus_ca[CONFIG_PATH_MAX];
	char prometheus_netrc[CONFIG_PATH_MAX];
	/* The admin command the linger timer runs; not a plugstack argument,
	 * tests point it elsewhere. */
	char admin_cmd[CONFIG_PATH_MAX];
	/* Where systemd's cgroup tree is mounted; not a plugstack argument,
	 * tests point it elsewhere. */
	char cgroup_root[64];
};

/* Fills *cfg with the defaults, then applies argv. On error returns -1,
 * leaves the defaults in *cfg, and writes a message naming the offending
 * argument into err. */
int config_parse(struct config *cfg, int argc, char *const argv[],
		 char *err, size_t errlen);

/* The inverse of config_parse: *cfg as plugstack arguments, every key
 * given (sets= only when set: it has no empty value), in a fixed order;
 * parsing them back yields the same settings. For the programs the plugin
 * starts with its own configuration (the linger timer's spank-ebpf
 * linger-end). The strings live in buf, whose CONFIG_ARGS_BUF bytes
 * always suffice; returns how many (CONFIG_KEYS, and one more for each
 * optional key set: sets= and the prometheus ones); argv has room for
 * CONFIG_KEYS + CONFIG_OPTIONAL_KEYS. */
#define CONFIG_KEYS 8
#define CONFIG_OPTIONAL_KEYS 4
#define CONFIG_ARGS_BUF (7 * CONFIG_PATH_MAX + CONFIG_UNIT_MAX + 230)
int config_args(const struct config *cfg, char buf[CONFIG_ARGS_BUF],
		char *argv[CONFIG_KEYS + CONFIG_OPTIONAL_KEYS]);

const char *config_mode_name(enum ebpf_mode mode);
const char *config_start_name(enum start_mode start);

/* The unit name without a ".service" suffix, as the log lines show it. */
void config_unit_display(const struct config *cfg, char *buf, size_t len);

#endif
