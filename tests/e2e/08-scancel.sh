#!/bin/bash
# Scenario 8: scancel of a running --ebpf job: the hold is released and the
# exporter stopped.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

reset_calls
m=$(log_mark)
j=$(submit -J s8 --ebpf "$PAYLOAD" s8 s8)
wait_started s8
is "running job holds the exporter" "$(state); $(unit_active)" "$(state_of "$j"); yes"
scancel "$j"
wait_job_done "$j"
is "job cancelled" "$(job_state "$j")" CANCELLED
is "payload did not finish" "$(test -e "$E2E_DIR/snap/s8.end.time" && echo finished || echo killed)" killed
like "epilog ran for it" "$(plugin_log_since "$m")" "$(hold_released_re "$j")"
is "one start, one stop, state empty, exporter inactive" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"
ok_if "node not drained" node_ok
cluster_finish
