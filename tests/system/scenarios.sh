# The system test scenarios, run against a booted container
# (tests/lib/system.sh) with the packages installed and the cluster up.
# Each leaves no job, the exporter inactive and the plugin line in opt-in
# mode behind it.

# The packages and the plugin as slurmd, sbatch and systemd see them.
scn_installed() {
	local c=$1 deps
	if [ "$SYS_INSTALLED" = packages ]; then
		is "packages installed" \
			"$(ct dpkg-query -W -f='${db:Status-Status} ${Package}\n' slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-submit 2>&1)" \
			"installed slurm-spank-ebpf
installed slurm-spank-ebpf-compute
installed slurm-spank-ebpf-submit"
		deps=$(ct dpkg-query -W -f='${Depends}' slurm-spank-ebpf-compute)
		like "compute package depends on slurmd $SLURM_MAJMIN only ($deps)" "$deps" \
			"slurmd \(>= $SLURM_MAJMIN\).*slurmd \(<< "
	else
		skip_point "packages not built (interim make install)"
	fi
	like "slurmd loaded the plugin at start" "$(slurmd_log_since "$c")" \
		'spank_ebpf: slurmd: version [0-9.]+ loaded: mode=opt-in unit=ebpf_exporter.service'
	unlike "no incompatible plugin version or load error" "$(slurmd_log_since "$c")" \
		'Incompatible plugin version|spank.*(error|failed).*spank_ebpf'
	like "sbatch --help shows --ebpf" "$(ctu sbatch --help 2>&1)" '^ +--ebpf +Enable eBPF'
	is "stand-in unit installed disabled" "$(ct systemctl is-enabled "$SYS_UNIT" 2>&1)" disabled
}

# Scenario 1: no job: exporter inactive, none of its eBPF programs loaded.
scn_no_job() {
	is "s1: no job: exporter inactive" "$(is_active)" inactive
	is "s1: no job: no stand-in process" "$(unit_main_pid)" 0
	is "s1: no job: metrics endpoint down" "$(metrics_samples)" down
	diag "s1: perf_event programs in the whole kernel (other containers' too, not counted below): $(ct bpftool prog show 2>&1 | grep -c '^[0-9]*: perf_event ')"
	is "s1: no job: state file empty or absent" "$(state_count)" 0
}

# Scenario 2: one sbatch --ebpf job.
scn_sbatch() {
	local c j seen
	c=$(journal_mark)
	j=$(submit_payload s2 --ebpf) || { is "s2: sbatch --ebpf accepted" no yes; return; }
	wait_started s2
	seen=$(observe)
	diag "s2: job $j running: $seen"
	is "s2: while the job runs: state holds it" "$(state)" "$(state_of "$j")"
	is "s2: while the job runs: exporter active" "$(is_active)" active
	is "s2: while the job runs: 2 perf_event programs loaded" "$(progs)" 2
	like "s2: while the job runs: metrics served" "$(metrics)" '^ebpf_standin_cpu_samples_total [1-9][0-9]*$'
	release s2
	wait_job_done "$j"
	is "s2: job completed" "$(job_state "$j")" COMPLETED
	seen=$(observe)
	diag "s2: after the job: $seen"
	is "s2: after the job: state, unit, programs, endpoint" "$seen" "count=0 active=inactive progs=0 metrics=down"
	is "s2: one start then one stop (unit journal)" "$(unit_jobs_since "$c")" "start stop"
	is "s2: slurmd journal, in order" "$(plugin_log_since "$c" | plugin_cycle_normalize)" \
		"$(plugin_cycle_log "$j")"
}

