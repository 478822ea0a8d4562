/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exporter SET: what the template unit spank-ebpf-exporter@.service runs
 * for a probe set. It reads the plugin's line (its sets=) and the sets
 * file, checks the set and its configs, and becomes ebpf_exporter with
 * them (execv: the same process, so systemd's Type=notify gets the
 * exporter's own READY=1, sent once its probes are attached):
 *
 *   <exporter> --config.dir=<config_dir> --config.names=<configs>
 *       --web.listen-address=fd://0 --config.strict --capabilities.keep=none
 *
 * It binds the set's listen= address itself first (a privileged port:
 * the unit gives it CAP_NET_BIND_SERVICE for that alone), drops that
 * capability, and hands the listening socket over as fd 3 with
 * LISTEN_PID and LISTEN_FDS, systemd's socket-passing protocol that
 * ebpf_exporter takes as fd://0. So the set's address is the unit's
 * before the exporter runs, or the unit fails saying who holds it.
 * A node where users may bind the port (net.ipv4.ip_unprivileged_port_start
 * at or below it) is refused.
 *
 * exporter --check SET (the unit's ExecStartPre, as root): the same
 * refusals, with the holder's pid and name, which the unit's own user
 * cannot see. Both refuse a set whose project config needs a newer
 * kernel than the node's (probekernel.h).
 *
 * --config.strict: a config whose probe cannot attach fails the unit
 * instead of running half-blind; --capabilities.keep=none: the exporter
 * drops every capability once attached. Needs no root: the unit runs it
 * as its own user, with only the capabilities loading needs. Any problem
 * is one line on standard error (the unit's journal) and exit status 1. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "listenaddr.h"
#include "probekernel.h"
#include "sets.h"
#include "spank-ebpf.h"

/* Whether users could bind the set's port before its unit: refused,
 * since then an instance could be kept from starting, or impersonated. */
static int exporter_port_privileged(const struct probe_set *ps)
{
	int start = listenaddr_unprivileged_start();

	if (start < 0) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: cannot read net.ipv4.ip_unprivileged_port_start: cannot tell whether users may bind port %u\n",
			ps->name, ps->port);
		return -1;
	}
	if ((unsigned int)start <= ps->port) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: port %u is not privileged on this node (net.ipv4.ip_unprivileged_port_start = %d): any user could bind %s first; set the sysctl above %u\n",
			ps->name, ps->port, start, ps->listen, ps->port);
		return -1;
	}
	return 0;
}

/* "cannot listen on ADDR: it is taken by uid U (name), pid P (comm)": the
 * line the plugin picks from the unit's journal when its start fails. */
static void exporter_taken(const struct probe_set *ps, int err)
{
	struct listen_holder h[4];
	char who[200];
	int n;

	if (err != EADDRINUSE) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: cannot listen on %s: %s\n", ps->name,
			ps->listen, strerror(err));
		return;
	}
	n = listenaddr_holders(&ps->addr, h, 4);
	if (n <= 0) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: cannot listen on %s: it is taken (by a socket that is not listening)\n",
			ps->name, ps->listen);
		return;
	}
	listenaddr_describe(&h[0], who, sizeof(who));
	fprintf(stderr, "spank-ebpf: exporter: set %s: cannot listen on %s: it is taken by %s\n", ps->name,
		ps->listen, who);
}

/* Whether cap is in this process's permitted set. */
static int exporter_has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d) < 0)
		return 0;
	return (d[cap / 32].permitted >> (cap % 32)) & 1;
}

/* A capability the exporter is not to have (CAP_NET_BIND_SERVICE, for
 * the bind alone; CAP_SYS_ADMIN, unless a config needs it): gone from the
 * ambient, effective, permitted and inheritable sets before it runs. */
static int exporter_drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	unsigned int bit = 1u << (cap % 32);
	int w = cap / 32;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0) < 0 && errno != EINVAL)
		return -1;
	if (syscall(SYS_capget, &hdr, d) < 0)
		return -1;
	d[w].effective &= ~bit;
	d[w].permitted &= ~bit;
	d[w].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, d) < 0)
		return -1;
	/* Checked, not assumed. */
	if (syscall(SYS_capget, &hdr, d) < 0 || (d[w].effective | d[w].permitted | d[w].inheritable) & bit)
		return -1;
	return 0;
}

/* The listening socket as fd 3, inherited by the exporter, and the
 * variables that say so (sd_listen_fds(3)). */
static int exporter_pass_socket(int fd)
{
	char pid[24];

	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			return -1;
		close(fd);
	}
	if (fcntl(3, F_SETFD, 0) < 0)
		return -1;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	unsetenv("LISTEN_FDNAMES");
	if (setenv("LISTEN_PID", pid, 1) < 0 || setenv("LISTEN_FDS", "1", 1) < 0)
		return -1;
	return 0;
}

