#!/bin/bash
# Scenario 22: probe sets under a real Slurm. An unknown set is refused by
# sbatch, srun and salloc before anything is queued, with the allowed sets
# named; --help lists the sets with their descriptions; a job asking
# --ebpf=io,sched starts those two instances (and no other) before its
# payload and stops them after it; plain --ebpf means the default set.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
e2e_setup

SETS=$E2E_DIR/sets.conf
cat >"$SETS" <<EOT
unit = ebpf_exporter@.service
default = io
textfile = none

[io]
description = Block I/O latency and bytes
configs = spank-io
listen = 127.0.0.1:941

[sched]
description = Run-queue latency
configs = spank-sched
listen = 127.0.0.1:942

[net]
description = TCP retransmits and connections
configs = spank-net
listen = 127.0.0.1:943
EOT
chmod 0644 "$SETS"
cluster_start "sets=$SETS"

# starts_stops: the double's starts and stops, "VERB UNIT" per line.
starts_stops() {
	calls | grep -E '^(start|stop) ' | cut -d' ' -f1,2
}

refused='unknown probe set "iox"; allowed: io, sched, net'
out=$(e2e_guard; timeout 30 sbatch -J s22-bad --ebpf=iox "$PAYLOAD" s22-bad 2>&1)
st=$?
like "sbatch --ebpf=iox: refused, the allowed sets named" "$out" "$refused"
is "sbatch --ebpf=iox: a failing exit status" "$([ "$st" -ne 0 ] && echo failed || echo "exit $st")" failed
out=$(e2e_guard; timeout 30 srun -J s22-bad --ebpf=io,iox "$PAYLOAD" s22-bad 2>&1)
st=$?
like "srun --ebpf=io,iox: refused for the unknown one" "$out" "$refused"
is "srun --ebpf=io,iox: a failing exit status" "$([ "$st" -ne 0 ] && echo failed || echo "exit $st")" failed
unlike "srun --ebpf=io,iox: the payload never ran" "$out" "payload s22-bad"
out=$(e2e_guard; timeout 30 salloc -J s22-bad --ebpf=iox true 2>&1)
st=$?
like "salloc --ebpf=iox: refused" "$out" "$refused"
is "salloc --ebpf=iox: a failing exit status" "$([ "$st" -ne 0 ] && echo failed || echo "exit $st")" failed
is "nothing was queued, nothing started" "$(squeue -h -o %i | tr -d ' '); $(starts_stops)" "; "

for cmd in sbatch srun salloc; do
	help=$(e2e_guard; timeout 30 "$cmd" --help 2>&1 | tr -s ' \n' ' ')
	like "$cmd --help: plain --ebpf means the default set" "$help" '--ebpf.* --ebpf alone for io, or --ebpf=SET\[,SET\.\.\.\] from'
	like "$cmd --help: each set with its description" "$help" \
		'io \(Block I/O latency and bytes\); sched \(Run-queue latency\); net \(TCP retransmits and connections\)'
done

reset_calls
j=$(submit -J s22-two --ebpf=io,sched "$PAYLOAD" s22-two s22-two)
wait_started s22-two
is "--ebpf=io,sched: io and sched started before the payload, nothing else" \
	"$(calls_of "$E2E_DIR/snap/s22-two.start.calls" | grep '^start ' | cut -d' ' -f1,2 | sort)" \
	"start ebpf_exporter@io.service
start ebpf_exporter@sched.service"
release s22-two
wait_job_done "$j"
is "--ebpf=io,sched: job completed" "$(job_state "$j")" COMPLETED
wait_until 30 "both instances stopped" sh -c "[ \$(grep -c '^stop ' '$CALLS') -ge 2 ]"
is "--ebpf=io,sched: both stopped after the job, once each" \
	"$(starts_stops | grep '^stop ' | sort)" "stop ebpf_exporter@io.service
stop ebpf_exporter@sched.service"

reset_calls
j=$(submit -J s22-plain --ebpf "$PAYLOAD" s22-plain s22-plain)
wait_started s22-plain
is "plain --ebpf: the default set (io) alone" \
	"$(calls_of "$E2E_DIR/snap/s22-plain.start.calls" | grep '^start ' | cut -d' ' -f1,2)" \
	"start ebpf_exporter@io.service"
release s22-plain
wait_job_done "$j"
is "plain --ebpf: job completed" "$(job_state "$j")" COMPLETED
cluster_finish
