/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank-ebpf: see, repair and measure the exporter's holds on a node.
 * The dispatcher: global options, then one subcommand. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conffile.h"
#include "log.h"
#include "spank-ebpf.h"

#ifndef DEFAULT_CONFIG
#define DEFAULT_CONFIG "/etc/slurm/plugstack.conf.d/spank_ebpf.conf"
#endif
#ifndef SQUEUE_PATH
#define SQUEUE_PATH "/usr/bin/squeue"
#endif

static int cmd_help(struct cmd *cmd);

const struct option_spec no_options[] = { { NULL, NULL, NULL, 0 } };

/* The subcommands, in the order --help lists them; each one's options are
 * in its own table (struct option_spec). */
static const struct command commands[] = {
	{ "status", cmd_status, status_options, NULL, CMD_CONFIG,
	  "the node's holds, the unit, the jobs Slurm still runs here" },
	{ "reconcile", cmd_reconcile, reconcile_options, NULL, CMD_CONFIG,
	  "drop the holds of jobs Slurm says are gone; bring the unit in line" },
	{ "metrics", cmd_metrics, metrics_options, NULL, CMD_CONFIG,
	  "Prometheus text format, for node_exporter's textfile collector" },
	{ "check-config", cmd_check_config, check_config_options, "FILE|-", 0,
	  "validate a plugstack file's spank_ebpf.so line as the plugin does" },
	{ "report", cmd_report, report_options, "JOBID", CMD_CONFIG,
	  "a job's probe figures: on its node now, or on every node from Prometheus" },
	{ "summary", cmd_summary, summary_options, "JOBID", CMD_CONFIG,
	  "an ended job's figures from Prometheus, kept in its AdminComment" },
	{ "help", cmd_help, no_options, "[COMMAND]", 0,
	  "this help, or a command's (as COMMAND --help)" },
	{ "prolog", cmd_hook, no_options, NULL, CMD_CONFIG | CMD_INTERNAL,
	  "take the job's hold (Prolog=, for PrologFlags=RunInJob)" },
	{ "epilog", cmd_hook, no_options, NULL, CMD_CONFIG | CMD_INTERNAL,
	  "release the job's hold (Epilog=)" },
	{ "linger-end", cmd_linger_end, linger_end_options, "PLUGSTACK-ARGS...", CMD_INTERNAL,
	  "end a linger window (run by the timer the plugin arms)" },
	{ "exporter", cmd_exporter, exporter_options, "SET", CMD_CONFIG | CMD_INTERNAL,
	  "become ebpf_exporter for a probe set (spank-ebpf-exporter@SET.service)" },
	{ "admit", cmd_admit, no_options, "SET", CMD_CONFIG | CMD_INTERNAL,
	  "put the set's jobs in its started exporter's job filter (its ExecStartPost)" },
	{ "epilog-slurmctld", cmd_summary, summary_options, NULL, CMD_CONFIG | CMD_INTERNAL,
	  "the job's summary at its end (EpilogSlurmctld=; the job from SLURM_JOB_ID)" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* A command's usage lines, each after lead ("usage: " or its width of
 * blanks): the options in brackets, then a line per OPT_ALONE form. */
static void usage_lines(FILE *f, const struct command *c, const char **lead)
{
	const char *pre = c->flags & CMD_CONFIG ? "spank-ebpf [-c FILE] " : "spank-ebpf ";
	const struct option_spec *o;

	fprintf(f, "%s%s%s", *lead, pre, c->name);
	*lead = "       ";
	for (o = c->opts; o->name; o++) {
		if (o->flags & OPT_ALONE)
			continue;
		fprintf(f, " [--%s%s%s]", o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
	}
	fprintf(f, "%s%s\n", c->operands ? " " : "", c->operands ? c->operands : "");
	for (o = c->opts; o->name; o++)
		if (o->flags & OPT_ALONE)
			fprintf(f, "%s%s%s --%s\n", *lead, pre, c->name, o->name);
}

static void usage_all(FILE *f)
{
	const char *lead = "usage: ";
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		usage_lines(f, &commands[i], &lead);
	fprintf(f, "%sspank-ebpf COMMAND --help\n", lead);
	fprintf(f, "%sspank-ebpf --help | --version\n", lead);
}

static void help_commands(unsigned internal)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if ((commands[i].flags & CMD_INTERNAL) == internal)
			printf("  %-13s %s\n", commands[i].name, commands[i].what);
}

static void help(void)
{
	usage_all(stdout);
	printf("\nCommands:\n");
	help_commands(0);
	printf("\nRun by Slurm, systemd and the plugin's timers, not by hand:\n");
	help_commands(CMD_INTERNAL);
	printf("\nOptions:\n"
	       "  -c, --config=FILE  plugstack file with the plugin's line (default %s)\n"
	       "  -h, --help         this help; after a command, that command's\n"
	       "  -V, --version      the version\n"
	       "\nstatus and reconcile: --node NAME is this node's Slurm NodeName (default\n"
	       "$SLURMD_NODENAME, else $SPANK_EBPF_NODE, else slurmd's own answer, else the\n"
	       "node slurmctld lists with this host's name as its NodeHostname); --squeue PATH\n"
	       "the squeue to ask slurmctld with (default %s).\n"
	       "\nExit status: 0 healthy / in line / valid; 1 anomalies / invalid / not written;\n"
	       "2 cannot tell, usage error, or not root. See spank-ebpf(8).\n",
	       DEFAULT_CONFIG, SQUEUE_PATH);
}

/* `spank-ebpf SUB --help`: its usage, summary and one line per option. */
static void help_command(const struct command *c)
{
	const char *lead = "usage: ";
	const struct option_spec *o;
	char opt[64];

	usage_lines(stdout, c, &lead);
	if (c->flags & CMD_INTERNAL)
		printf("Not for interactive use: %s.\n", c->what);
	else
		printf("%c%s.\n", toupper((unsigned char)c->what[0]), c->what + 1);
	printf("\nOptions:\n");
	for (o = c->opts; o->name; o++) {
		snprintf(opt, sizeof(opt), "--%s%s%s", o->name, o->arg ? "=" : "",
			 o->arg ? o->arg : "");
		printf("  %-18s %s\n", opt, o->what);
	}
	printf("  %-18s %s\n", "-h, --help", "this help");
	if (c->flags & CMD_CONFIG)
		printf("\nBefore the command, -c FILE names the plugstack file with the plugin's line\n"
		       "(default %s).\n", DEFAULT_CONFIG);
	printf("See spank-ebpf(8).\n");
}

/* help [COMMAND]: the whole help, or a command's. */
static int cmd_help(struct cmd *cmd)
{
	const struct command *c;
	const char *vals[1], *pos[1];
	int npos, rc;

	rc = parse_options(cmd, vals, pos, 1, &npos);
	if (rc)
		return rc;
	if (!npos) {
		help();
		return EXIT_OK;
	}
	c = find_command(pos[0]);
	if (!c)
		return usage_error(cmd, "unknown command \"%.40s\"", pos[0]);
	help_command(c);
	return EXIT_OK;
}

int usage_error(const struct cmd *cmd, const char *fmt, ...)
{
	const char *lead = "usage: ";
	va_list ap;

	fprintf(stderr, "spank-ebpf: %s%s", cmd && cmd->name ? cmd->name : "",
		cmd && cmd->name ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd && cmd->command) {
		usage_lines(stderr, cmd->command, &lead);
		fprintf(stderr, "Try 'spank-ebpf %s --help' for more information.\n", cmd->name);
	} else {
		usage_all(stderr);
		fprintf(stderr, "Try 'spank-ebpf --help' for more information.\n");
	}
	return EXIT_UNSURE;
}

int need_root(const struct cmd *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "spank-ebpf: %s must run as root: it reads the plugin's root-owned state and asks systemd and Slurm as the plugin does\n",
		cmd->name);
	return -1;
}

