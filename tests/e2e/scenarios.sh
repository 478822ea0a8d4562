#!/bin/bash
# Scenarios shared by several tests/e2e scripts (the same checks under
# PrologFlags=Alloc, or with the plugin declared `required`). Each expects
# a running cluster (tests/e2e/lib.sh), the double in "ok" behaviour and
# no job in the state file, and leaves it that way. TAG keeps names apart.

# Scenario 2: one sbatch --ebpf job.
scn_sbatch_one() {
	local tag=$1 m j
	reset_calls
	m=$(log_mark)
	j=$(submit -J "$tag" --ebpf "$PAYLOAD" "$tag" "$tag") || { is "$tag: sbatch --ebpf accepted" no yes; return; }
	wait_started "$tag"
	is "$tag: state holds the job while it runs" "$(state)" "$(state_of "$j")"
	is "$tag: exporter started once, before the payload ran (under the lock)" "$(calls_of "$E2E_DIR/snap/$tag.start.calls")" "$START"
	is "$tag: exporter active while the job runs" "$(snap "$tag.start.active")" yes
	release "$tag"
	wait_job_done "$j"
	is "$tag: job completed" "$(job_state "$j")" COMPLETED
	is "$tag: one start, then one stop after the job" "$(calls)" "$START
$STOP"
	is "$tag: state empty afterwards" "$(state)" 0
	is "$tag: exporter inactive afterwards" "$(unit_active)" no
	is "$tag: slurmd log, in order" \
		"$(plugin_log_since "$m" | sed 's/^\[[^]]*\] //' | plugin_cycle_normalize)" \
		"$(plugin_cycle_log "$j")"
}

# Scenario 4: two overlapping sbatch --ebpf jobs.
scn_overlapping() {
	local tag=$1 m a b tstart tstop
	reset_calls
	m=$(log_mark)
	a=$(submit -J "$tag-a" --ebpf "$PAYLOAD" "$tag-a" "$tag-a")
	wait_started "$tag-a"
	b=$(submit -J "$tag-b" --ebpf "$PAYLOAD" "$tag-b" "$tag-b")
	wait_started "$tag-b"
	is "$tag: first job's payload saw the exporter started once" "$(calls_of "$E2E_DIR/snap/$tag-a.start.calls")" "$START"
	is "$tag: first job's payload saw state {a}" "$(snap "$tag-a.start.state")" "$(state_of "$a")"
	is "$tag: second job's payload saw state {a,b} and no second start" \
		"$(snap "$tag-b.start.state"); $(calls_of "$E2E_DIR/snap/$tag-b.start.calls")" \
		"$(state_of "$a" "$b"); $START"
	release "$tag-a"
	wait_job_done "$a"
	is "$tag: first job completed" "$(job_state "$a")" COMPLETED
	is "$tag: second job still running" "$(job_state "$b")" RUNNING
	is "$tag: after the first job: state {b}, no stop, exporter active" \
		"$(state); $(calls); $(unit_active)" "$(state_of "$b"); $START; yes"
	release "$tag-b"
	wait_job_done "$b"
	is "$tag: second job completed" "$(job_state "$b")" COMPLETED
	is "$tag: second job's payload never saw a stop" "$(calls_of "$E2E_DIR/snap/$tag-b.end.calls")" "$START"
	is "$tag: one start, one stop after the last job" "$(calls)" "$START
$STOP"
	is "$tag: refcount 0->1->2->1->0 in the slurmd log" "$(refcounts_since "$m")" "1 2 1 0"
	is "$tag: state empty, exporter inactive" "$(state); $(unit_active)" "0; no"
	tstart=$(sed -n 's/^start .* t=//p' "$CALLS")
	tstop=$(sed -n 's/^stop .* t=//p' "$CALLS")
	ok_if "$tag: start ($tstart) before the first payload ($(snap "$tag-a.start.time"))" \
		awk -v a="$tstart" -v b="$(snap "$tag-a.start.time")" 'BEGIN { exit !(a + 0 < b + 0) }'
	ok_if "$tag: stop ($tstop) after the last payload ended ($(snap "$tag-b.end.time"))" \
		awk -v a="$(snap "$tag-b.end.time")" -v b="$tstop" 'BEGIN { exit !(a + 0 < b + 0) }'
}

