#!/bin/bash
# Scenario 3: srun --ebpf (job created by srun), and salloc --ebpf followed
# by srun inside the allocation.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

# one_step WHAT NAME CMD...: CMD (srun, or salloc ... srun) runs the
# payload NAME as the one step of an --ebpf job: the hold spans the step,
# with one start before it and one stop after the job.
one_step() {
	local what=$1 name=$2 out j
	shift 2
	reset_calls
	out=$(e2e_guard; timeout 60 "$@" "$PAYLOAD" "$name" 2>&1)
	like "$what ran the payload" "$out" "^payload $name done\$"
	j=$(snap "$name.jobid")
	is "$what: state held the job during the step" "$(snap "$name.start.state")" "$(state_of "$j")"
	is "$what: exporter started before the step ran" "$(calls_of "$E2E_DIR/snap/$name.start.calls"); $(snap "$name.start.active")" "$START; yes"
	wait_job_done "$j"
	is "$what: one start, one stop, state empty" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"
}

# srun --ebpf: the job is the step's.
one_step "srun --ebpf" s3-srun srun -J s3-srun --ebpf
# salloc --ebpf, then srun inside: the step inherits the option.
one_step "salloc --ebpf + srun" s3-salloc salloc -J s3-salloc --ebpf srun

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