# Scenario 3: two overlapping sbatch --ebpf jobs: 0 -> 1 -> 2 -> 1 -> 0.
scn_overlap() {
	local c a b pid1 pid2 s1 s2 seen
	c=$(journal_mark)
	a=$(submit_payload s3a --ebpf) || { is "s3: sbatch --ebpf accepted" no yes; return; }
	wait_started s3a
	diag "s3: job $a running: $(observe)"
	is "s3: first job: state {a}, active, 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$a"); active; 2"
	pid1=$(unit_main_pid)
	s1=$(metrics_samples)
	b=$(submit_payload s3b --ebpf)
	wait_started s3b
	diag "s3: jobs $a and $b running: $(observe)"
	is "s3: both jobs: state {a,b}, active, still 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$a" "$b"); active; 2"
	release s3a
	wait_job_done "$a"
	diag "s3: job $a done, $b running: $(observe)"
	is "s3: after the first job: state {b}, active, 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$b"); active; 2"
	pid2=$(unit_main_pid)
	# The stand-in prints its count once a second: wait for the next.
	wait_until 10 "the counter to pass $s1" samples_above "$s1"
	s2=$(metrics_samples)
	is "s3: the same exporter process served both jobs" "$pid2" "$pid1"
	ok_if "s3: its counter kept growing ($s1 -> $s2)" test "$s2" -gt "$s1"
	release s3b
	wait_job_done "$b"
	seen=$(observe)
	diag "s3: both done: $seen"
	is "s3: after both: state, unit, programs, endpoint" "$seen" "count=0 active=inactive progs=0 metrics=down"
	is "s3: refcount 1 2 1 0 in the slurmd journal" "$(refcounts_since "$c")" "1 2 1 0"
	is "s3: exactly one start and one stop (unit journal)" "$(unit_jobs_since "$c")" "start stop"
}

# Scenario 4: a job without --ebpf does nothing in opt-in mode; mode=always
# starts the exporter for it.
scn_neutral_and_always() {
	local c j seen
	c=$(journal_mark)
	j=$(submit_payload s4plain) || { is "s4: sbatch accepted" no yes; return; }
	wait_started s4plain
	is "s4: opt-in, job without --ebpf: nothing recorded, exporter inactive, no programs" \
		"$(state_count); $(is_active); $(progs)" "0; inactive; 0"
	release s4plain
	wait_job_done "$j"
	is "s4: opt-in, job without --ebpf: no plugin line in the slurmd journal" "$(plugin_log_since "$c")" ""
	is "s4: opt-in, job without --ebpf: the unit was never touched" "$(unit_jobs_since "$c")" ""

	plugin_args mode=always
	sys_restart_slurmd || bail "slurmd did not restart with mode=always"
	c=$(journal_mark)
	j=$(submit_payload s4always) || { is "s4: sbatch accepted" no yes; return; }
	wait_started s4always
	seen=$(observe)
	diag "s4: mode=always, job $j without --ebpf running: $seen"
	is "s4: mode=always, job without --ebpf: state holds it, active, 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$j"); active; 2"
	release s4always
	wait_job_done "$j"
	is "s4: mode=always: stopped after the job" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
	is "s4: mode=always: one start, one stop" "$(unit_jobs_since "$c")" "start stop"
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart with mode=opt-in"
}

# Scenario 5: the exporter fails to start: the job runs, the node does not
# drain, the error is in the slurmd journal.
scn_broken_unit() {
	local c j d=$NODE_ROOT/etc/systemd/system/$SYS_UNIT.d log
	mkdir -p "$d"
	printf '[Service]\nExecStartPre=/bin/false\n' >"$d/broken.conf"
	ct systemctl daemon-reload
	c=$(journal_mark)
	j=$(submit_payload s5 --ebpf) || { is "s5: sbatch --ebpf accepted" no yes; return; }
	if ! wait_started s5; then
		is "s5: broken exporter: the job still runs" "$(job_state "$j")" RUNNING
	else
		is "s5: broken exporter: the job runs" "$(job_state "$j")" RUNNING
	fi
	is "s5: broken exporter: unit failed, no programs" "$(is_active); $(progs)" "failed; 0"
	release s5
	wait_job_done "$j"
	is "s5: broken exporter: job completed" "$(job_state "$j")" COMPLETED
	is "s5: broken exporter: node not drained" \
		"$(node_usability)" usable
	log=$(plugin_log_since "$c")
	diag "s5: plugin lines: $(echo "$log" | tr '\n' '|')"
	like "s5: the error is in the slurmd journal" "$log" \
		'spank_ebpf: prolog job [0-9]+: failed to start ebpf_exporter\.service: .*exited with status [1-9][0-9]*'
	like "s5: ... and that the job is not affected" "$log" \
		'spank_ebpf: prolog job [0-9]+: the job is not affected: it runs without the exporter'
	unlike "s5: no prolog/epilog failure from Slurm in the slurmd journal" \
		"$(slurmd_log_since "$c" | grep -v 'spank_ebpf:')" \
		'spank/(prolog|epilog) returned status|(prolog|epilog) failed|Prolog error|Epilog error|[Dd]rain'
	is "s5: state empty after the job" "$(state_count)" 0
	rm -rf "$d"
	ct systemctl daemon-reload
	ct systemctl reset-failed "$SYS_UNIT" 2>/dev/null
}

