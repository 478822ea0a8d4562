#!/bin/bash
# Scenario 7: an epilog without a prolog (salloc --ebpf that starts no step,
# released while an --ebpf batch job runs) leaves the exporter up for the
# running job.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
. "${srcdir:-.}/tests/e2e/cluster.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_setup
cluster_start
scn_epilog_without_prolog s7 no
cluster_finish
