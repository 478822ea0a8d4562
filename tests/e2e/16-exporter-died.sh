#!/bin/bash
# Extra: the exporter dies while a job holds it (systemd removes its
# cgroup); the next --ebpf job to join starts it again, and the last job
# still stops it once. (Joins to a live unit start nothing: scenarios 4,
# 9 and 10 run with the same cgroup emulation.)
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

reset_calls
a=$(submit -J s16-a --ebpf "$PAYLOAD" s16-a s16-a)
wait_started s16-a
is "the unit has its cgroup while the job runs" "$(test -d "$CGROUP_UNIT" && echo yes)" yes
# The exporter dies: systemd removes its cgroup.
rmdir "$CGROUP_UNIT"
rm -f "$DBL/active"
m=$(log_mark)
b=$(submit -J s16-b --ebpf "$PAYLOAD" s16-b s16-b)
wait_started s16-b
like "the join says why it starts the unit again" "$(plugin_log_since "$m")" \
	"error: spank_ebpf: prolog job [0-9]+: $UNIT is not running although 1 other job holds it; starting it again"
is "systemd asked (the cgroup was gone), then started again by the join, under the lock" "$(calls)" "$START
is-active $UNIT count=2 locked=yes
start $UNIT count=2 locked=yes"
is "the second job's payload saw the exporter running, with its cgroup" \
	"$(snap s16-b.start.active) $(test -d "$CGROUP_UNIT" && echo cgroup)" "yes cgroup"
release s16-a
wait_job_done "$a"
is "no stop while the second job runs" "$(ncalls stop) $(unit_active)" "0 yes"
release s16-b
wait_job_done "$b"
is "one stop after the last job, state empty, cgroup gone" \
	"$(ncalls stop); $(state); $(unit_active); $(test -d "$CGROUP_UNIT" && echo cgroup)" "1; 0; no; "
E2E_PLUGIN_ERRORS=expected
cluster_finish
