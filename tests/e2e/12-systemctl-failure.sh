#!/bin/bash
# Scenario 12: systemctl fails, then hangs past timeout=: the job still runs
# to completion, the node is not drained, the slurmd log names the unit and
# the cause.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_start timeout=2
scn_systemctl_failure s12
E2E_PLUGIN_ERRORS=expected
cluster_finish
