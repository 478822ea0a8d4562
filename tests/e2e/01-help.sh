#!/bin/bash
# Scenario 1: sbatch, salloc and srun --help list --ebpf (the option is
# registered, not only exported as a static table).
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_start

for cmd in sbatch salloc srun; do
	help=$(e2e_guard; timeout 30 "$cmd" --help 2>&1)
	like "$cmd --help lists --ebpf" "$help" '^ +--ebpf +Enable eBPF observability \(ebpf_exporter\)'
done
# And the option is accepted, not only listed.
j=$(submit -J help-probe --ebpf --hold "$PAYLOAD" help-probe)
is "sbatch --ebpf accepted, nothing on stderr" "${j:+yes} $(cat "$E2E_DIR/out/sbatch.err")" "yes "
[ -n "$j" ] && scancel "$j"
cluster_finish
