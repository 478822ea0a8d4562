#!/bin/bash
# Scenario 2: one sbatch --ebpf job: one start, the state holds the job
# while it runs, one stop after, state empty.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_start
scn_sbatch_one s2
cluster_finish
