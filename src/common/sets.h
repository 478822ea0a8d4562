/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe sets: the admin's named groups of ebpf_exporter configs, each run
 * by its own instance of a template unit on its own address, chosen per
 * job with --ebpf=SET[,SET...]. Declared in one file (the sets= argument
 * of the plugin's line), which config management templates:
 *
 *     # global keys, before the first section
 *     unit = spank-ebpf-exporter@.service   # the template (this default)
 *     exporter = /usr/local/bin/ebpf_exporter
 *     config_dir = /usr/lib/x86_64-linux-gnu/slurm-spank-ebpf/ebpf_exporter
 *     default = io                          # what plain --ebpf means
 *     always = io                           # what mode=always means
 *     textfile = /var/lib/prometheus/node-exporter  # job_info, or none
 *     textfile_group = prometheus           # may read it (node_exporter's)
 *
 *     [io]
 *     description = Block I/O latency and bytes of the job
 *     configs = spank-io
 *     listen = 127.0.0.1:941
 *     linger = 60                           # else the line's linger=
 *
 * '#' starts a comment; keys and values are trimmed. Every line is
 * checked, and a refusal names the file and line. A site without sets=
 * keeps one unit (unit=), exactly as before sets existed. */
#ifndef SPANK_EBPF_SETS_H
#define SPANK_EBPF_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "listenaddr.h"

#define SETS_MAX 16            /* declared sets */
#define SET_NAME_MAX 32        /* [a-z][a-z0-9_-]*, bytes */
#define SET_CONFIGS_MAX 8      /* configs per set */
#define SET_CONFIG_NAME_MAX 64
#define SET_DESC_MAX 100
#define SETS_PATH_MAX 256
#define SETS_FILE_MAX 65536    /* bytes */
#define SETS_GROUP_MAX 32      /* a group name, as useradd takes it */

struct probe_set {
	char name[SET_NAME_MAX + 1];
	char description[SET_DESC_MAX + 1];
	char configs[SET_CONFIGS_MAX * (SET_CONFIG_NAME_MAX + 1)]; /* "a,b" */
	char listen[80];       /* ADDRESS:PORT, as written */
	struct listen_addr addr; /* ... parsed: what binds and connects use */
	unsigned int port;
	unsigned int linger;   /* seconds */
	bool linger_given;     /* else the plugin line's linger= */
};

struct sets {
	int n;
	struct probe_set set[SETS_MAX];
	uint32_t default_mask;  /* bit i: set[i] */
	uint32_t always_mask;
	char unit[256];         /* the template, "name@.service" */
	char exporter[SETS_PATH_MAX];
	char config_dir[SETS_PATH_MAX];
	char textfile[SETS_PATH_MAX];  /* node_exporter's textfile directory, "" for none */
	char textfile_group[SETS_GROUP_MAX + 1]; /* the group that may read it (node_exporter's) */
};

/* Parses the text of a sets file (named name in messages). Returns 0, or
 * -1 with err saying "name:LINE: what is wrong". */
int sets_parse(const char *text, size_t len, const char *name, struct sets *s,
	       char *err, size_t errlen);

/* Reads and parses the file at path: root's or the caller's, not
 * writable by group or others, at most SETS_FILE_MAX bytes. */
int sets_load(const char *path, struct sets *s, char *err, size_t errlen);

/* [a-z][a-z0-9_-]*, at most SET_NAME_MAX: name (len bytes, not
 * necessarily NUL-terminated) may be a set's. */
bool sets_valid_name(const char *name, size_t len);

/* The index of the set called name (len bytes), or -1. */
int sets_find(const struct sets *s, const char *name, size_t len);

/* A job's request, the option's value: NULL, "" or "(null)" (plain
 * --ebpf) means the default sets; else SET[,SET...]. Returns 0 with the
 * sets in *mask, or -1 with the first name that is not a declared set in
 * bad ("" for an empty one: a stray comma) and *mask 0: a request sbatch
 * refuses is refused whole on the node too, never held in part. */
int sets_request(const struct sets *s, const char *value, uint32_t *mask,
		 char *bad, size_t badlen);

/* "io, sched, net": the declared names, for messages. */
void sets_allowed(const struct sets *s, char *buf, size_t len);

/* The instance of the template for set i: "spank-ebpf-exporter@io.service". */
void sets_unit(const struct sets *s, const char *set_name, char *buf, size_t len);

/* Every config of every set has its <config_dir>/<config>.yaml. Returns
 * 0, or -1 with err naming the set and the config. (check-config and the
 * exporter face: the hooks do not look.) */
int sets_check_configs(const struct sets *s, char *err, size_t errlen);

#endif
