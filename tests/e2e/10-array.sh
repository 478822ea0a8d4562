#!/bin/bash
# Scenario 10: a job array of 32 --ebpf tasks running together: exactly one
# start and one stop, state empty at the end.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

tasks=32
all_started() {
	[ "$(ls "$JOB_MARKS"/s10.*.started 2>/dev/null | wc -l)" -ge "$tasks" ]
}
reset_calls
m=$(log_mark)
j=$(submit -J s10 --ebpf --array=1-$tasks "$PAYLOAD" s10 s10)
wait_until 90 "all $tasks tasks running" all_started
is "all $tasks tasks hold the exporter at once" "$(head -n 1 "$STATE")" "$tasks"
is "exporter started once before any task ran" "$(for f in "$E2E_DIR"/snap/s10.*.start.calls; do calls_of "$f"; done | sort -u)" "$START"
release s10
wait_job_done "$j" 120
states=$(scontrol -o show job "$j" | grep -o 'JobState=[A-Z]*' | sort | uniq -c | sed 's/^ *//')
is "every task completed" "$states" "$tasks JobState=COMPLETED"
is "exactly one start and one stop" "$(calls)" "$START
$STOP"
is "state empty, exporter inactive" "$(state); $(unit_active)" "0; no"
is "$tasks prologs and $tasks epilogs logged" \
	"$(plugin_log_since "$m" | grep -cE "$(hold_taken_re)") $(plugin_log_since "$m" | grep -cE "$(hold_released_re)")" "$tasks $tasks"
is "refcount rose to $tasks and fell to 0 by one" \
	"$(refcounts_since "$m")" "$(seq 1 $tasks | tr '\n' ' ')$(seq $((tasks - 1)) -1 0 | tr '\n' ' ' | sed 's/ $//')"
cluster_finish
