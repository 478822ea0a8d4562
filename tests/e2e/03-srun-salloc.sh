#!/bin/bash
# Scenario 3: srun --ebpf (job created by srun), and salloc --ebpf followed
# by srun inside the allocation.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
. "${srcdir:-.}/tests/e2e/cluster.sh"
. "${srcdir:-.}/tests/e2e/scenarios.sh"
e2e_setup
cluster_start

# srun --ebpf: the job is the step's.
reset_calls
out=$(e2e_guard; timeout 60 srun -J s3-srun --ebpf "$PAYLOAD" s3-srun 2>&1)
like "srun --ebpf ran the payload" "$out" '^payload s3-srun done$'
j=$(snap s3-srun.jobid)
is "srun --ebpf: state held the job during the step" "$(snap s3-srun.start.state)" "$(state_of "$j")"
is "srun --ebpf: exporter started before the step ran" "$(calls_of "$E2E_DIR/snap/s3-srun.start.calls"); $(snap s3-srun.start.active)" "$START; yes"
wait_job_done "$j"
is "srun --ebpf: one start, one stop, state empty" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"

# salloc --ebpf, then srun inside: the step inherits the option.
reset_calls
out=$(e2e_guard; timeout 60 salloc -J s3-salloc --ebpf srun "$PAYLOAD" s3-salloc 2>&1)
like "salloc --ebpf + srun ran the payload" "$out" '^payload s3-salloc done$'
j=$(snap s3-salloc.jobid)
is "salloc --ebpf + srun: state held the job during the step" "$(snap s3-salloc.start.state)" "$(state_of "$j")"
is "salloc --ebpf + srun: exporter started before the step ran" "$(calls_of "$E2E_DIR/snap/s3-salloc.start.calls"); $(snap s3-salloc.start.active)" "$START; yes"
wait_job_done "$j"
is "salloc --ebpf + srun: one start, one stop, state empty" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"

# Two steps of one --ebpf allocation: one hold for the job, not per step.
reset_calls
m=$(log_mark)
out=$(e2e_guard; timeout 60 salloc -J s3-steps --ebpf sh -c "srun $PAYLOAD s3-step1 && srun $PAYLOAD s3-step2" 2>&1)
like "salloc --ebpf + two sruns ran both steps" "$out" '^payload s3-step2 done$'
j=$(snap s3-step1.jobid)
wait_job_done "$j"
is "two steps: the second step saw the same single hold" "$(snap s3-step2.start.state); $(calls_of "$E2E_DIR/snap/s3-step2.start.calls")" "$(state_of "$j"); $START"
is "two steps: one start, one stop, state empty" "$(calls); $(state)" "$START
$STOP; 0"
is "two steps: one prolog, one epilog" "$(plugin_log_since "$m" | grep -c -E "$(hold_taken_re)|$(hold_released_re)")" 2
cluster_finish
