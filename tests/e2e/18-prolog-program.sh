#!/bin/bash
# spank-ebpf as Slurm's Prolog=/Epilog= (the face for PrologFlags=RunInJob
# sites, where Slurm calls no SPANK job hook), with no SPANK plugin loaded
# at all and mode=always in its own line: two overlapping jobs give
# 0 -> 1 -> 2 -> 1 -> 0 with one start and one stop under the lock; a
# failing unit never fails a job or drains the node (exit 0).
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
need_admin_cmd
e2e_setup
HOOKCONF=$E2E_DIR/etc/hook.conf
hook_wrapper "$HOOKCONF"
echo "optional $E2E_SO systemctl=$SYSTEMCTL state=$STATE mode=always" >"$HOOKCONF"
E2E_PLUGIN=none E2E_SLURM_CONF_EXTRA="Prolog=$E2E_DIR/hook
Epilog=$E2E_DIR/hook" cluster_start

hook_refcounts() {
	refcounts_of <"$HOOKLOG"
}

reset_calls
a=$(submit -J s18-a "$PAYLOAD" s18-a s18-a)
wait_started s18-a
b=$(submit -J s18-b "$PAYLOAD" s18-b s18-b)
wait_started s18-b
is "no SPANK plugin loaded: the slurmd log has no plugin line" "$(grep -c 'spank_ebpf' "$SLURMD_LOG")" 0
is "first payload saw the exporter started, under the lock" "$(calls_of "$E2E_DIR/snap/s18-a.start.calls")" "start $UNIT count=1 locked=yes"
is "second payload saw state {a,b}, no second start" \
	"$(snap s18-b.start.state); $(calls_of "$E2E_DIR/snap/s18-b.start.calls")" \
	"$(state_of "$a" "$b"); start $UNIT count=1 locked=yes"
end_in_turn "$a" s18-a "$b" s18-b "first job done: state {b}, no stop" "one start, one stop"
is "the Prolog=/Epilog= program's own log: 1 2 1 0" "$(hook_refcounts)" "1 2 1 0"
like "... with the job IDs" "$(cat "$HOOKLOG")" "info: $(hold_taken_re "$a")"
is "both jobs completed" "$(job_state "$a") $(job_state "$b")" "COMPLETED COMPLETED"

# A unit that fails to start: the job runs, the node does not drain.
behaviour fail
c=$(submit -J s18-c "$PAYLOAD" s18-c)
wait_job_done "$c"
is "failing unit: the job completed" "$(job_state "$c")" COMPLETED
like "... the failure is logged" "$(cat "$HOOKLOG")" "error: spank_ebpf: prolog job [0-9]+: failed to start $UNIT"
like "... node not drained" "$(node_state)" '^(idle|mixed)$'
behaviour ok
is "state empty at the end" "$(state)" 0
cluster_finish
