#!/bin/bash
# Scenario 6: mode=always: jobs without the option start and stop the
# exporter.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start mode=always

like "slurmd log: mode=always" "$(cat "$SLURMD_LOG")" "spank_ebpf: slurmd: version [0-9.]+ loaded: mode=always "
reset_calls
j=$(submit -J s6 "$PAYLOAD" s6 s6)
wait_started s6
is "sbatch without --ebpf: the state holds the job while it runs" "$(state)" "$(state_of "$j")"
is "sbatch without --ebpf: exporter started before the payload" "$(calls_of "$E2E_DIR/snap/s6.start.calls"); $(snap s6.start.active)" "$START; yes"
release s6
wait_job_done "$j"
is "sbatch without --ebpf: one start, one stop, state empty" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"
reset_calls
out=$(e2e_guard; timeout 60 srun -J s6-srun "$PAYLOAD" s6-srun 2>&1)
like "srun without --ebpf ran" "$out" '^payload s6-srun done$'
wait_job_done "$(snap s6-srun.jobid)"
is "srun without --ebpf: exporter was up during the step" "$(snap s6-srun.start.active)" yes
is "srun without --ebpf: one start, one stop, state empty" "$(calls); $(state)" "$START
$STOP; 0"
cluster_finish