# The exporter killed under a running job: the next --ebpf job's prolog
# finds its cgroup gone and brings it back.
scn_killed_restart() {
	local c a b pid1 pid2 seen
	c=$(journal_mark)
	a=$(submit_payload skill-a --ebpf) || { is "kill: sbatch --ebpf accepted" no yes; return; }
	wait_started skill-a
	pid1=$(unit_main_pid)
	is "kill: first job holds an active exporter" "$(is_active); $(state)" "active; $(state_of "$a")"
	ct systemctl kill "$SYS_UNIT"
	wait_until 20 "exporter gone after systemctl kill" unit_stopped
	seen=$(observe)
	diag "kill: after systemctl kill, job $a still running: $seen"
	is "kill: exporter dead, its programs unloaded, job still recorded" \
		"$(is_active | sed 's/^failed$/inactive/'); $(progs); $(state)" "inactive; 0; $(state_of "$a")"
	b=$(submit_payload skill-b --ebpf)
	wait_started skill-b
	pid2=$(unit_main_pid)
	seen=$(observe)
	diag "kill: second job $b joined: $seen; plugin lines: $(plugin_log_since "$c" | tr '\n' '|')"
	is "kill: the joining job brought the exporter back, 2 programs" \
		"$(is_active); $(progs); $(state)" "active; 2; $(state_of "$a" "$b")"
	ok_if "kill: a new exporter process ($pid1 -> $pid2)" test "$pid2" != "$pid1" -a "$pid2" != 0
	release skill-a
	release skill-b
	wait_job_done "$a"
	wait_job_done "$b"
	is "kill: stopped after both jobs" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
	like "kill: the slurmd journal says why it started the exporter again" "$(plugin_log_since "$c")" \
		"spank_ebpf: prolog job [0-9]+: ebpf_exporter\.service is not running although 1 other jobs? holds? it; starting it again"
	is "kill: start (job a), start again (job b), one stop" "$(unit_jobs_since "$c")" "start start stop"
	ct systemctl reset-failed "$SYS_UNIT" 2>/dev/null
}

# Scenario 6a: PrologFlags=Alloc: the prolog runs at allocation, so a
# salloc --ebpf that starts no step holds the exporter too.
scn_alloc() {
	local c j pid seen
	sys_slurm_conf Alloc
	sys_cluster_start
	c=$(journal_mark)
	j=$(submit_payload s6alloc --ebpf) || { is "s6 Alloc: sbatch --ebpf accepted" no yes; return; }
	wait_started s6alloc
	is "s6 Alloc: sbatch --ebpf: state, active, 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$j"); active; 2"
	release s6alloc
	wait_job_done "$j"
	is "s6 Alloc: sbatch --ebpf: stopped after" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
	is "s6 Alloc: sbatch --ebpf: one start, one stop" "$(unit_jobs_since "$c")" "start stop"

	c=$(journal_mark)
	ctu timeout 120 salloc --ebpf -J s6salloc \
		sh -c "touch $JOB_MARKS/s6salloc.started; i=0; while [ ! -e $JOB_MARKS/s6salloc.gate ] && [ \$i -lt 500 ]; do sleep 0.2; i=\$((i+1)); done" \
		>"$RUN/log/salloc.out" 2>&1 &
	pid=$!
	wait_started s6salloc
	wait_for 30 "state count 1 under salloc" 1 state_count
	# The prolog records the job before the unit's start is over.
	exporter_settle
	seen=$(observe)
	diag "s6 Alloc: salloc --ebpf without a step: $seen"
	is "s6 Alloc: salloc --ebpf without a step: state 1, active, 2 programs" \
		"$(state_count); $(is_active); $(progs)" "1; active; 2"
	release s6salloc
	wait "$pid"
	wait_until 60 "salloc's job over" queue_empty
	is "s6 Alloc: salloc over: stopped" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
}