int load_config(struct cmd *cmd)
{
	char err[700];

	if (conffile_load(cmd->config_path, &cmd->cfg, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "spank-ebpf: %s: %s\n", cmd->name, err);
	return -1;
}

int prepare_slurm_command(struct cmd *cmd, const char *node, const char *squeue)
{
	if (node)
		cmd->ask.node = node;
	if (squeue && squeue[0] != '/')
		return usage_error(cmd, "--squeue needs an absolute path");
	if (squeue)
		cmd->ask.squeue = squeue;
	if (need_root(cmd) < 0 || load_config(cmd) < 0)
		return EXIT_UNSURE;
	cmd->ask.timeout = cmd->cfg.timeout;
	return 0;
}

int parse_options(struct cmd *cmd, const char *vals[], const char *pos[], int maxpos, int *npos)
{
	const struct option_spec *opts = cmd->command->opts;
	bool options = true;
	int i;

	*npos = 0;
	for (i = 0; i < cmd->argc; i++) {
		const char *a = cmd->argv[i], *eq;
		size_t k, len;

		if (options && !strcmp(a, "--")) {
			options = false;
			continue;
		}
		if (!options || a[0] != '-' || !strcmp(a, "-")) {
			if (*npos == maxpos)
				return usage_error(cmd, "unexpected argument \"%s\"", a);
			pos[(*npos)++] = a;
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
			return usage_error(cmd, "unknown option \"%s\"", a);
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (k = 0; opts[k].name; k++)
			if (strlen(opts[k].name) == len && !strncmp(opts[k].name, a + 2, len))
				break;
		if (!opts[k].name)
			return usage_error(cmd, "unknown option \"%.*s\"", (int)(len + 2), a);
		if (!opts[k].arg) {
			if (eq)
				return usage_error(cmd, "option --%s takes no value", opts[k].name);
			vals[k] = "1";
		} else if (eq) {
			vals[k] = eq + 1;
		} else if (i + 1 < cmd->argc) {
			vals[k] = cmd->argv[++i];
		} else {
			return usage_error(cmd, "option --%s needs a value", opts[k].name);
		}
		if (opts[k].arg && !vals[k][0])
			return usage_error(cmd, "option --%s needs a value", opts[k].name);
	}
	return 0;
}

/* Whether the command's arguments ask for its help: -h or --help before
 * "--", not as the value of an option that takes one ("--node -h"). */
static bool wants_help(const struct command *c, int argc, char **argv)
{
	const struct option_spec *o;
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return false;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return true;
		if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
			continue;
		for (o = c->opts; o->name; o++)
			if (o->arg && !strcmp(o->name, a + 2))
				i++; /* its value follows */
	}
	return false;
}

/* The node's Slurm name: slurmd's (a Prolog=/Epilog= program gets it),
 * else the site's setting (the timer's services read SPANK_EBPF_NODE
 * from /etc/default or /etc/sysconfig/spank-ebpf), else left to
 * slurmjobs_node(): asked of slurmd, then slurmctld, when needed. */
static void default_node(struct cmd *cmd)
{
	const char *env = getenv("SLURMD_NODENAME");

	if (!env || !env[0])
		env = getenv("SPANK_EBPF_NODE");
	cmd->ask.node = env && env[0] ? env : NULL;
}

static int cmd_run(struct cmd *cmd, const char *name, int argc, char **argv)
{
	const struct command *c = find_command(name);

	if (!c)
		return usage_error(NULL, "unknown command \"%s\"", name);
	if (wants_help(c, argc, argv)) {
		help_command(c);
		return EXIT_OK;
	}
	cmd->name = c->name;
	cmd->command = c;
	log_set_context("%s", cmd->name); /* prolog/epilog name their job */
	cmd->argc = argc;
	cmd->argv = argv;
	return c->run(cmd);
}

int main(int argc, char **argv)
{
	struct cmd cmd;
	int a = 1;

	memset(&cmd, 0, sizeof(cmd));
	cmd.config_path = DEFAULT_CONFIG;
	cmd.ask.squeue = SQUEUE_PATH;
	cmd.ask.slurm_conf = getenv("SLURM_CONF");
	default_node(&cmd);
	log_to_stderr(false);

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			help();
			return EXIT_OK;
		}
		if (!strcmp(argv[a], "-V") || !strcmp(argv[a], "--version")) {
			printf("spank-ebpf %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		}
		if (!strcmp(argv[a], "-c") || !strcmp(argv[a], "--config")) {
			if (++a == argc)
				return usage_error(NULL, "option %s needs a FILE", argv[a - 1]);
			cmd.config_path = argv[a];
		} else if (!strncmp(argv[a], "--config=", 9) && argv[a][9]) {
			cmd.config_path = argv[a] + 9;
		} else {
			return usage_error(NULL, "unknown option \"%s\"", argv[a]);
		}
	}
	if (a == argc) {
		/* Run by Slurm as Prolog=/Epilog=: a path, no command (a
		 * site's wrapper may still pass -c FILE). */
		const char *ctx = getenv("SLURM_SCRIPT_CONTEXT");

		if (ctx && !strcmp(ctx, "prolog_slurmd"))
			return cmd_run(&cmd, "prolog", 0, NULL);
		if (ctx && !strcmp(ctx, "epilog_slurmd"))
			return cmd_run(&cmd, "epilog", 0, NULL);
		if (ctx && !strcmp(ctx, "epilog_slurmctld"))
			return cmd_run(&cmd, "epilog-slurmctld", 0, NULL);
	}
	if (a == argc)
		return usage_error(NULL, "no command given");
	return cmd_run(&cmd, argv[a], argc - a - 1, argv + a + 1);
}
