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
#include "sets.h"
#include "spank-ebpf.h"

#ifndef DEFAULT_CONFIG
#define DEFAULT_CONFIG "/etc/slurm/plugstack.conf.d/spank_ebpf.conf"
#endif
#ifndef SQUEUE_PATH
#define SQUEUE_PATH "/usr/bin/squeue"
#endif

static int cmd_help(struct cmd *cmd);

const struct option_spec no_options[] = { { NULL, NULL, NULL, 0 } };

/* The subcommands, in the order --help lists them: the admin's first, then
 * those Slurm, systemd and the plugin's timers run; each one's options are
 * in its own table (struct option_spec). The flags say what the prologue
 * does before the command's own work (spank-ebpf.h). */
static const struct command commands[] = {
	{ "status", cmd_status, status_options, NULL, NULL,
	  CMD_CONFIG | CMD_ROOT | CMD_LOAD | CMD_SLURM,
	  "the node's holds, the unit, the jobs Slurm still runs here" },
	{ "report", cmd_report, report_options, "JOBID", NULL, CMD_CONFIG,
	  "a job's probe figures: on its node now, or from Prometheus" },
	{ "check-config", cmd_check_config, check_config_options, "FILE|-",
	  "which file? (FILE, or - for standard input)", 0,
	  "validate the plugin's plugstack line, or a probe sets file" },
	{ "metrics", cmd_metrics, metrics_options, NULL, NULL, CMD_CONFIG | CMD_ROOT | CMD_LOAD,
	  "the node's counters for node_exporter's textfile collector" },
	{ "reconcile", cmd_reconcile, reconcile_options, NULL, NULL,
	  CMD_CONFIG | CMD_ROOT | CMD_LOAD | CMD_SLURM,
	  "drop holds of jobs Slurm says are gone; bring units in line" },
	{ "top", cmd_top, top_options, NULL, NULL, CMD_CONFIG | CMD_LOAD | CMD_SLURM,
	  "running jobs ranked by their probes' rates, live, from Prometheus" },
	{ "summary", cmd_summary, summary_options, "JOBID", "which job?", CMD_CONFIG,
	  "keep an ended job's Prometheus figures in its AdminComment" },
	{ "help", cmd_help, no_options, "[COMMAND]", NULL, 0,
	  "this help, or a command's (as COMMAND --help)" },
	{ "prolog", cmd_hook, no_options, NULL, NULL,
	  CMD_CONFIG | CMD_BY_SLURM | CMD_ROOT | CMD_FAIL_OK,
	  "take the job's hold (Prolog=, for PrologFlags=RunInJob)" },
	{ "epilog", cmd_hook, no_options, NULL, NULL,
	  CMD_CONFIG | CMD_BY_SLURM | CMD_ROOT | CMD_FAIL_OK,
	  "release the job's hold (Epilog=)" },
	{ "epilog-slurmctld", cmd_summary, summary_options, NULL, NULL, CMD_CONFIG | CMD_BY_SLURM,
	  "keep the job's summary at its end (EpilogSlurmctld=)" },
	{ "exporter", cmd_exporter, exporter_options, "SET", "which probe set?",
	  CMD_CONFIG | CMD_BY_SYSTEMD | CMD_LOAD | CMD_FAIL_ANOMALY,
	  "become ebpf_exporter for SET (spank-ebpf-exporter@.service)" },
	{ "admit", cmd_admit, no_options, "SET", "which probe set?",
	  CMD_CONFIG | CMD_BY_SYSTEMD | CMD_ROOT | CMD_LOAD | CMD_SET_NAME,
	  "put SET's jobs in its exporter's filter (ExecStartPost=)" },
	{ "linger-end", cmd_linger_end, linger_end_options, "PLUGSTACK-ARGS...", NULL,
	  CMD_BY_TIMER | CMD_OWN_ARGS,
	  "end a linger window: stop its unit if no job holds it" },
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

/* Every line of the help and the usage fits in HELP_WIDTH columns: a
 * usage line goes on under the command's name (USAGE_INDENT), an option's
 * or a command's description under its first word (HELP_INDENT). A site's
 * longer default paths may pass it. */
#define HELP_WIDTH 80
#define USAGE_INDENT 18
#define HELP_INDENT 21

/* word after the others on a usage line, at *col: on the next line if it
 * would pass HELP_WIDTH. */
static void usage_word(FILE *f, int *col, const char *word)
{
	int len = (int)strlen(word);

	if (*col + 1 + len > HELP_WIDTH) {
		fprintf(f, "\n%*s", USAGE_INDENT, "");
		*col = USAGE_INDENT;
	} else {
		fputc(' ', f);
		(*col)++;
	}
	fputs(word, f);
	*col += len;
}

/* text from column col on, its words wrapped at HELP_WIDTH under
 * indent; ends the line. */
static void wrap(FILE *f, int col, int indent, const char *text)
{
	bool first = true; /* the line's first word */

	while (*text) {
		int len = (int)strcspn(text, " ");

		if (!first && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			first = true;
		}
		if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", len, text);
		col += len;
		first = false;
		text += len;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

/* A command's usage lines, each after lead ("usage: " or its width of
 * blanks): the options in brackets, then a line per OPT_ALONE form. */
static void usage_lines(FILE *f, const struct command *c, const char **lead)
{
	const char *pre = c->flags & CMD_CONFIG ? "spank-ebpf [-c FILE] " : "spank-ebpf ";
	const struct option_spec *o;
	char word[80];
	int col;

	col = fprintf(f, "%s%s%s", *lead, pre, c->name);
	*lead = "       ";
	for (o = c->opts; o->name; o++) {
		if (o->flags & OPT_ALONE)
			continue;
		snprintf(word, sizeof(word), "[--%s%s%s]", o->name, o->arg ? "=" : "",
			 o->arg ? o->arg : "");
		usage_word(f, &col, word);
	}
	if (c->operands)
		usage_word(f, &col, c->operands);
	fputc('\n', f);
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

/* A line of --help's lists: "  name  what", what wrapped. */
static void help_item(const char *name, const char *what)
{
	wrap(stdout, printf("  %-17s  ", name), HELP_INDENT, what);
}

/* The commands under heading: the admin's (by 0), or those Slurm, systemd
 * or the plugin's timers run (by: CMD_BY_SLURM...), then for systemd the
 * forms of the admin's commands its units run ("report --peer":
 * OPT_BY_SYSTEMD). */
static void help_commands(const char *heading, unsigned by)
{
	const struct option_spec *o;
	char form[64];
	size_t i;

	printf("\n%s\n", heading);
	for (i = 0; i < NCOMMANDS; i++)
		if ((commands[i].flags & CMD_INTERNAL) == by)
			help_item(commands[i].name, commands[i].what);
	for (i = 0; by == CMD_BY_SYSTEMD && i < NCOMMANDS; i++)
		for (o = commands[i].opts; o->name; o++)
			if (o->flags & OPT_BY_SYSTEMD) {
				snprintf(form, sizeof(form), "%s --%s", commands[i].name, o->name);
				help_item(form, o->what);
			}
}

/* -c's line in an Options: list, with its default under it. */
static void help_config(void)
{
	printf("  -c, --config=FILE  the plugstack file with the plugin's line\n"
	       "    (default %s)\n", DEFAULT_CONFIG);
}

static void help(void)
{
	printf("usage: spank-ebpf [-c FILE] COMMAND [OPTION...] [ARG...]\n"
	       "       spank-ebpf COMMAND --help\n"
	       "       spank-ebpf --help | --version\n");
	help_commands("Commands:", 0);
	help_commands("Run by Slurm, not by hand:", CMD_BY_SLURM);
	help_commands("Run by systemd, from the units the packages install:", CMD_BY_SYSTEMD);
	help_commands("Run by the plugin's timers:", CMD_BY_TIMER);
	printf("\nOptions, before or after the command:\n");
	help_config();
	printf("  -h, --help         this help; after a command, that command's\n"
	       "  -V, --version      the version\n"
	       "\nstatus and reconcile: --node NAME is this node's Slurm NodeName (default\n"
	       "$SLURMD_NODENAME, else $SPANK_EBPF_NODE, else slurmd's own answer, else the\n"
	       "node slurmctld lists with this host's name as its NodeHostname);\n"
	       "--squeue PATH the squeue to ask slurmctld with (default %s).\n"
	       "\nExit status: 0 healthy / in line / valid; 1 anomalies / invalid / not written;\n"
	       "2 cannot tell, usage error, or not root. See spank-ebpf(8).\n",
	       SQUEUE_PATH);
}

/* `spank-ebpf SUB --help`: its usage, summary and one line per option. */
static void help_command(const struct command *c)
{
	const char *lead = "usage: ";
	const struct option_spec *o;
	char opt[64], what[200];

	usage_lines(stdout, c, &lead);
	if (c->flags & CMD_INTERNAL)
		snprintf(what, sizeof(what), "Run by %s, not by hand: %s.",
			 c->flags & CMD_BY_SLURM ? "Slurm" : c->flags & CMD_BY_SYSTEMD ? "systemd" :
			 "the plugin's timers", c->what);
	else
		snprintf(what, sizeof(what), "%c%s.", toupper((unsigned char)c->what[0]), c->what + 1);
	wrap(stdout, 0, 0, what);
	printf("\nOptions:\n");
	for (o = c->opts; o->name; o++) {
		if (OPT_LETTER_OF(o))
			snprintf(opt, sizeof(opt), "-%c, --%s%s%s", OPT_LETTER_OF(o), o->name, o->arg ? "=" : "",
				 o->arg ? o->arg : "");
		else
			snprintf(opt, sizeof(opt), "--%s%s%s", o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
		wrap(stdout, printf("  %-18s ", opt), HELP_INDENT, o->what);
	}
	if (c->flags & CMD_CONFIG)
		help_config();
	printf("  %-18s %s\n", "-h, --help", "this help");
	printf("%sSee spank-ebpf(8).\n",
	       c->flags & CMD_CONFIG ? "\n-c FILE may come before the command too. " : "");
}

/* help [COMMAND]: the whole help, or a command's. */
static int cmd_help(struct cmd *cmd)
{
	const struct command *c;

	if (!cmd->operand) {
		help();
		return EXIT_OK;
	}
	c = find_command(cmd->operand);
	if (!c)
		return usage_error(cmd, "unknown command \"%.40s\"", cmd->operand);
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
		if (strncmp(a, "--", 2) != 0) {
			/* A short form: -d VALUE or -dVALUE, -n 3, -j. */
			for (k = 0; opts[k].name; k++)
				if (OPT_LETTER_OF(&opts[k]) && a[1] == OPT_LETTER_OF(&opts[k]))
					break;
			if (!opts[k].name || (a[2] && !opts[k].arg))
				return usage_error(cmd, "unknown option \"%s\"", a);
			if (!opts[k].arg)
				vals[k] = "1";
			else if (a[2])
				vals[k] = a + 2;
			else if (i + 1 < cmd->argc)
				vals[k] = cmd->argv[++i];
			else
				return usage_error(cmd, "option -%c needs a value", OPT_LETTER_OF(&opts[k]));
			if (opts[k].arg && !vals[k][0])
				return usage_error(cmd, "option -%c needs a value", OPT_LETTER_OF(&opts[k]));
			continue;
		}
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

/* What an option before or after the command asks. */
enum global { GLOBAL_NONE, GLOBAL_CONFIG, GLOBAL_HELP, GLOBAL_VERSION, GLOBAL_ERROR };

/* argv[*i] when it is one of the options taken before or after the
 * command (-c FILE, --config=FILE, -h, -V): -c's FILE into
 * cmd->config_path, *i on it. GLOBAL_NONE for any other argument;
 * GLOBAL_ERROR after usage_error(ctx) (NULL: before the command). */
static enum global global_option(struct cmd *cmd, const struct cmd *ctx, int argc, char **argv,
				 int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		return GLOBAL_HELP;
	if (!strcmp(a, "-V") || !strcmp(a, "--version"))
		return GLOBAL_VERSION;
	if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
		if (++*i == argc) {
			usage_error(ctx, "option %s needs a FILE", a);
			return GLOBAL_ERROR;
		}
		cmd->config_path = argv[*i];
		return GLOBAL_CONFIG;
	}
	if (!strcmp(a, "--config=")) {
		usage_error(ctx, "option --config needs a FILE");
		return GLOBAL_ERROR;
	}
	if (!strncmp(a, "--config=", 9)) {
		cmd->config_path = a + 9;
		return GLOBAL_CONFIG;
	}
	return GLOBAL_NONE;
}

/* The options before or after the command among its arguments, up to
 * "--": -c FILE taken out of cmd->argv (the command parses the rest);
 * the first -h or -V returned, to be answered instead of running it. Not
 * the value of an option that takes one ("--node -h" names a node). */
static enum global command_globals(struct cmd *cmd)
{
	const struct option_spec *o;
	enum global asked = GLOBAL_NONE, g;
	int i, n = 0, from;

	for (i = 0; i < cmd->argc; i++) {
		const char *a = cmd->argv[i];

		if (!strcmp(a, "--")) {
			while (i < cmd->argc)
				cmd->argv[n++] = cmd->argv[i++];
			break;
		}
		from = i;
		g = global_option(cmd, cmd, cmd->argc, cmd->argv, &i);
		if (g == GLOBAL_ERROR)
			return g;
		if ((g == GLOBAL_HELP || g == GLOBAL_VERSION) && asked == GLOBAL_NONE)
			asked = g;
		if (g != GLOBAL_NONE)
			continue;
		cmd->argv[n++] = cmd->argv[from];
		if (a[0] == '-' && a[1] && a[1] != '-' && !a[2]) {
			for (o = cmd->command->opts; o->name; o++)
				if (o->arg && OPT_LETTER_OF(o) == a[1] && i + 1 < cmd->argc)
					cmd->argv[n++] = cmd->argv[++i]; /* its value ("-u -h") */
			continue;
		}
		if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
			continue;
		for (o = cmd->command->opts; o->name; o++)
			if (o->arg && !strcmp(o->name, a + 2) && i + 1 < cmd->argc)
				cmd->argv[n++] = cmd->argv[++i]; /* its value */
	}
	cmd->argc = n;
	return asked;
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

/* The value of the command's option named name, NULL when not given. */
static const char *option_value(const struct cmd *cmd, const char *name)
{
	const struct option_spec *o;

	for (o = cmd->command->opts; o->name; o++)
		if (!strcmp(o->name, name))
			return cmd->opt[o - cmd->command->opts];
	return NULL;
}

/* The exit status of a command refused by its prologue (not root, no
 * usable line): 2 unless its row says otherwise. */
static int prologue_failed(const struct command *c)
{
	return c->flags & CMD_FAIL_OK ? EXIT_OK : c->flags & CMD_FAIL_ANOMALY ? EXIT_ANOMALY : EXIT_UNSURE;
}

/* What every command needs before its own work, as its row says: its
 * options and operand parsed (cmd->opt, cmd->operand), --node and
 * --squeue for those asking Slurm, root, the plugin's line loaded.
 * Returns true when the command may run; else *status is its exit status
 * (said on stderr). */
static bool prologue(struct cmd *cmd, int *status)
{
	const struct command *c = cmd->command;
	const char *pos[1] = { NULL }, *squeue;
	int npos, i;

	for (i = 0; c->opts[i].name; i++)
		if (i == CMD_OPTS_MAX) { /* a row too many for cmd->opt */
			fprintf(stderr, "spank-ebpf: %s: more options than CMD_OPTS_MAX\n", cmd->name);
			*status = EXIT_UNSURE;
			return false;
		}
	if (!(c->flags & CMD_OWN_ARGS)) {
		*status = parse_options(cmd, cmd->opt, pos, c->operands ? 1 : 0, &npos);
		if (*status)
			return false;
		cmd->operand = pos[0];
		if (c->which && (npos != 1 || ((c->flags & CMD_SET_NAME) &&
						!sets_valid_name(pos[0], strlen(pos[0]))))) {
			*status = usage_error(cmd, "%s", c->which);
			return false;
		}
	}
	if (c->flags & CMD_SLURM) {
		if (option_value(cmd, "node"))
			cmd->ask.node = option_value(cmd, "node");
		squeue = option_value(cmd, "squeue");
		if (squeue && squeue[0] != '/') {
			*status = usage_error(cmd, "--squeue needs an absolute path");
			return false;
		}
		if (squeue)
			cmd->ask.squeue = squeue;
	}
	if (((c->flags & CMD_ROOT) && need_root(cmd) < 0) ||
	    ((c->flags & CMD_LOAD) && load_config(cmd) < 0)) {
		*status = prologue_failed(c);
		return false;
	}
	if (c->flags & CMD_SLURM)
		cmd->ask.timeout = cmd->cfg.timeout;
	return true;
}

static int cmd_run(struct cmd *cmd, const char *name, int argc, char **argv)
{
	const struct command *c = find_command(name);
	int status;

	if (!c)
		return usage_error(NULL, "unknown command \"%s\"", name);
	cmd->name = c->name;
	cmd->command = c;
	cmd->argc = argc;
	cmd->argv = argv;
	switch (command_globals(cmd)) {
	case GLOBAL_ERROR:
		return EXIT_UNSURE;
	case GLOBAL_HELP:
		help_command(c);
		return EXIT_OK;
	case GLOBAL_VERSION:
		printf("spank-ebpf %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	default:
		break;
	}
	log_set_context("%s", cmd->name); /* prolog/epilog name their job */
	if (!prologue(cmd, &status))
		return status;
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

	/* The options before the command (the same are taken after it). */
	for (; a < argc && argv[a][0] == '-'; a++) {
		switch (global_option(&cmd, NULL, argc, argv, &a)) {
		case GLOBAL_HELP:
			help();
			return EXIT_OK;
		case GLOBAL_VERSION:
			printf("spank-ebpf %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		case GLOBAL_ERROR:
			return EXIT_UNSURE;
		case GLOBAL_NONE:
			return usage_error(NULL, "unknown option \"%s\"", argv[a]);
		default:
			break;
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
