# The multi-host scenarios (tests/lib/multihost.sh: ctl, node1, node2). Each
# starts from: the plugin in opt-in mode on both nodes, slurmd restarted,
# the submit package on ctl (c1 and c2 remove it first), no job, every
# node's state empty and its exporter inactive; and leaves the same behind.

# c0: what each host has, as dpkg, slurmd and sbatch see it.
cs_installed() {
	local h deps
	for h in $CL_NODES; do
		is "c0: $h: compute role installed" "$(cl_installed "$h")" "slurm-spank-ebpf slurm-spank-ebpf-compute"
		like "c0: $h: slurmd loaded the plugin" "$(on "$h" slurmd_log_since "${CL_MARK[$h]}")" \
			'spank_ebpf: slurmd: version [0-9.]+ loaded: mode=opt-in unit=ebpf_exporter.service'
		is "c0: $h: stand-in unit disabled, inactive, no programs" \
			"$(on "$h" ct systemctl is-enabled "$SYS_UNIT" 2>&1); $(view "$h")" "disabled; $IDLE"
		is "c0: $h: usable" "$(usable "$h")" usable
	done
	deps=$(on node1 ct dpkg-query -W -f='${Depends}' slurm-spank-ebpf-compute)
	like "c0: compute package depends on slurmd $SLURM_MAJMIN only ($deps)" "$deps" \
		"slurmd \(>= $SLURM_MAJMIN\).*slurmd \(<< "
	is "c0: ctl: no plugin package" "$(cl_installed ctl)" ""
}

# c1: opt-in, submit host without the plugin: sbatch --ebpf fails at once
# and queues nothing; the -submit package fixes it, no daemon restarted.
cs_submit_host() {
	local out rc before after j
	ctl_submit_pkg off
	cl_mark
	out=$(on ctl ctu timeout 30 sbatch -J c1no --ebpf --wrap /bin/true 2>&1)
	rc=$?
	ok_if "c1: without the plugin on ctl: sbatch --ebpf fails (exit $rc)" test "$rc" -ne 0
	like "c1: without the plugin on ctl: unrecognized option '--ebpf'" "$out" "unrecognized option '--ebpf'"
	is "c1: without the plugin on ctl: nothing queued" "$(on ctl ct squeue -h -o %i 2>&1)" ""
	unlike "c1: without the plugin on ctl: slurmctld saw no submission" \
		"$(on ctl slurmctld_log_since "${CL_MARK[ctl]}")" '_slurm_rpc_submit_batch_job'
	unlike "c1: without the plugin on ctl: sbatch --help has no --ebpf" "$(on ctl ctu sbatch --help 2>&1)" '--ebpf'

	before=$(ctl_daemons)
	ctl_submit_pkg on
	after=$(ctl_daemons)
	is "c1: installing the submit package restarted no daemon on ctl (munge, slurmctld: PID and restarts)" \
		"$after" "$before"
	is "c1: ctl has the submit role" "$(cl_installed ctl)" "slurm-spank-ebpf slurm-spank-ebpf-submit"
	like "c1: with the submit package: sbatch --help shows --ebpf" "$(on ctl ctu sbatch --help 2>&1)" '^ +--ebpf +Enable eBPF'
	j=$(sb c1 --ebpf -w node1 /usr/local/bin/cl-payload c1) || { is "c1: sbatch --ebpf accepted" no yes; return; }
	wait_started_on c1 node1
	is "c1: job $j on node1: node1 holds the exporter" "$(view node1)" "$(held_while node1 "$j")"
	is "c1: job $j on node1: node2 untouched" "$(view node2)" "$IDLE"
	is "c1: exporter active as the payload started" "$(unit_at_start node1 c1)" active
	release_all c1
	wait_done "$j"
	is "c1: job completed" "$(jstate "$j")" COMPLETED
	is "c1: after the job: node1 idle" "$(view node1)" "$IDLE"
	is "c1: node1: one start, one stop; node2: none" "$(unit_jobs node1); $(unit_jobs node2)" "start stop; "
}

# c2: mode=always on the compute nodes, nothing on the submit host: every
# job starts and stops the exporter on its nodes.
cs_always() {
	local h
	ctl_submit_pkg off
	for h in $CL_NODES; do
		on "$h" plugin_args mode=always
	done
	cl_restart_slurmd $CL_NODES || bail "slurmd did not restart with mode=always"
	n2_job c2 "mode=always, no --ebpf, no plugin on ctl"
	for h in $CL_NODES; do
		on "$h" plugin_args mode=opt-in
	done
	cl_restart_slurmd $CL_NODES || bail "slurmd did not restart with mode=opt-in"
	ctl_submit_pkg on
}

