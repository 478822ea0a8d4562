/* The plugin's SPANK face, run directly: loads SO as slurmstepd does
 * (dlopen, then the hook's symbol) and calls one hook once, with the
 * caller's environment (the test sets the option's variable, or not).
 *
 *   spank-face SO prolog|epilog JOB [PLUGSTACK-ARGS...]
 *   spank-face SO init:remote|init:local|init:allocator|init:slurmd JOB [ARGS...]
 *
 * init:CONTEXT calls slurm_spank_init with spank_context() answering
 * CONTEXT (slurmstepd's is remote). The hook's call is bracketed by two
 * failing write(-1, "spank-face: hook begin|end") calls, so that a tracer
 * (strace, tests/no-ebpf-syscalls.sh) can tell the plugin's syscalls from
 * the loader's. The plugin's log lines go to stderr ("info: spank_ebpf:
 * ..."). Exit status: the hook's return value (the plugin always returns
 * 0), 2 on a usage error, 1 when SO or the hook cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "spank-stub.h"

typedef int (*hook_fn)(spank_t, int, char **);

static const struct {
	const char *name, *sym;
	int ctx;
} face_hooks[] = {
	{ "prolog", "slurm_spank_job_prolog", S_CTX_JOB_SCRIPT },
	{ "epilog", "slurm_spank_job_epilog", S_CTX_JOB_SCRIPT },
	{ "init:remote", "slurm_spank_init", S_CTX_REMOTE },
	{ "init:local", "slurm_spank_init", S_CTX_LOCAL },
	{ "init:allocator", "slurm_spank_init", S_CTX_ALLOCATOR },
	{ "init:slurmd", "slurm_spank_init", S_CTX_SLURMD },
};

/* A syscall strace shows and nothing else does: it fails with EBADF. */
static void face_mark(const char *what)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "spank-face: hook %s", what);

	if (write(-1, line, (size_t)n) < 0)
		return;
}

int main(int argc, char **argv)
{
	size_t i, n = sizeof(face_hooks) / sizeof(face_hooks[0]);
	hook_fn hook;
	void *so;
	int rc;

	for (i = 0; argc >= 4 && i < n; i++)
		if (!strcmp(argv[2], face_hooks[i].name))
			break;
	if (argc < 4 || i == n) {
		fprintf(stderr, "usage: %s SO prolog|epilog|init:remote|init:local|init:allocator|init:slurmd JOB [ARGS...]\n",
			argv[0]);
		return 2;
	}
	so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	hook = (hook_fn)dlsym(so, face_hooks[i].sym);
	if (!hook) {
		fprintf(stderr, "dlsym %s: %s\n", face_hooks[i].sym, dlerror());
		return 1;
	}
	spank_stub_job = (uint32_t)strtoul(argv[3], NULL, 10);
	spank_stub_context = face_hooks[i].ctx;
	spank_stub_verbose = 1;
	face_mark("begin");
	rc = hook(NULL, argc - 4, argv + 4);
	face_mark("end");
	return rc;
}
