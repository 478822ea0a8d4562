/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank-ebpf: see, repair and measure the exporter's holds on a node.
 * The dispatcher: global options, then one subcommand. */
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

static const char usage_text[] =
	"usage: spank-ebpf [-c FILE] status [--json] [--node NAME] [--squeue PATH]\n"
	"       spank-ebpf [-c FILE] reconcile [--dry-run] [--node NAME] [--squeue PATH]\n"
	"       spank-ebpf [-c FILE] metrics [--textfile DIR]\n"
	"       spank-ebpf check-config [--sets] FILE|-\n"
	"       spank-ebpf [-c FILE] prolog|epilog   (as Slurm's Prolog=/Epilog=: no arguments)\n"
	"       spank-ebpf linger-end [--set=SET] PLUGSTACK-ARGS...   (run by the plugin's linger timer)\n"
	"       spank-ebpf [-c FILE] exporter [--check] SET   (run by spank-ebpf-exporter@SET.service)\n"
	"       spank-ebpf [-c FILE] admit SET   (its ExecStartPost)\n"
	"       spank-ebpf [-c FILE] report [--json] [--socket=PATH] JOBID\n"
	"       spank-ebpf [-c FILE] report --peer   (run by spank-ebpf-report@.service)\n"
	"       spank-ebpf --help | --version\n";

static const struct {
	const char *name;
	int (*run)(struct cmd *);
	const char *what;
} commands[] = {
	{ "status", cmd_status, "the node's holds, the unit, the jobs Slurm still runs here" },
	{ "reconcile", cmd_reconcile, "drop the holds of jobs Slurm says are gone; bring the unit in line" },
	{ "metrics", cmd_metrics, "Prometheus text format, for node_exporter's textfile collector" },
	{ "check-config", cmd_check_config, "validate a plugstack file's spank_ebpf.so line as the plugin does" },
	{ "prolog", cmd_hook, "take the job's hold (Prolog=, for PrologFlags=RunInJob)" },
	{ "epilog", cmd_hook, "release the job's hold (Epilog=)" },
	{ "linger-end", cmd_linger_end, "end a linger window (run by the timer the plugin arms)" },
	{ "exporter", cmd_exporter, "become ebpf_exporter for a probe set (run by spank-ebpf-exporter@.service)" },
	{ "report", cmd_report, "a job's probe figures now, from its sets' exporters" },
	{ "admit", cmd_admit, "put the set's jobs in its started exporter's job filter (its ExecStartPost)" },
};

static void help(void)
{
	size_t i;

	fputs(usage_text, stdout);
	printf("\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-13s %s\n", commands[i].name, commands[i].what);
	printf("\nOptions:\n"
	       "  -c, --config FILE  plugstack file with the plugin's line (default %s)\n"
	       "  --node NAME        this node's Slurm NodeName (default $SLURMD_NODENAME, else\n"
	       "                     $SPANK_EBPF_NODE, else slurmd's own answer, else the node\n"
	       "                     slurmctld lists with this host's name as its NodeHostname)\n"
	       "  --squeue PATH      squeue to ask slurmctld with (default %s)\n"
	       "\nExit status: 0 healthy / in line / valid; 1 anomalies / invalid / not written;\n"
	       "2 cannot tell, usage error, or not root. See spank-ebpf(8).\n",
	       DEFAULT_CONFIG, SQUEUE_PATH);
}

int usage_error(const struct cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "spank-ebpf: %s%s", cmd && cmd->name ? cmd->name : "",
		cmd && cmd->name ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage_text);
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

int parse_options(struct cmd *cmd, const char *const opts[], const char *vals[],
		  const char *pos[], int maxpos, int *npos)
{
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
		for (k = 0; opts[k]; k++) {
			size_t olen = strcspn(opts[k], "=");

			if (olen == len && !strncmp(opts[k], a + 2, len))
				break;
		}
		if (!opts[k])
			return usage_error(cmd, "unknown option \"%.*s\"", (int)(len + 2), a);
		if (!strchr(opts[k], '=')) {
			if (eq)
				return usage_error(cmd, "option --%s takes no value", opts[k]);
			vals[k] = "1";
		} else if (eq) {
			vals[k] = eq + 1;
		} else if (i + 1 < cmd->argc) {
			vals[k] = cmd->argv[++i];
		} else {
			return usage_error(cmd, "option --%.*s needs a value", (int)len, a + 2);
		}
		if (strchr(opts[k], '=') && !vals[k][0])
			return usage_error(cmd, "option --%.*s needs a value", (int)len, a + 2);
	}
	return 0;
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
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(name, commands[i].name) != 0)
			continue;
		cmd->name = commands[i].name;
		log_set_context("%s", cmd->name); /* prolog/epilog name their job */
		cmd->argc = argc;
		cmd->argv = argv;
		return commands[i].run(cmd);
	}
	return usage_error(NULL, "unknown command \"%s\"", name);
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
	}
	if (a == argc)
		return usage_error(NULL, "no command given");
	return cmd_run(&cmd, argv[a], argc - a - 1, argv + a + 1);
}
