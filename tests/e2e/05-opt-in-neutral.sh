#!/bin/bash
# Scenario 5: jobs without --ebpf in opt-in mode leave no trace: no
# systemctl call, no state change, no spank_ebpf line above debug in the
# slurmd log (SlurmdDebug=info: info lines show, debug lines do not).
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

like "slurmd log shows the plugin's info lines" "$(cat "$SLURMD_LOG")" \
	"spank_ebpf: slurmd: version [0-9.]+ loaded: mode=opt-in unit=$UNIT state=$STATE systemctl=$SYSTEMCTL"
unlike "slurmd log has no debug lines at this level" "$(cat "$SLURMD_LOG")" "debug[0-9]?:"
# One --ebpf job first, so that the state file exists ("0") and any write
# to it would show in its inode or modification time.
out=$(e2e_guard; timeout 60 srun -J s5-first --ebpf "$PAYLOAD" s5-first 2>&1)
wait_job_done "$(snap s5-first.jobid)"
is "an --ebpf job leaves the state file at 0" "$(state)" 0
reset_calls
sleep 1 # a later write would change the mtime even at 1 s resolution
m=$(log_mark)
before=$(state)
stamp=$(stat -c '%i %y' "$STATE")
j=$(submit -J s5-plain "$PAYLOAD" s5-plain)
wait_job_done "$j"
is "sbatch without --ebpf: job completed" "$(job_state "$j")" COMPLETED
is "sbatch without --ebpf: the payload saw no hold and no exporter" \
	"$(snap s5-plain.start.state); $(snap s5-plain.start.active)" "$before; no"
out=$(e2e_guard; timeout 60 srun -J s5-srun "$PAYLOAD" s5-srun 2>&1)
like "srun without --ebpf ran" "$out" '^payload s5-srun done$'
out=$(e2e_guard; timeout 60 salloc -J s5-salloc srun "$PAYLOAD" s5-salloc 2>&1)
like "salloc + srun without --ebpf ran" "$out" '^payload s5-salloc done$'
wait_job_done "$(snap s5-srun.jobid)"
wait_job_done "$(snap s5-salloc.jobid)"
is "no systemctl call" "$(calls)" ""
is "state file unchanged and not rewritten" "$(state) $(stat -c '%i %y' "$STATE")" "$before $stamp"
is "no spank_ebpf line in the slurmd log for these jobs" "$(plugin_log_since "$m")" ""
cluster_finish
