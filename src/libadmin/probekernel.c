/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "probekernel.h"

/* probes/README.md, "Building": what each config needs of the kernel. */
static const struct probekernel_need {
	const char *config;
	int major, minor;
	const char *why;
	const char *module; /* its programs attach to this module's functions */
} probekernel_needs[] = {
	{ "spank-io", 5, 11, "the block tracepoints it reads, as they are from 5.11", NULL },
	{ "spank-sched", 5, 12, "task storage in tracing programs, BPF compare-and-swap", NULL },
	{ "spank-sched-detail", 5, 11, "task storage in tracing programs", NULL },
	{ "spank-net", 5, 11, "the kernel the project's configs are built and verified for", NULL },
	{ "spank-oom", 5, 11, "the kernel the project's configs are built and verified for", NULL },
	{ "spank-fs-nfs", 6, 1, "fentry/fexit programs on the nfs module's functions, bpf_loop (and the nfs and sunrpc modules loaded)", "nfs" },
	{ "spank-fs", 6, 1, "fentry/fexit programs, bpf_loop and hash maps allocated as they fill, in tracing programs", NULL },
};

int probekernel_parse(const char *release, int *major, int *minor)
{
	char dot;

	if (sscanf(release, "%d%c%d", major, &dot, minor) != 3 || dot != '.' || *major < 0 ||
	    *minor < 0)
		return -1;
	return 0;
}

static const struct probekernel_need *probekernel_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(probekernel_needs) / sizeof(probekernel_needs[0]); i++)
		if (strlen(probekernel_needs[i].config) == len &&
		    !strncmp(probekernel_needs[i].config, name, len))
			return &probekernel_needs[i];
	return NULL;
}

int probekernel_check(const char *configs, const char *release, char *err, size_t errlen)
{
	const struct probekernel_need *need;
	const char *p = configs;
	int major, minor;
	size_t len;

	if (probekernel_parse(release, &major, &minor) < 0)
		return 0;
	while (*p) {
		len = strcspn(p, ",");
		need = probekernel_find(p, len);
		if (need && (major < need->major || (major == need->major && minor < need->minor))) {
			snprintf(err, errlen,
				 "config %s cannot run on this node's kernel %s: it needs Linux %d.%d or newer (%s)",
				 need->config, release, need->major, need->minor, need->why);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

const char *probekernel_module_btf(const char *configs, const char **module)
{
	const struct probekernel_need *need;
	const char *p = configs;
	size_t len;

	while (*p) {
		len = strcspn(p, ",");
		need = probekernel_find(p, len);
		if (need && need->module) {
			*module = need->module;
			return need->config;
		}
		p += len + (p[len] == ',');
	}
	return NULL;
}
