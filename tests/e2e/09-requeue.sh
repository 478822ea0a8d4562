#!/bin/bash
# Scenario 9: scontrol requeue of a running --ebpf job: the requeued run
# takes the hold again under the same job ID, nothing leaks or doubles, the
# exporter ends stopped; alone, then next to another --ebpf job.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
# Slurm holds a requeued job for cred_expire + 1 s (default 120), until
# slurmd has forgotten the job's first run; a run launched before that
# (StartTime=now, as this test once did) may find it remembered and get
# no prolog ("reissued job credential", seen on a loaded machine). A
# shorter window instead: Slurm's own wait, only shorter.
export E2E_CRED_EXPIRE=20
e2e_start

# rerun ID NAME: requeue the job; Slurm starts it again after
# E2E_CRED_EXPIRE; wait for its second run to end.
rerun() {
	scontrol requeue "$1"
	wait_for 30 "job $1 pending again" PENDING job_state "$1"
	wait_until $((E2E_CRED_EXPIRE + 60)) "requeued run of $2 done" test -e "$E2E_DIR/snap/$2.r1.end.time"
	wait_job_done "$1"
}

# Alone: start, stop, start, stop.
reset_calls
m=$(log_mark)
j=$(submit -J s9 --ebpf "$PAYLOAD" s9 first:s9-never)
wait_started s9
is "alone: first run holds the exporter" "$(state); $(unit_active)" "$(state_of "$j"); yes"
rerun "$j" s9
is "alone: job completed after one requeue" "$(job_state "$j") restarts=$(job_field "$j" Restarts)" "COMPLETED restarts=1"
is "alone: second run held the exporter again, same job ID" "$(snap s9.r1.start.state); $(snap s9.r1.start.active)" "$(state_of "$j"); yes"
is "alone: start/stop for each run" "$(calls)" "$START
$STOP
$START
$STOP"
is "alone: refcount 1 0 1 0" "$(refcounts_since "$m")" "1 0 1 0"
is "alone: state empty, exporter inactive" "$(state); $(unit_active)" "0; no"
unlike "alone: no double hold" "$(plugin_log_since "$m")" "already holds|holds no reference"

# Next to another --ebpf job: the exporter stays up throughout.
reset_calls
m=$(log_mark)
b=$(submit -J s9-b --ebpf "$PAYLOAD" s9-b s9-b)
wait_started s9-b
j=$(submit -J s9-a --ebpf "$PAYLOAD" s9-a first:s9-never)
wait_started s9-a
is "with another job: both hold" "$(state)" "$(state_of "$j" "$b")"
rerun "$j" s9-a
is "with another job: requeued job completed" "$(job_state "$j") restarts=$(job_field "$j" Restarts)" "COMPLETED restarts=1"
is "with another job: its second run saw both holds" "$(snap s9-a.r1.start.state)" "$(state_of "$j" "$b")"
is "with another job: back to {b}, exporter never stopped" "$(state); $(calls); $(unit_active)" "$(state_of "$b"); $START; yes"
release s9-b
wait_job_done "$b"
is "with another job: refcount 1 2 1 2 1 0" "$(refcounts_since "$m")" "1 2 1 2 1 0"
is "with another job: one start, one stop, state empty" "$(calls); $(state); $(unit_active)" "$START
$STOP; 0; no"
cluster_finish
