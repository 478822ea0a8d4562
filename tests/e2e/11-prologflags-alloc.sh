#!/bin/bash
# Scenario 11: scenarios 2, 4 and 7 again with PrologFlags=Alloc (the
# prolog runs at allocation, with the job's options).
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_setup
E2E_PROLOGFLAGS=Alloc cluster_start
like "slurmctld runs with PrologFlags=Alloc" "$(scontrol show config)" '^PrologFlags +=.*Alloc'
scn_sbatch_one s11-2
scn_overlapping s11-4
scn_epilog_without_prolog s11-7 yes
cluster_finish