# The reconcile timer of the -compute package: enabled and started by the
# package, listed by systemd; its service runs spank-ebpf reconcile and
# exits successfully, and pulls in the metrics service, which writes
# spank_ebpf.prom where node_exporter's textfile directory exists. The
# timer is then stopped, so that the scenarios after this one see only the
# plugin's own transitions (a reconcile run between a kill and the next
# job would change what they count).
SYS_TIMER=spank-ebpf-reconcile.timer
SYS_TEXTFILE_DIR=/var/lib/prometheus/node-exporter

_sys_prom_written() {
	ct test -s "$SYS_TEXTFILE_DIR/spank_ebpf.prom"
}

scn_timer() {
	local rc out prom made
	if [ "$SYS_INSTALLED" != packages ]; then
		skip_point "timer: packages not built (interim make install)"
		return 0
	fi
	is "timer: enabled by the package" "$(ct systemctl is-enabled "$SYS_TIMER" 2>&1)" enabled
	is "timer: active (started by the package)" "$(ct systemctl is-active "$SYS_TIMER" 2>&1)" active
	like "timer: systemctl list-timers shows it with its service" \
		"$(ct systemctl list-timers --all --no-pager 2>&1)" "$SYS_TIMER +spank-ebpf-reconcile\.service"
	is "timer: the services are not enabled on their own (static)" \
		"$(ct systemctl is-enabled spank-ebpf-reconcile.service spank-ebpf-metrics.service 2>&1 | tr '\n' ' ')" "static static "
	# prometheus-node-exporter (in the root filesystem) ships the
	# directory; made here only where it does not, and then removed again.
	made=
	ct test -d "$SYS_TEXTFILE_DIR" || { made=yes; ct mkdir -p "$SYS_TEXTFILE_DIR"; }
	ct rm -f "$SYS_TEXTFILE_DIR/spank_ebpf.prom"
	rc=0
	out=$(ct timeout 120 systemctl start spank-ebpf-reconcile.service 2>&1) || rc=$?
	is "timer: systemctl start spank-ebpf-reconcile.service succeeds" "$rc $out" "0 "
	is "timer: the reconcile service's result" \
		"$(ct systemctl show -p Result --value spank-ebpf-reconcile.service 2>&1)" success
	wait_until 60 "spank_ebpf.prom in $SYS_TEXTFILE_DIR" _sys_prom_written
	prom=$(ct cat "$SYS_TEXTFILE_DIR/spank_ebpf.prom" 2>&1)
	like "timer: the metrics service wrote spank_ebpf.prom (no job: 0 jobs)" "$prom" \
		'^spank_ebpf_jobs(\{[^}]*\})? 0$'
	like "timer: ... with the reconcile run counted" "$prom" \
		'^spank_ebpf_reconcile_runs_total(\{[^}]*\})? [1-9][0-9]*$'
	# The file is written before the service ends (systemctl start returned
	# with the reconcile service, which only pulls this one in): its result
	# once it has ended.
	settled_unit_state spank-ebpf-metrics.service >/dev/null
	is "timer: the metrics service's result" \
		"$(ct systemctl show -p Result --value spank-ebpf-metrics.service 2>&1)" success
	is "timer: the reconcile run touched no unit (idle node)" "$(unit_jobs_since "$SYS_SCN_MARK")" ""
	# What this scenario wrote goes; node_exporter's directory stays (the
	# job metrics scenario writes its textfile there).
	ct rm -f "$SYS_TEXTFILE_DIR/spank_ebpf.prom"
	[ -z "$made" ] || ct rmdir "$SYS_TEXTFILE_DIR"
	ct systemctl stop "$SYS_TIMER"
	diag "timer: stopped for the scenarios below"
}