# c3: sbatch -N2 --ebpf: started on both before the payload, stopped on
# both after; two srun -N2 steps count once per node.
cs_two_nodes() {
	local h
	ctl_submit_pkg on
	n2_job c3 "sbatch -N2 --ebpf" --ebpf || return
	for h in $CL_NODES; do
		is "c3: $h: slurmd journal: one prolog and one epilog for the job, in order" \
			"$(plugin_lines "$h" | plugin_cycle_normalize)" "$(plugin_cycle_log "$J")"
	done
}

# c4: a 2-node job and a 1-node job on node2, overlapping: each node
# follows its own jobs.
cs_independent() {
	local a b pid1 pid2
	ctl_submit_pkg on
	cl_mark
	a=$(sb c4a -N2 --ebpf --wrap "$N2_STEPS c4a") || { is "c4: sbatch -N2 --ebpf accepted" no yes; return; }
	wait_started_on c4a node1 node2
	b=$(sb c4b --ebpf -w node2 /usr/local/bin/cl-payload c4b) || { is "c4: sbatch -w node2 --ebpf accepted" no yes; return; }
	wait_started_on c4b node2
	is "c4: both jobs: node1 holds {a}" "$(view node1)" "$(held_while node1 "$a")"
	is "c4: both jobs: node2 holds {a,b}" "$(view node2)" "$(held_while node2 "$a" "$b")"
	pid2=$(unit_pid node2)
	release_all c4a
	wait_done "$a"
	is "c4: 2-node job $a done: node1 stopped" "$(view node1)" "$IDLE"
	is "c4: 2-node job $a done: node2 still holds {b}" "$(view node2)" "$(held_while node2 "$b")"
	is "c4: node2: the same exporter process still runs" "$(unit_pid node2)" "$pid2"
	release_all c4b
	wait_done "$b"
	is "c4: both jobs completed" "$(jstate "$a") $(jstate "$b")" "COMPLETED COMPLETED"
	is "c4: 1-node job $b done: node2 stopped" "$(view node2)" "$IDLE"
	is "c4: node1: one start, one stop" "$(unit_jobs node1)" "start stop"
	is "c4: node2: one start, one stop" "$(unit_jobs node2)" "start stop"
	is "c4: node2: refcount 1 2 1 0" "$(on node2 refcounts_since "${CL_MARK[node2]}")" "1 2 1 0"
}

# c5: salloc -N2 without --ebpf, then srun -N2 --ebpf: the step's prolog
# takes the hold on both nodes, the job's epilog (no --ebpf in its options)
# finds it in the state and releases it on both.
cs_salloc_srun() {
	local pid j h
	ctl_submit_pkg on
	cl_mark
	on ctl ctu timeout 120 salloc -N2 -J c5 \
		srun -N2 --ntasks-per-node=1 --ebpf /usr/local/bin/cl-payload c5 \
		>"$RUN/log/c5-salloc.out" 2>&1 &
	pid=$!
	wait_started_on c5 node1 node2
	j=$(on ctl ct squeue -h -n c5 -o %A)
	for h in $CL_NODES; do
		is "c5: salloc $j, srun --ebpf step: $h holds the exporter" "$(view "$h")" "$(held_while "$h" "$j")"
	done
	release_all c5
	wait "$pid"
	is "c5: salloc exited 0" "$?" 0
	wait_done "$j"
	for h in $CL_NODES; do
		is "c5: after the allocation: $h idle" "$(view "$h")" "$IDLE"
		is "c5: $h: one start, one stop" "$(unit_jobs "$h")" "start stop"
		is "c5: $h: slurmd journal: the step's prolog held, the job's epilog released" \
			"$(plugin_lines "$h" | plugin_cycle_normalize)" "$(plugin_cycle_log "$j")"
	done
}

