#!/bin/bash
# Scenario 13: a plugstack line with an invalid argument: slurmd starts, the
# error names the argument, jobs run (with and without --ebpf), no drain, no
# systemctl call. Then a bad value for a known key, after a slurmd restart.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_setup

check_disabled() {
	local arg=$1 why=$2 tag=$3 j k out
	like "$tag: slurmd names the argument and why" "$(cat "$SLURMD_LOG")" \
		"error: spank_ebpf: slurmd: invalid plugstack argument \"$arg\": $why"
	unlike "$tag: no 'loaded' line" "$(cat "$SLURMD_LOG")" "spank_ebpf: slurmd: version .* loaded"
	j=$(submit -J "$tag-ebpf" --ebpf "$PAYLOAD" "$tag-ebpf")
	is "$tag: sbatch --ebpf accepted, no error shown to the user" "${j:+yes} $(cat "$E2E_DIR/out/sbatch.err")" "yes "
	k=$(submit -J "$tag-plain" "$PAYLOAD" "$tag-plain")
	out=$(e2e_guard; timeout 60 srun -J "$tag-srun" --ebpf "$PAYLOAD" "$tag-srun" 2>&1)
	like "$tag: srun --ebpf ran" "$out" "^payload $tag-srun done\$"
	unlike "$tag: srun shows no plugin error" "$out" "spank_ebpf"
	wait_job_done "$j"
	wait_job_done "$k"
	is "$tag: jobs completed" "$(job_state "$j") $(job_state "$k")" "COMPLETED COMPLETED"
	is "$tag: no systemctl call, no state file" "$(calls); $(state)" "; missing"
	ok_if "$tag: node not drained (state $(node_state), reason '$(node_reason)')" node_ok
	like "$tag: the job prolog says the plugin is disabled" "$(cat "$SLURMD_LOG")" \
		"error: spank_ebpf: prolog: invalid plugstack argument \"$arg\": .*plugin disabled, nothing done"
}

cluster_start colour=blue
check_disabled colour=blue "unknown key" s13-key

# A known key with a bad value, as an admin would change it: edit, restart.
write_plugin_line timeout=forever
restart_slurmd
is "slurmd restarted with the new line" "$(node_state)" idle
check_disabled timeout=forever "timeout must be a whole number of seconds" s13-value
E2E_PLUGIN_ERRORS=expected
cluster_finish
