#!/bin/bash
# Scenario 7: an epilog without a prolog (salloc --ebpf that starts no step,
# released while an --ebpf batch job runs) leaves the exporter up for the
# running job.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_start
scn_epilog_without_prolog s7 no
cluster_finish
