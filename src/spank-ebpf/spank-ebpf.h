/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank-ebpf, the admin command: one file per subcommand behind the
 * dispatcher in main.c, all on the core in src/common (the same state
 * protocol, configuration and systemctl handling as the plugin). */
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

struct cmd;

/* A subcommand: a row of the command table in main.c. */
struct command {
	const char *name;
	int (*run)(struct cmd *);
	const struct option_spec *opts; /* ended by a row without a name */
	const char *operands;           /* for usage: "JOBID", "FILE|-", NULL */
	unsigned flags;
	const char *what;               /* one line for --help */
};
#define CMD_CONFIG 1u   /* reads the plugin's line from -c FILE */
#define CMD_INTERNAL 2u /* run by Slurm, systemd or a timer, not by hand */

struct cmd {
	const char *name;
	const struct command *command; /* its row: options, usage */
	const char *config_path; /* -c: the plugstack file with the plugin's line */
	struct config cfg;       /* parsed from it (by load_config) */
	struct slurm_ask ask;    /* --node, --squeue, SLURM_CONF */
	int argc;                /* the subcommand's own arguments */
	char **argv;
};

/* Reads the plugin's line from cmd->config_path into cmd->cfg; prints the
 * reason and returns -1 when it cannot. */
int load_config(struct cmd *cmd);
/* For the commands that ask Slurm (status, reconcile): applies --node and
 * --squeue (when not NULL), checks root, loads the configuration, bounds
 * the query by its timeout=. Returns 0, or the exit status to return. */
int prepare_slurm_command(struct cmd *cmd, const char *node, const char *squeue);
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