# A template unit as the plugin's unit (unit=ebpf_exporter@x): the stand-in
# as ebpf_exporter@.service. Two overlapping --ebpf jobs start it once and
# stop it once, and the joining job's prolog finds the instance running
# (its cgroup is system.slice/system-ebpf_exporter.slice/ebpf_exporter@x.service):
# no "is not running although" line.
scn_template() {
	local SYS_UNIT=ebpf_exporter@x.service c a b log seen
	install -m 0644 "$SYS_FILES/ebpf_exporter.service" "$NODE_ROOT/etc/systemd/system/ebpf_exporter@.service"
	ct systemctl daemon-reload
	plugin_args mode=opt-in unit=ebpf_exporter@x
	sys_restart_slurmd || bail "slurmd did not restart with unit=ebpf_exporter@x"
	c=$(journal_mark)
	a=$(submit_payload stpl-a --ebpf) || { is "template: sbatch --ebpf accepted" no yes; return; }
	wait_started stpl-a
	seen=$(observe)
	diag "template: job $a running: $seen"
	is "template: first job: state {a}, ebpf_exporter@x active, 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$a"); active; 2"
	like "template: the instance's cgroup is under its template's slice" \
		"$(ct systemctl show -p ControlGroup --value "$SYS_UNIT" 2>&1)" '/system\.slice/system-ebpf_exporter\.slice/ebpf_exporter@x\.service$'
	b=$(submit_payload stpl-b --ebpf)
	wait_started stpl-b
	is "template: both jobs: state {a,b}, active, still 2 programs" \
		"$(state); $(is_active); $(progs)" "$(state_of "$a" "$b"); active; 2"
	release stpl-a
	wait_job_done "$a"
	is "template: after the first job: state {b}, active" "$(state); $(is_active)" "$(state_of "$b"); active"
	release stpl-b
	wait_job_done "$b"
	is "template: after both: state, unit, programs, endpoint" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
	is "template: exactly one start and one stop ($SYS_UNIT's journal)" "$(unit_jobs_since "$c")" "start stop"
	is "template: refcount 1 2 1 0 in the slurmd journal" "$(refcounts_since "$c")" "1 2 1 0"
	log=$(plugin_log_since "$c")
	diag "template: plugin lines: $(echo "$log" | tr '\n' '|')"
	like "template: the slurmd journal has the joining job's prolog" "$log" "$(hold_taken_re "$b")"
	unlike "template: no \"is not running although\" line (the running instance was seen)" "$log" 'is not running although'
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart with mode=opt-in"
	rm -f "$NODE_ROOT/etc/systemd/system/ebpf_exporter@.service"
	ct systemctl daemon-reload
}

# sys_main SUITE: the whole run for one release: every release's
# scenarios, then SYS_MORE_SCENARIOS (its own). SYSTEM_SCENARIOS (names
# without scn_, space-separated) picks a subset by hand.
sys_main() {
	local c s
	sys_setup "$1"
	sys_cache
	diag "$SUITE: root filesystem ready after $(sys_elapsed) s"
	sys_tarball
	sys_boot
	diag "$SUITE: container booted after $(sys_elapsed) s"
	sys_install
	c=$(journal_mark)
	sys_cluster_start
	diag "$SUITE: cluster up after $(sys_elapsed) s: $(plugin_line)"
	scn_installed "$c"
	SYS_SCN_MARK=$(journal_mark)
	scn_no_job
	for s in ${SYSTEM_SCENARIOS:-timer sbatch overlap template neutral_and_always broken_unit killed_restart alloc linger background both_faces runinjob real real_faults ${SYS_MORE_SCENARIOS:-}}; do
		"scn_$s"
		diag "$SUITE: scn_$s done after $(sys_elapsed) s"
	done
	sys_finish
}
