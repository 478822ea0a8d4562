#!/bin/bash
# Extra: srun --ebpf inside a plain salloc (no --ebpf). The prolog sees the
# step's option, the epilog the job's (none): the epilog must still find
# the hold in the state file and release it.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

reset_calls
m=$(log_mark)
out=$(e2e_guard; timeout 60 salloc -J s15 srun --ebpf "$PAYLOAD" s15 2>&1)
like "salloc + srun --ebpf ran the payload" "$out" '^payload s15 done$'
j=$(snap s15.jobid)
wait_job_done "$j"
is "the step's prolog took the hold" "$(snap s15.start.state); $(snap s15.start.active)" "$(state_of "$j"); yes"
like "the job's epilog released it" "$(plugin_log_since "$m")" "$(hold_released_re "$j")"
is "one start, one stop, state empty" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"
cluster_finish
