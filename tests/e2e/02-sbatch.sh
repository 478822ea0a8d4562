#!/bin/bash
# Scenario 2: one sbatch --ebpf job: one start, the state holds the job
# while it runs, one stop after, state empty.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
. "${srcdir:-.}/tests/e2e/cluster.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_setup
cluster_start
scn_sbatch_one s2
cluster_finish
