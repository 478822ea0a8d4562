#!/bin/bash
# Scenario 14: the plugin declared required instead of optional: scenarios
# 2 and 12 still hold (the plugin never fails a hook, so nothing drains).
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_setup
E2E_CONTROL=required cluster_start timeout=2
like "plugstack line says required" "$(cat "$E2E_DIR"/etc/plugstack.conf.d/ebpf.conf)" '^required '
scn_sbatch_one s14-2
scn_systemctl_failure s14-12
E2E_PLUGIN_ERRORS=expected
cluster_finish