# Scenario 7: an epilog without a prolog on the node (salloc --ebpf that
# starts no step) must not release the hold of a running --ebpf job.
# ALLOC=yes when PrologFlags=Alloc runs a prolog at allocation anyway.
scn_epilog_without_prolog() {
	local tag=$1 alloc=${2:-no} m a s out
	reset_calls
	a=$(submit -J "$tag-a" --ebpf "$PAYLOAD" "$tag-a" "$tag-a")
	wait_started "$tag-a"
	m=$(log_mark)
	out=$(e2e_guard; timeout 60 salloc -J "$tag-salloc" --ebpf /bin/true 2>&1)
	s=$(printf '%s\n' "$out" | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
	is "$tag: salloc --ebpf without a step got an allocation" "${s:+yes}" yes || diag "$out"
	[ -n "$s" ] && wait_job_done "$s"
	is "$tag: salloc job completed" "$(job_state "$s")" COMPLETED
	like "$tag: its epilog ran" "$(plugin_log_since "$m")" "$(hold_released_re "$s")"
	if [ "$alloc" = yes ]; then
		like "$tag: with Alloc its prolog ran at allocation" "$(plugin_log_since "$m")" "$(hold_taken_re "$s")"
		is "$tag: refcount 2 then 1" "$(refcounts_since "$m")" "2 1"
	else
		unlike "$tag: no prolog on the node for it" "$(plugin_log_since "$m")" "prolog job $s: "
		like "$tag: its epilog found no hold to release" "$(plugin_log_since "$m")" \
			"spank_ebpf: epilog job $s: the job holds no reference on $UNIT; refcount stays 1"
		is "$tag: refcount never changed" "$(refcounts_since "$m")" ""
	fi
	is "$tag: running job still holds the exporter, which was not stopped" \
		"$(state); $(calls); $(unit_active)" "$(state_of "$a"); $START; yes"
	is "$tag: running job unaffected" "$(job_state "$a")" RUNNING
	release "$tag-a"
	wait_job_done "$a"
	is "$tag: after the running job: one stop, state empty" "$(calls); $(state); $(unit_active)" \
		"$START
$STOP; 0; no"
}

# Scenario 12: the double fails, then hangs past timeout= (the cluster
# must have been started with timeout=2).
scn_systemctl_failure() {
	local tag=$1 b m j log
	for b in fail hang; do
		behaviour "$b"
		reset_calls
		m=$(log_mark)
		j=$(submit -J "$tag-$b" --ebpf "$PAYLOAD" "$tag-$b")
		wait_job_done "$j" 60
		is "$tag/$b: job ran to completion" "$(job_state "$j") $(job_field "$j" ExitCode)" "COMPLETED 0:0"
		like "$tag/$b: payload ran" "$(cat "$E2E_DIR/out/$tag-$b-$j.out" 2>/dev/null)" "^payload $tag-$b done$"
		# A failed start's reason is asked of its journal (show: its
		# InvocationID); a timed-out one is not asked further.
		is "$tag/$b: systemctl called for start and stop" "$(calls | cut -d' ' -f1,2)" \
			"$([ "$b" = fail ] && printf 'start %s\nshow %s\nstop %s' "$UNIT" "$UNIT" "$UNIT" ||
				printf 'start %s\nstop %s' "$UNIT" "$UNIT")"
		is "$tag/$b: state empty afterwards" "$(state)" 0
		ok_if "$tag/$b: node not drained (state $(node_state), reason '$(node_reason)')" node_ok
		unlike "$tag/$b: no prolog/epilog failure in the slurmd log" "$(log_since "$m")" "$HOOK_FAILED"
		unlike "$tag/$b: no drain in the slurmctld log" "$(cat "$SLURMCTLD_LOG")" "$HOOK_FAILED"
		log=$(plugin_log_since "$m")
		if [ "$b" = fail ]; then
			like "$tag/$b: error names the unit and the cause (start)" "$log" \
				"error: spank_ebpf: prolog job $j: failed to start $UNIT: $SYSTEMCTL start $UNIT exited with status 1$"
			like "$tag/$b: systemctl's own message is logged" "$log" \
				"error: spank_ebpf: prolog job $j: systemctl: Job for $UNIT failed because the control process exited with error code."
			like "$tag/$b: error names the unit and the cause (stop)" "$log" \
				"error: spank_ebpf: epilog job $j: failed to stop $UNIT: $SYSTEMCTL stop $UNIT exited with status 1$"
		else
			like "$tag/$b: error names the unit and the timeout (start)" "$log" \
				"error: spank_ebpf: prolog job $j: failed to start $UNIT: $SYSTEMCTL start $UNIT timed out after 2 s and was killed$"
			like "$tag/$b: error names the unit and the timeout (stop)" "$log" \
				"error: spank_ebpf: epilog job $j: failed to stop $UNIT: $SYSTEMCTL stop $UNIT timed out after 2 s and was killed$"
			like "$tag/$b: ... and that the job is not affected" "$log" \
				"error: spank_ebpf: epilog job $j: the job is not affected: it runs without the exporter$"
			is "$tag/$b: no hung systemctl left" "$(double_procs)" ""
		fi
	done
	behaviour ok
	rm -f "$DBL/active"
	reset_calls
}
