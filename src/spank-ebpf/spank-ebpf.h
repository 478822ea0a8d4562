/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank-ebpf, the admin command: one file per subcommand behind the
 * dispatcher in main.c, on the core in src/common (the same state
 * protocol, configuration and systemctl handling as the plugin) and the
 * admin library in src/libadmin (Prometheus, HTTP, JSON, Slurm's
 * accounting), which the plugin never links. */
#ifndef SPANK_EBPF_CMD_H
#define SPANK_EBPF_CMD_H

#include <stdbool.h>

#include "config.h"
#include "slurmjobs.h"

/* Exit statuses shared by every subcommand. */
#define EXIT_OK 0
#define EXIT_ANOMALY 1   /* status: anomalies; check-config: invalid; metrics: not written */
#define EXIT_UNSURE 2    /* cannot tell; also usage errors and "must run as root" */

/* One option of a subcommand: a row of its options table, from which
 * parse_options() parses and `spank-ebpf SUB --help`, the usage lines and
 * the bash completion (which asks --help) are made. Adding an option is
 * one row (and the code that reads its value). */
struct option_spec {
	const char *name; /* "dry-run": given as --dry-run */
	const char *arg;  /* its value's name ("PATH"), NULL for a flag */
	const char *what; /* one line for --help */
	unsigned flags;
};
#define OPT_ALONE 1u /* a form of its own: usage shows "SUB --name", no operands */
#define OPT_BY_SYSTEMD 2u /* that form is run by a systemd unit: --help lists it there */
/* Its short form too: OPT_LETTER('d') takes -d VALUE (or -dVALUE). */
#define OPT_LETTER(c) ((unsigned)(unsigned char)(c) << 8)
#define OPT_LETTER_OF(o) ((char)(((o)->flags >> 8) & 0xffu))

struct cmd;

/* A subcommand: a row of the command table in main.c, which says what it
 * needs before its own work (the prologue in main.c: its options and
 * operand parsed, root, the plugin's line loaded), so that the command's
 * function starts with its own work. */
struct command {
	const char *name;
	int (*run)(struct cmd *);
	const struct option_spec *opts; /* ended by a row without a name */
	const char *operands;           /* for usage: "JOBID", "FILE|-"; NULL: takes none */
	const char *which;              /* the operand is required: the usage error without it */
	unsigned flags;
	const char *what;               /* one line for --help */
};
#define CMD_CONFIG 1u   /* reads the plugin's line from -c FILE */
/* Who runs it, when not an admin by hand: --help lists it under them. */
#define CMD_BY_SLURM 2u     /* Prolog=, Epilog=, EpilogSlurmctld= */
#define CMD_BY_SYSTEMD 512u /* the units the packages install */
#define CMD_BY_TIMER 1024u  /* the timers the plugin arms */
#define CMD_INTERNAL (CMD_BY_SLURM | CMD_BY_SYSTEMD | CMD_BY_TIMER)
#define CMD_ROOT 4u     /* must run as root: refused before its own work */
#define CMD_LOAD 8u     /* the plugin's line loaded into cmd->cfg before its own work */
#define CMD_SLURM 16u   /* asks Slurm: --node and --squeue applied, bounded by timeout= */
/* Parses its arguments itself, and checks root after them (linger-end:
 * plugstack's, as the plugin's timer passes them). */
#define CMD_OWN_ARGS 32u
/* When root or the plugin's line is missing: exit status 2 (cannot tell),
 * unless one of these says otherwise. */
#define CMD_FAIL_OK 64u       /* 0: a Prolog=/Epilog= must not fail the job */
#define CMD_FAIL_ANOMALY 128u /* 1: the exporter's unit fails, saying why */
#define CMD_SET_NAME 256u /* its operand is a set's name: "which" unless well-formed */

/* The most rows an options table may have (struct cmd's opt[]). */
#define CMD_OPTS_MAX 12

struct cmd {
	const char *name;
	const struct command *command; /* its row: options, usage */
	const char *config_path; /* -c: the plugstack file with the plugin's line */
	struct config cfg;       /* parsed from it (by load_config) */
	struct slurm_ask ask;    /* --node, --squeue, SLURM_CONF */
	int argc;                /* the subcommand's own arguments */
	char **argv;
	/* Parsed by the prologue from argv by the options table: opt[i] is
	 * the value of the table's row i ("1" for a flag given, NULL when not
	 * given); operand is the operand, NULL when none was given. */
	const char *opt[CMD_OPTS_MAX];
	const char *operand;
};

/* Reads the plugin's line from cmd->config_path into cmd->cfg; prints the
 * reason and returns -1 when it cannot. */
int load_config(struct cmd *cmd);
/* Prints an error and returns -1 unless running as root. */
int need_root(const struct cmd *cmd);
/* Prints "spank-ebpf: <cmd>: <message>", the command's usage lines (the
 * whole usage without one) and where --help is; returns 2. */
int usage_error(const struct cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Parses the subcommand's arguments by its options table
 * (cmd->command->opts): --name for a flag, --name=V or --name V for an
 * option with a value, into vals[i] for the table's row i (flags get
 * "1"; vals has a slot per row); the rest into pos (at most maxpos; "-"
 * is positional, "--" ends the options). Unknown options, missing values
 * and extra arguments are usage errors. Returns 0, or 2 after
 * usage_error(). */
int parse_options(struct cmd *cmd, const char *vals[], const char *pos[], int maxpos, int *npos);

/* The options tables, one per subcommand, beside the code reading them. */
extern const struct option_spec status_options[];
extern const struct option_spec reconcile_options[];
extern const struct option_spec metrics_options[];
extern const struct option_spec check_config_options[];
extern const struct option_spec linger_end_options[];
extern const struct option_spec report_options[];
extern const struct option_spec exporter_options[];
extern const struct option_spec summary_options[];
extern const struct option_spec top_options[];
extern const struct option_spec no_options[]; /* hook, admit, help */

int cmd_status(struct cmd *cmd);
int cmd_reconcile(struct cmd *cmd);
int cmd_metrics(struct cmd *cmd);
int cmd_check_config(struct cmd *cmd);
int cmd_hook(struct cmd *cmd); /* prolog and epilog */
int cmd_linger_end(struct cmd *cmd);
int cmd_exporter(struct cmd *cmd); /* run by spank-ebpf-exporter@.service */
int cmd_admit(struct cmd *cmd);    /* its ExecStartPost */
int cmd_report(struct cmd *cmd);
int cmd_summary(struct cmd *cmd); /* summary, and epilog-slurmctld (EpilogSlurmctld=) */
int cmd_top(struct cmd *cmd);

/* report's socket for users (spank-ebpf-report.socket; report_peer.c). */
#define REPORT_SOCKET "/run/spank-ebpf-report.sock"
/* The report of job as the user uid may see it (0: root, every job; any
 * other uid: the jobs recorded with that uid): the figures on stdout,
 * messages on stderr; returns the exit status. */
typedef int (*report_fn)(struct cmd *cmd, unsigned long job, bool json, long long uid);
/* A user's report asked of the service at path: the answer printed, its
 * exit status returned; -1 when there is no service (no socket file). */
int report_peer_ask(const char *path, unsigned long job, bool json);
/* The service's side (report --peer): one request from the connection on
 * standard input, answered by run for the user the kernel names. */
int report_peer_serve(struct cmd *cmd, report_fn run);

/* Where log lines go: stderr, and syslog too for the commands that change
 * the node (reconcile), so every change is recorded with its reason. */
void log_to_stderr(bool also_syslog);

#endif
