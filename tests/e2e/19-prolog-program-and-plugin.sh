#!/bin/bash
# Both faces at once (a site that turned RunInJob off and kept its
# Prolog=/Epilog= lines): the SPANK hooks and the Prolog=/Epilog= program
# read the same plugin line (mode=always: on Slurm 22.05 without RunInJob
# a Prolog= program does not get the job's SPANK options, so it cannot
# see --ebpf) and count each job once: two overlapping jobs give
# 0 -> 1 -> 2 -> 1 -> 0 and one start and one stop in all.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
need_admin_cmd
e2e_setup
hook_wrapper "$E2E_DIR/etc/plugstack.conf.d/ebpf.conf"
E2E_SLURM_CONF_EXTRA="Prolog=$E2E_DIR/hook
Epilog=$E2E_DIR/hook" cluster_start mode=always

reset_calls
m=$(log_mark)
a=$(submit -J s19-a "$PAYLOAD" s19-a s19-a)
wait_started s19-a
b=$(submit -J s19-b "$PAYLOAD" s19-b s19-b)
wait_started s19-b
is "two jobs, each counted once: state {a,b}" "$(state)" "$(state_of "$a" "$b")"
hooks=$(cat "$HOOKLOG" "$SLURMD_LOG")
for j in "$a" "$b"; do
	is "job $j: both faces ran its prolog; one took it, the other found it held" \
		"$(printf '%s\n' "$hooks" | grep -cE "$(hold_taken_re "$j")") $(printf '%s\n' "$hooks" | grep -c "spank_ebpf: prolog job $j: the job already holds $UNIT; refcount stays")" "2 1"
done
end_in_turn "$a" s19-a "$b" s19-b "first job gone: state {b}, no stop" "one start, one stop in all"
refs=$(cat "$HOOKLOG" "$SLURMD_LOG" | refcounts_of | tr ' ' '\n' | sort | tr '\n' ' ')
is "four changes of the set in all (1 2 1 0, whichever face made them)" "$refs" "0 1 1 2 "
is "state empty, unit inactive" "$(state); $(unit_active)" "0; no"
cluster_finish
