/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cheapest SPANK plugin with a job prolog and epilog: both return at
 * once. Benchmarks only (bench/e2e.sh, variant "null"): what Slurm itself
 * spends per job once any plugin has these hooks (slurmd execs a
 * `slurmstepd spank prolog|epilog` process for each), to tell Slurm's
 * share from the plugin's. */
#include <slurm/spank.h>

SPANK_PLUGIN(spank_null, 1);

int slurm_spank_job_prolog(spank_t sp, int argc, char **argv)
{
	(void)sp;
	(void)argc;
	(void)argv;
	return 0;
}

int slurm_spank_job_epilog(spank_t sp, int argc, char **argv)
{
	(void)sp;
	(void)argc;
	(void)argv;
	return 0;
}