# c6: slurmd restarted on node2 while it holds the exporter.
cs_slurmd_restart() {
	local j pid c
	ctl_submit_pkg on
	cl_mark
	j=$(sb c6 -N2 --ebpf --wrap "$N2_STEPS c6") || { is "c6: sbatch -N2 --ebpf accepted" no yes; return; }
	wait_started_on c6 node1 node2
	pid=$(unit_pid node2)
	is "c6: job $j running: node2 holds it" "$(view node2)" "$(held_while node2 "$j")"
	cl_restart_slurmd node2 || bail "slurmd did not restart on node2"
	is "c6: slurmd restarted under the job: node2 still holds it, same exporter" \
		"$(view node2) pid=$(unit_pid node2)" "$(held_while node2 "$j") pid=$pid"
	is "c6: the job still runs" "$(jstate "$j")" RUNNING
	release_all c6
	wait_done "$j"
	is "c6: job completed" "$(jstate "$j")" COMPLETED
	is "c6: after the job: both nodes idle" "$(view node1); $(view node2)" "$IDLE; $IDLE"
	is "c6: node2: one start, one stop" "$(unit_jobs node2)" "start stop"
	like "c6: node2: the new slurmd ran the epilog and stopped the exporter" "$(plugin_lines node2)" \
		"$(hold_released_re "$j")"
}

# _older_than SECONDS JOB: the job started more than SECONDS ago (Slurm's
# StartTime).
_older_than() {
	local t
	t=$(on ctl job_field "$2" StartTime)
	[ -n "$t" ] && [ $(($(date +%s) - $(date -d "$t" +%s))) -gt "$1" ]
}

# c7: node2 powered off and booted under a running --ebpf job.
cs_reboot() {
	local a b pid1 st
	ctl_submit_pkg on
	cl_mark
	a=$(sb c7a --ebpf -w node1 /usr/local/bin/cl-payload c7a) || { is "c7: sbatch -w node1 --ebpf accepted" no yes; return; }
	b=$(sb c7b --ebpf --no-requeue -w node2 /usr/local/bin/cl-payload c7b) || { is "c7: sbatch -w node2 --ebpf accepted" no yes; return; }
	wait_started_on c7a node1
	wait_started_on c7b node2
	is "c7: before: node1 holds {a}, node2 holds {b}" "$(view node1); $(view node2)" \
		"$(held_while node1 "$a"); $(held_while node2 "$b")"
	pid1=$(unit_pid node1)
	# With ReturnToService=2 slurmctld notices a lost batch job when the
	# node registers and the job is older than BatchStartTimeout +
	# MessageTimeout (20 s): a real node is off and booting for longer
	# than that; this one takes seconds, so the job ages first.
	wait_until 40 "job $b older than 22 s" _older_than 22 "$b"
	# The power cut: node2's container is killed (no clean shutdown,
	# nothing stops the exporter) and booted again from the same disk, in
	# a time namespace whose boot clock starts at 0, so that slurmd
	# reports the uptime of a host that has just booted.
	SYS_NSPAWN_HARD=1 cl_stop_host node2
	SYS_NSPAWN_FRESH_UPTIME=1 cl_boot node2
	cl_wait_booted node2
	is "c7: node2 after its boot: no state, exporter inactive, no programs" "$(view node2)" "$IDLE"
	CL_MARK[node2]=$(on node2 boot_mark)
	wait_done "$b" 60
	st=$(jstate "$b")
	diag "c7: Slurm ended job $b as $st; node2: $(nstate node2) ($(on ctl node_reason node2)); slurmctld said:"
	show "$(on ctl slurmctld_log_since "${CL_MARK[ctl]}" | grep -E "node2|JobId=$b" | head -n 12)"
	is "c7: Slurm ended the job of the rebooted node (--no-requeue): node failure" "$st" NODE_FAIL
	is "c7: no hold left on node2, its exporter never started since the boot" \
		"$(view node2); $(unit_jobs node2)" "$IDLE; "
	is "c7: node1's hold untouched, same exporter" "$(view node1) pid=$(unit_pid node1)" \
		"$(held_while node1 "$a") pid=$pid1"
	if [ "$(usable node2)" != usable ]; then
		on ctl ct scontrol update nodename=node2 state=resume
	fi
	on ctl wait_until 60 "node2 usable" node_usable node2
	is "c7: node2 usable again" "$(usable node2)" usable
	release_all c7a
	wait_done "$a"
	is "c7: job on node1 completed" "$(jstate "$a")" COMPLETED
	is "c7: both nodes idle" "$(view node1); $(view node2)" "$IDLE; $IDLE"
}

