# In the VM (tests/vm/files/guest): jobs in the cgroups Slurm itself made
# (cgroup/v2, proctrack/cgroup, task/cgroup), counted by the project's io
# and oom sets on a real kernel. Nothing here makes or moves a cgroup.

# _vm_job_dir JOB: the name Slurm gives JOB's cgroup directory: job_<id>,
# or (26.05 and later, by default) the SLUID the plugin recorded for it.
_vm_job_dir() {
	local s
	s=$(awk -v j="$1" '$1 == j { print $3 }' "$STATE.jobs" 2>/dev/null)
	case $VM_SLURM in
	2[6-9].* | [3-9]*.*) [ -n "$s" ] && [ "$s" != - ] && echo "$s" || echo "(no SLUID recorded)" ;;
	*) echo "job_$1" ;;
	esac
}

_vm_work() {
	local name=$1 count=$2
	shift 2
	submit -J "$name" -o "$JOB_MARKS/$name-%j.out" "$@" /usr/local/bin/sse-vm-work "$name" "$count"
}

vm_scenario_cgroup_jobs() {
	local c k a b o d cg jcg cnt out
	diag "cgroups: Slurm $VM_SLURM on $VM_KERNEL"
	is "cgroups: slurmd tracks and confines jobs with cgroups" \
		"$(ct scontrol show config | awk '$1 == "ProctrackType" || $1 == "TaskPlugin" || $1 == "CgroupPlugin" { print $1 "=" $3 }' | sort | tr '\n' ' ')" \
		"CgroupPlugin=cgroup/v2 ProctrackType=proctrack/cgroup TaskPlugin=task/cgroup "
	ok_if "cgroups: the node takes jobs" wait_until 120 "node $NODE usable" node_usable
	c=$(journal_mark)
	k=$(submit_payload vm-keep --ebpf=io,oom) || { is "cgroups: sbatch --ebpf=io,oom accepted" no yes; return; }
	wait_started vm-keep 180
	a=$(_vm_work vm-a 2000 --ebpf=io) || { is "cgroups: sbatch --ebpf=io accepted" no yes; return; }
	b=$(SYS_USER=$JM_OTHER _vm_work vm-b 500) || { is "cgroups: the other user's sbatch accepted" no yes; return; }
	ok_if "cgroups: job $a ran its 2000 direct writes, then 2000 in an srun step" wait_started vm-a 300
	ok_if "cgroups: job $b ($JM_OTHER, no --ebpf) ran its writes" wait_started vm-b 300

	d=$(_vm_job_dir "$a")
	cg=$(cat "$JOB_MARKS/vm-a.cgroup")
	diag "cgroups: job $a: batch step in $cg, srun step in $(cat "$JOB_MARKS/vm-a.step-cgroup"); job $b in $(cat "$JOB_MARKS/vm-b.cgroup")"
	# Slurm's scope: slurmstepd.scope, or <node>_slurmstepd.scope (a
	# slurmd built for several per host, as Debian's 24.11 is).
	like "cgroups: job $a's batch step runs in the cgroup slurmstepd made ($d)" "$cg" \
		"^/system\\.slice/([^/]*_)?slurmstepd\\.scope/$d/step_batch/"
	like "cgroups: ... its srun step in the job's step_0" "$(cat "$JOB_MARKS/vm-a.step-cgroup")" \
		"^/system\\.slice/([^/]*_)?slurmstepd\\.scope/$d/step_0/"
	jcg=${cg%%/step_batch/*}
	is "cgroups: ... with the memory limit Slurm set (DefMemPerNode=256)" \
		"$(cat "/sys/fs/cgroup$jcg/memory.max" 2>&1)" $((256 << 20))
	out=$(ct journalctl -q --no-pager -o cat --after-cursor="$c" SYSLOG_IDENTIFIER=slurmstepd 2>&1 |
		grep -F "for '/sys/fs/cgroup$jcg" | head -n 6)
	diag "cgroups: slurmstepd's lines on $jcg: $(echo "$out" | tr '\n' '|')"
	like "cgroups: slurmstepd logged the limit it wrote into the job's cgroup" "$out" \
		"memory\\.max' set to '$((256 << 20))' for '/sys/fs/cgroup$jcg'"

	ok_if "io: job $a's writes counted under jobid=$a: the batch step's 2000 and the srun step's 2000" \
		wait_until 60 "4000 writes of job $a" metric_at_least 941 ebpf_exporter_spank_io_latency_seconds_count "jobid=\"$a\",operation=\"write\"" 4000
	cnt=$(metric_sum 941 ebpf_exporter_spank_io_latency_seconds_count "jobid=\"$a\",operation=\"write\"")
	ok_if "io: ... and not many more: the job's own (4000 to 4400: $cnt)" test "$cnt" -ge 4000 -a "$cnt" -le 4400
	cnt=$(metric_sum 941 ebpf_exporter_spank_io_bytes_total "jobid=\"$a\",operation=\"write\"")
	ok_if "io: ... 4 KiB each (at least 16384000 bytes: $cnt)" test "$cnt" -ge 16384000
	is "io: nothing at all for job $b (another user's, no --ebpf)" "$(metric_series 941 "$b")" 0
	out=$(ct "$SYS_ADMIN_CMD" report "$a" 2>&1)
	diag "io: spank-ebpf report $a: $(echo "$out" | tr '\n' '|')"
	like "io: spank-ebpf report $a: its write requests and latency" "$out" \
		'I/O write  [1-9][0-9]* requests, [1-9][0-9]* bytes, latency p50 [0-9.]* s, p99 [0-9.]* s'
	release vm-a
	wait_job_done "$a"
	ok_if "io: after job $a: none of its series left" wait_until 60 "job $a's series gone" metric_no_series 941 "$a"
	is "io: ... while the instance runs on for job $k" "$(settled_unit_state spank-ebpf-exporter@io.service)" active

	# A job over its --mem: the kernel's OOM killer in the job's cgroup.
	# The job stays (until its gate): its series go at its epilog.
	o=$(submit -J vm-oom -o "$JOB_MARKS/vm-oom-%j.out" --mem=64M --ebpf=oom --wrap \
		"python3 -c 'b = b\"x\" * (400 << 20)'; touch $JOB_MARKS/vm-oom.started
		i=0; while [ ! -e $JOB_MARKS/vm-oom.gate ] && [ \$i -lt 1500 ]; do sleep 0.2; i=\$((i + 1)); done") ||
		{ is "oom: sbatch --mem=64M --ebpf=oom accepted" no yes; return; }
	wait_started vm-oom 180
	ok_if "oom: job $o's process over its --mem=64M, killed: counted under jobid=$o" \
		wait_until 30 "job $o's OOM kill" metric_at_least 943 ebpf_exporter_spank_oom_kills_total "jobid=\"$o\"" 1
	is "oom: no OOM kill for any other job" \
		"$(SYS_STANDIN_PORT=943 metrics | grep '^ebpf_exporter_spank_oom_kills_total{' | grep -vc "jobid=\"$o\"")" 0
	release vm-oom
	wait_job_done "$o" 120
	is "oom: job $o ended OUT_OF_MEMORY (Slurm saw the kill too)" "$(job_state "$o")" OUT_OF_MEMORY
	ok_if "oom: after job $o: none of its series left" wait_until 30 "job $o's oom series gone" metric_no_series 943 "$o"

	release vm-b
	release vm-keep
	wait_job_done "$b"
	wait_job_done "$k"
	is "cgroups: the jobs completed" "$(job_state "$k") $(job_state "$a") $(job_state "$b")" "COMPLETED COMPLETED COMPLETED"
	is "cgroups: both instances stopped after the last job" \
		"$(settled_unit_state spank-ebpf-exporter@io.service) $(settled_unit_state spank-ebpf-exporter@oom.service)" \
		"inactive inactive"
	diag "cgroups: plugin lines: $(plugin_log_since "$c" | tr '\n' '|')"
}