/* CAP_SYS_ADMIN, which the unit gives every set, is kept only by a set
 * with a config on a module's functions (libbpf finds the module's BTF
 * only with it), and only until the exporter has attached
 * (--capabilities.keep=none). Such a set whose unit does not give it is
 * refused in words, not by libbpf's "failed to find kernel BTF type ID". */
static int exporter_sys_admin(const struct probe_set *ps)
{
	const char *module = NULL, *config = probekernel_module_btf(ps->configs, &module);

	if (!config) {
		if (exporter_drop_cap(CAP_SYS_ADMIN) == 0)
			return 0;
		fprintf(stderr, "spank-ebpf: exporter: set %s: cannot drop CAP_SYS_ADMIN, which none of its configs needs: %s\n",
			ps->name, strerror(errno));
		return -1;
	}
	if (!exporter_has_cap(CAP_SYS_ADMIN)) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: config %s attaches to the %s module's functions, which needs CAP_SYS_ADMIN until attached (libbpf reads a module's BTF only with it); the unit does not give it (CapabilityBoundingSet= and AmbientCapabilities= of spank-ebpf-exporter@.service)\n",
			ps->name, config, module);
		return -1;
	}
	fprintf(stderr, "spank-ebpf: exporter: set %s: keeps CAP_SYS_ADMIN until attached: config %s attaches to the %s module's functions\n",
		ps->name, config, module);
	return 0;
}

const struct option_spec exporter_options[] = {
	{ "check", NULL, "only check, as root, that the set's address is free (its ExecStartPre)", 0 },
	{ NULL, NULL, NULL, 0 },
};

int cmd_exporter(struct cmd *cmd)
{
	static struct sets sets;
	static char dir[SETS_PATH_MAX + 20], names[sizeof(sets.set[0].configs) + 20];
	struct utsname uts;
	const char **vals = cmd->opt, *pos[1] = { cmd->operand };
	char err[700];
	char *argv[8];
	int i, fd;

	if (!cmd->cfg.sets[0]) {
		fprintf(stderr, "spank-ebpf: exporter: the plugin's line in \"%s\" has no sets=: no probe set to run\n",
			cmd->config_path);
		return EXIT_ANOMALY;
	}
	if (sets_load(cmd->cfg.sets, &sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: exporter: %s\n", err);
		return EXIT_ANOMALY;
	}
	i = sets_find(&sets, pos[0], strlen(pos[0]));
	if (i < 0) {
		char allowed[400];

		sets_allowed(&sets, allowed, sizeof(allowed));
		fprintf(stderr, "spank-ebpf: exporter: unknown probe set \"%.40s\"; declared in \"%s\": %s\n",
			pos[0], cmd->cfg.sets, allowed);
		return EXIT_ANOMALY;
	}
	/* Only this set's configs: another set's missing one is not ours. */
	sets.n = 1;
	sets.set[0] = sets.set[i];
	if (sets_check_configs(&sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: exporter: %s\n", err);
		return EXIT_ANOMALY;
	}
	/* Refused here in words an admin reads, not by libbpf (or not at
	 * all: a config that loads and records nothing). */
	if (uname(&uts) == 0 &&
	    probekernel_check(sets.set[0].configs, uts.release, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: %s\n", sets.set[0].name, err);
		return EXIT_ANOMALY;
	}
	if (exporter_port_privileged(&sets.set[0]) < 0)
		return EXIT_ANOMALY;
	fd = listenaddr_listen(&sets.set[0].addr);
	if (fd < 0) {
		exporter_taken(&sets.set[0], -fd);
		return EXIT_ANOMALY;
	}
	if (vals[0]) { /* --check: free now; the unit's own bind decides */
		close(fd);
		return EXIT_OK;
	}
	if (exporter_drop_cap(CAP_NET_BIND_SERVICE) < 0 || exporter_pass_socket(fd) < 0) {
		fprintf(stderr, "spank-ebpf: exporter: set %s: cannot hand %s over without CAP_NET_BIND_SERVICE: %s\n",
			sets.set[0].name, sets.set[0].listen, strerror(errno));
		return EXIT_ANOMALY;
	}
	if (exporter_sys_admin(&sets.set[0]) < 0)
		return EXIT_ANOMALY;
	snprintf(dir, sizeof(dir), "--config.dir=%s", sets.config_dir);
	snprintf(names, sizeof(names), "--config.names=%s", sets.set[0].configs);
	argv[0] = sets.exporter;
	argv[1] = dir;
	argv[2] = names;
	argv[3] = "--web.listen-address=fd://0";
	argv[4] = "--config.strict";
	argv[5] = "--capabilities.keep=none";
	argv[6] = NULL;
	fprintf(stderr, "spank-ebpf: exporter: set %s: %s bound; %s %s %s %s %s %s\n", sets.set[0].name,
		sets.set[0].listen, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]);
	fflush(stderr);
	execv(argv[0], argv);
	fprintf(stderr, "spank-ebpf: exporter: cannot run \"%s\": %s\n", argv[0], strerror(errno));
	return EXIT_ANOMALY;
}