# c9: a compute node without the plugin in an opted-in cluster.
cs_node_without_plugin() {
	local a b
	ctl_submit_pkg on
	cl_remove node2 slurm-spank-ebpf-compute slurm-spank-ebpf || bail "removing the plugin from node2 failed"
	cl_restart_slurmd node2 || bail "slurmd did not restart on node2 without the plugin"
	cl_mark
	a=$(sb c9a -N2 --ebpf --wrap "$N2_STEPS c9a") || { is "c9: sbatch -N2 --ebpf accepted" no yes; return; }
	b=$(sb c9b --ebpf -w node2 /usr/local/bin/cl-payload c9b) || { is "c9: sbatch -w node2 --ebpf accepted" no yes; return; }
	wait_started_on c9a node1 node2
	wait_started_on c9b node2
	is "c9: node1 (plugin) holds the 2-node job" "$(view node1)" "$(held_while node1 "$a")"
	is "c9: node2 (no plugin) runs both jobs, no exporter" "$(view node2)" "$IDLE"
	release_all c9a
	release_all c9b
	wait_done "$a"
	wait_done "$b"
	is "c9: both jobs completed" "$(jstate "$a") $(jstate "$b")" "COMPLETED COMPLETED"
	is "c9: node1: one start, one stop; node2: none" "$(unit_jobs node1); $(unit_jobs node2)" "start stop; "
	is "c9: node2 usable" "$(usable node2)" usable
	is "c9: node1 idle" "$(view node1)" "$IDLE"
	cl_install node2 slurm-spank-ebpf slurm-spank-ebpf-compute || bail "reinstalling on node2 failed"
	cl_restart_slurmd node2 || bail "slurmd did not restart on node2"
}

# c8: configless. slurmctld serves the configuration
# (SlurmctldParameters=enable_configless); the nodes have no slurm.conf and
# run slurmd --conf-server. What slurmd receives is in its cache
# (/run/slurm/conf): the controller's plugstack.conf, whose include line is
# then resolved on the node, where the -compute package's drop-in is. The
# node's own plugstack.conf is not read: node1's is emptied to show it.
cs_configless() {
	local h cache dropin=/etc/systemd/system/slurmd.service.d/configless.conf
	ctl_submit_pkg on
	CL_CONF_EXTRA="SlurmctldParameters=enable_configless" cl_slurm_conf_to "${CL_ROOT[ctl]}"
	on ctl ct systemctl restart slurmctld || bail "slurmctld did not restart with enable_configless"
	for h in $CL_NODES; do
		rm -f "${CL_ROOT[$h]}/etc/slurm/slurm.conf"
		mkdir -p "${CL_ROOT[$h]}${dropin%/*}"
		# Debian's slurmd unit (22.05) does not start without slurm.conf.
		printf '[Unit]\nConditionPathExists=\n' >"${CL_ROOT[$h]}$dropin"
		echo "SLURMD_OPTIONS=\"--conf-server ctl:$SYS_CTLD_PORT\"" >"${CL_ROOT[$h]}/etc/default/slurmd"
		on "$h" ct systemctl daemon-reload
	done
	cp "${CL_ROOT[node1]}/etc/slurm/plugstack.conf" "$RUN/plugstack.conf.node1"
	echo "# emptied by tests/cluster: configless slurmd must not read this file" \
		>"${CL_ROOT[node1]}/etc/slurm/plugstack.conf"
	cl_mark
	cl_restart_slurmd $CL_NODES || bail "slurmd did not start configless"
	for h in $CL_NODES; do
		is "c8: $h: no slurm.conf of its own, slurmd's cache has ctl's" \
			"$(on "$h" ct sh -c 'test -e /etc/slurm/slurm.conf && echo local; cmp -s /run/slurm/conf/slurm.conf - && echo cached' \
				<"${CL_ROOT[ctl]}/etc/slurm/slurm.conf")" cached
		cache=$(on "$h" ct readlink -f /run/slurm/conf)
		diag "c8: $h: what slurmctld sent ($cache): $(on "$h" ct ls -A "$cache" | tr '\n' ' ')"
		is "c8: $h: it sent plugstack.conf, the controller's, with its include line" \
			"$(on "$h" ct cat "$cache/plugstack.conf" 2>&1)" "$(cat "${CL_ROOT[ctl]}/etc/slurm/plugstack.conf")"
		is "c8: $h: it sent neither the drop-in nor the plugin" \
			"$(on "$h" ct ls -A "$cache" | grep -E 'plugstack\.conf\.d|spank_ebpf' )" ""
		like "c8: $h: slurmd loaded the plugin through the node's own drop-in" \
			"$(on "$h" slurmd_log_since "${CL_MARK[$h]}")" \
			'spank_ebpf: slurmd: version [0-9.]+ loaded: mode=opt-in'
	done
	n2_job c8 configless --ebpf
	# Back to configuration files on every host.
	cl_slurm_conf_to "${CL_ROOT[ctl]}"
	on ctl ct systemctl restart slurmctld || bail "slurmctld did not restart"
	cp "$RUN/plugstack.conf.node1" "${CL_ROOT[node1]}/etc/slurm/plugstack.conf"
	for h in $CL_NODES; do
		rm -f "${CL_ROOT[$h]}$dropin"
		cp "$ROOTFS/etc/default/slurmd" "${CL_ROOT[$h]}/etc/default/slurmd"
		cl_slurm_conf_to "${CL_ROOT[$h]}"
		on "$h" ct systemctl daemon-reload
	done
	cl_restart_slurmd $CL_NODES || bail "slurmd did not restart with slurm.conf"
}

