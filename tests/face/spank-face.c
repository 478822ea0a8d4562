/* The plugin's SPANK face, run directly: loads SO as slurmstepd does
 * (dlopen, then the hook's symbol) and calls one hook once, with the
 * caller's environment (the test sets the option's variable, or not).
 *
 *   spank-face SO prolog|epilog JOB [PLUGSTACK-ARGS...]
 *
 * The plugin's log lines go to stderr ("info: spank_ebpf: ..."). Exit
 * status: the hook's return value (the plugin always returns 0), 2 on a
 * usage error, 1 when SO or the hook cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "spank-stub.h"

typedef int (*hook_fn)(spank_t, int, char **);

int main(int argc, char **argv)
{
	const char *sym;
	hook_fn hook;
	void *so;

	if (argc < 4 || (strcmp(argv[2], "prolog") && strcmp(argv[2], "epilog"))) {
		fprintf(stderr, "usage: %s SO prolog|epilog JOB [ARGS...]\n", argv[0]);
		return 2;
	}
	sym = strcmp(argv[2], "prolog") ? "slurm_spank_job_epilog" : "slurm_spank_job_prolog";
	so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	hook = (hook_fn)dlsym(so, sym);
	if (!hook) {
		fprintf(stderr, "dlsym %s: %s\n", sym, dlerror());
		return 1;
	}
	spank_stub_job = (uint32_t)strtoul(argv[3], NULL, 10);
	spank_stub_verbose = 1;
	return hook(NULL, argc - 4, argv + 4);
}
