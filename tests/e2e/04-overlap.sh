#!/bin/bash
# Scenario 4: two overlapping sbatch --ebpf jobs: state 0->1->2->1->0, one
# start before the first payload, no stop while the second runs, one stop
# after the last.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_start
scn_overlapping s4
cluster_finish