# c10: cloudflare's ebpf_exporter on both nodes (tests/system/real.sh:
# the cached binary, biolatency and syscalls, the packages' example unit):
# a 2-node --ebpf job starts it on each node, each node's /metrics serves
# both configs, each node's exporter process holds exactly the programs
# its own metrics name, none of them the other node's (one kernel for
# both); after the job both are idle (programs unloaded) and their ports
# refuse. The stand-in comes back after.
. "${srcdir:-.}/tests/system/real.sh"

_cs_real_teardown() {
	local h
	for h in $CL_NODES; do
		install -m 0644 "$SYS_FILES/ebpf_exporter.service" "${CL_ROOT[$h]}/etc/systemd/system/$SYS_UNIT"
		on "$h" ct systemctl daemon-reload
		on "$h" ct systemctl reset-failed "$SYS_UNIT" 2>/dev/null
	done
	SYS_PROG_TYPES=7 SYS_PROG_KINDS=perf_event SYS_SAMPLES=ebpf_standin_cpu_samples_total
}

cs_real() {
	local h cfg ids1 ids2 m seen
	_real_have || return 0
	ctl_submit_pkg on
	for h in $CL_NODES; do
		on "$h" real_setup
		is "c10: $h: the unit is the packages' example, as installed" \
			"$(on "$h" ct cmp "$SYS_EXAMPLE_UNIT" "/etc/systemd/system/$SYS_UNIT" 2>&1 && echo same)" same
	done
	cl_mark
	J=$(sb c10 -N2 --ebpf --wrap "$N2_STEPS c10") || { is "c10: sbatch -N2 --ebpf accepted" no yes; _cs_real_teardown; return; }
	wait_started_on c10 node1 node2
	for h in $CL_NODES; do
		is "c10: $h: exporter active as the payload started" "$(unit_at_start "$h" c10)" active
		seen=$(view "$h")
		diag "c10: $h, job $J running: $seen"
		like "c10: $h: holds the job, active" "$seen" "^held=\{$J\} active=active progs=[1-9]"
		m=$(on "$h" metrics)
		for cfg in $SYS_REAL_CONFIGS; do
			like "c10: $h: /metrics: ebpf_exporter_enabled_configs{name=\"$cfg\"} 1" "$m" \
				"^ebpf_exporter_enabled_configs\{name=\"$cfg\"\} 1$"
		done
		is "c10: $h: its process holds exactly the programs its metrics name" \
			"$(on "$h" fd_prog_ids)" "$(on "$h" metric_prog_ids)"
	done
	ids1=$(on node1 fd_prog_ids)
	ids2=$(on node2 fd_prog_ids)
	diag "c10: programs: node1 $ids1; node2 $ids2"
	is "c10: no program is held by both nodes' exporters" \
		"$(printf '%s\n' $ids1 $ids2 | sort -n | uniq -d | tr '\n' ' ')" ""
	release_all c10
	wait_done "$J"
	is "c10: job completed" "$(jstate "$J")" COMPLETED
	for h in $CL_NODES; do
		is "c10: after the job: $h idle (programs unloaded); one start, one stop" \
			"$(view "$h"); $(unit_jobs "$h")" "$IDLE; start stop"
		is "c10: after the job: $h's port refuses" "$(on "$h" port_state)" refused
	done
	_cs_real_teardown
}

