# In the VM (tests/vm/files/guest), on a kernel older than the project's
# probes need (5.10: before 5.11's block tracepoints and task storage in
# tracing programs, before 5.12's BPF compare-and-swap): a job asking for
# io, sched and fs runs and completes, the node is never drained, and each
# set's instance is refused before its exporter starts, the plugin's
# line saying which config needs which kernel. (Unrefused, spank-io
# loaded here and counted none of a job's 4000 writes; spank-sched
# failed in libbpf's words.)
vm_scenario_old_kernel() {
	local c j out
	diag "old kernel: Slurm $VM_SLURM on $VM_KERNEL"
	ok_if "old kernel: the node takes jobs" wait_until 120 "node $NODE usable" node_usable
	c=$(journal_mark)
	j=$(submit -J vm-old -o "$JOB_MARKS/vm-old-%j.out" --ebpf=io,sched,fs /usr/local/bin/sse-vm-work vm-old 200) ||
		{ is "old kernel: sbatch --ebpf=io,sched,fs accepted" no yes; return; }
	ok_if "old kernel: job $j runs" wait_started vm-old 300
	is "old kernel: no set's instance started" \
		"$(settled_unit_state spank-ebpf-exporter@io.service) $(settled_unit_state spank-ebpf-exporter@sched.service) $(settled_unit_state spank-ebpf-exporter@fs.service)" \
		"failed failed failed"
	wait_logged "$c" "job $j: the job is not affected" 30
	out=$(plugin_log_since "$c")
	diag "old kernel: plugin lines: $(echo "$out" | tr '\n' '|')"
	like "old kernel: the plugin's line for io: which config needs which kernel" "$out" \
		"spank-ebpf-exporter@io said: spank-ebpf: exporter: set io: config spank-io cannot run on this node's kernel 5\\.10\\.[^ ]*: it needs Linux 5\\.11 or newer \\("
	like "old kernel: ... and for sched" "$out" \
		"spank-ebpf-exporter@sched said: spank-ebpf: exporter: set sched: config spank-sched cannot run on this node's kernel 5\\.10\\.[^ ]*: it needs Linux 5\\.12 or newer \\("
	like "old kernel: ... and for fs (fentry/fexit: 6.1)" "$out" \
		"spank-ebpf-exporter@fs said: spank-ebpf: exporter: set fs: config spank-fs(-nfs)? cannot run on this node's kernel 5\\.10\\.[^ ]*: it needs Linux 6\\.1 or newer \\("
	release vm-old
	wait_job_done "$j" 120
	is "old kernel: job $j completed" "$(job_state "$j")" COMPLETED
	is "old kernel: the node still takes jobs (not drained)" "$(node_usability)" usable
}