# c11: probe sets on the cluster, with the real exporter and the probes
# package: the sets file (tests/system/real.sh's io and sched) on the
# nodes and on the submit host, as configuration management puts it. An
# unknown set is refused on ctl; a 2-node sbatch --ebpf=io job starts the
# io set's instance (spank-ebpf-exporter@io, serving spank-io) on both
# nodes and no other set's; both stop after the job.
cs_real_sets() {
	local h out
	_real_have || return 0
	ctl_submit_pkg on
	for h in $CL_NODES; do
		cl_install "$h" slurm-spank-ebpf-probes || bail "installing the probes package on $h failed"
		on "$h" real_setup
	done
	for h in $CL_HOSTS; do
		_real_sets_file >"${CL_ROOT[$h]}$SYS_SETS_FILE"
		chmod 0644 "${CL_ROOT[$h]}$SYS_SETS_FILE"
		on "$h" plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	done
	cl_restart_slurmd $CL_NODES || bail "slurmd did not restart with sets="
	out=$(sb c11-bad -N2 --ebpf=iox --wrap true 2>&1; cat "$SUBMIT_ERR")
	like "c11: ctl: sbatch --ebpf=iox refused on the submit host, the allowed sets named" "$out" \
		'unknown probe set "iox"; allowed: io, sched'
	cl_mark
	J=$(sb c11 -N2 --ebpf=io --wrap "$N2_STEPS c11") || { is "c11: sbatch -N2 --ebpf=io accepted" no yes; return; }
	wait_started_on c11 node1 node2
	for h in $CL_NODES; do
		is "c11: $h: io's instance active, sched's not started" \
			"$(on "$h" settled_unit_state spank-ebpf-exporter@io.service) $(on "$h" settled_unit_state spank-ebpf-exporter@sched.service)" \
			"active inactive"
		is "c11: $h: io's exporter serves spank-io only" "$(on "$h" set_configs 941)" spank-io
	done
	release_all c11
	wait_done "$J"
	is "c11: job completed" "$(jstate "$J")" COMPLETED
	for h in $CL_NODES; do
		is "c11: after the job: $h: io's instance stopped; started once, stopped once" \
			"$(on "$h" settled_unit_state spank-ebpf-exporter@io.service); $(on "$h" unit_jobs_since "${CL_MARK[$h]}" spank-ebpf-exporter@io.service)" \
			"inactive; start stop"
	done
	for h in $CL_HOSTS; do
		on "$h" plugin_args mode=opt-in
		rm -f "${CL_ROOT[$h]}$SYS_SETS_FILE"
	done
	cl_restart_slurmd $CL_NODES || bail "slurmd did not restart without sets="
	_cs_real_teardown
}

# The scenarios in their order, and their short names (c1 ... c11); a
# release's script adds its own in CL_MORE_SCENARIOS (c11 runs on one:
# the system suites check probe sets on every release).
CL_SCENARIOS="submit_host always two_nodes independent salloc_srun slurmd_restart reboot node_without_plugin configless real"
declare -gA CL_SCENARIO_OF=([c1]=submit_host [c2]=always [c3]=two_nodes [c4]=independent
	[c5]=salloc_srun [c6]=slurmd_restart [c7]=reboot [c8]=configless [c9]=node_without_plugin [c10]=real
	[c11]=real_sets)

# cl_main SUITE: the whole run. CLUSTER_SCENARIOS (c1 ... c11 or names
# without cs_, "none" for none) picks a subset by hand.
cl_main() {
	local s t
	cl_setup "$1"
	sys_cache
	sys_tarball
	cl_up
	cl_install_payload
	for h in $CL_NODES; do
		cl_install "$h" slurm-spank-ebpf slurm-spank-ebpf-compute || bail "installing the compute role on $h failed"
	done
	cl_mark
	cl_start
	diag "$SUITE: cluster up after $(sys_elapsed) s"
	cs_installed
	[ "${CLUSTER_SCENARIOS:-}" != none ] || ctl_submit_pkg on
	for s in ${CLUSTER_SCENARIOS:-$CL_SCENARIOS ${CL_MORE_SCENARIOS:-}}; do
		[ "$s" != none ] || continue
		s=${CL_SCENARIO_OF[$s]:-$s}
		t=$(date +%s)
		"cs_$s"
		diag "$SUITE: cs_$s took $(($(date +%s) - t)) s (total $(sys_elapsed) s)"
		wait_until 30 "every node idle after cs_$s" all_idle ||
			is "after cs_$s: every node idle" "$(view node1); $(view node2)" "$IDLE; $IDLE"
	done
	[ -z "${CLUSTER_HOLD:-}" ] || cl_hold
	cl_finish
}
