# System scenarios with cloudflare's ebpf_exporter itself (sourced after
# scenarios.sh): the binary tests/exporter/build.sh built and cached,
# installed where the packages' example unit looks for it, the biolatency
# and syscalls configs in /etc/ebpf_exporter, and the example unit the base
# package ships, copied to /etc/systemd/system as an admin would. The
# stand-in stays for the scenarios that need an exporter that fails,
# hangs or dies on purpose. Each scenario puts the stand-in back, with the
# plugin line as the package ships it, no job and the unit inactive.
#
# The exporter's result directory: SYSTEM_EXPORTER_DIR, by default
# build.sh's cache for its pinned version and recipe. Missing, it skips
# these scenarios by hand and fails them in CI (CI=true), where .ci/run
# builds it ahead.

SYS_EXPORTER_DIR=${SYSTEM_EXPORTER_DIR:-$SYS_CACHE/exporter/$(cat "${BASH_SOURCE[0]%/*}/../../packaging/ebpf-exporter/VERSION")-r1}
# Where the packages' example unit and the sets' default run it: where
# the ebpf-exporter package puts it (debian/rules' --with-ebpf-exporter).
# The containers have the test's provider of ebpf-exporter-binary
# (packages.sh) rather than that package: the binary is build.sh's.
SYS_EXPORTER_PATH=/usr/bin/ebpf_exporter
SYS_EXAMPLE_UNIT=/usr/share/doc/slurm-spank-ebpf/examples/ebpf_exporter.service
SYS_EXPORTER_CONFDIR=/etc/ebpf_exporter
SYS_REAL_CONFIGS="biolatency syscalls"

# _real_have: the cached exporter is there and sound (build.sh verifies
# its stamp's checksums and exits at once when it is). Otherwise a failed
# point in CI, a skipped one by hand; returns 1 either way.
_real_have() {
	local out
	# build.sh checks the cache (or waits for a build in progress, as CI's
	# background one, on its lock); in CI it builds what is missing.
	if { [ -f "$SYS_EXPORTER_DIR/stamp" ] || [ -n "${CI:-}" ]; } && [ -z "${SYSTEM_EXPORTER_DIR:-}" ]; then
		out=$(EXPORTER_CACHE=$SYS_CACHE/exporter "$SYS_TOP/tests/exporter/build.sh" 2>&1 | tail -n 1)
		case $out in
		"ebpf_exporter=$SYS_EXPORTER_DIR/bin/ebpf_exporter configs=$SYS_EXPORTER_DIR/configs") return 0 ;;
		esac
		diag "real: tests/exporter/build.sh: $out"
	elif [ -x "$SYS_EXPORTER_DIR/bin/ebpf_exporter" ]; then
		return 0
	fi
	if [ -n "${CI:-}" ]; then
		is "real: ebpf_exporter built and cached in $SYS_EXPORTER_DIR (.ci/run builds it)" missing cached
	else
		skip_point "real: ebpf_exporter not built (run tests/exporter/build.sh as root)"
	fi
	return 1
}

# real_setup: the real exporter in place of the stand-in. real_teardown:
# the stand-in back.
real_setup() {
	local c
	install -m 0755 "$SYS_EXPORTER_DIR/bin/ebpf_exporter" "$NODE_ROOT$SYS_EXPORTER_PATH"
	mkdir -p "$NODE_ROOT$SYS_EXPORTER_CONFDIR"
	for c in $SYS_REAL_CONFIGS; do
		install -m 0644 "$SYS_EXPORTER_DIR/configs/$c.yaml" "$SYS_EXPORTER_DIR/configs/$c.bpf.o" \
			"$NODE_ROOT$SYS_EXPORTER_CONFDIR/"
	done
	ct cp "$SYS_EXAMPLE_UNIT" "/etc/systemd/system/$SYS_UNIT"
	ct systemctl daemon-reload
	ct systemctl reset-failed "$SYS_UNIT" 2>/dev/null
	install -m 0755 "$SYS_FILES/work-payload" "$NODE_ROOT/usr/local/bin/sse-work"
	# raw_tp (raw_tracepoint, 17) and tp_btf (tracing, 26) programs.
	SYS_PROG_TYPES='17|26' SYS_PROG_KINDS='raw_tracepoint|tracing'
	SYS_SAMPLES=ebpf_exporter_syscalls_total
}

real_teardown() {
	install -m 0644 "$SYS_FILES/ebpf_exporter.service" "$NODE_ROOT/etc/systemd/system/$SYS_UNIT"
	rm -f "$NODE_ROOT/etc/default/ebpf_exporter"
	ct systemctl daemon-reload
	ct systemctl reset-failed "$SYS_UNIT" 2>/dev/null
	SYS_PROG_TYPES=7 SYS_PROG_KINDS=perf_event SYS_SAMPLES=ebpf_standin_cpu_samples_total
	_pace_reset
}

# submit_work NAME [SBATCH ARGS...]: the work payload (files/work-payload):
# what it found at its start in NAME.first, then direct I/O and syscalls
# until NAME.gate.
submit_work() {
	local name=$1
	shift
	submit -J "$name" -o "$JOB_MARKS/$name-%j.out" "$@" /usr/local/bin/sse-work "$name"
}

# What the endpoint's port does: "refused" or "open" (or another error).
port_state() {
	local out
	out=$(ct bash -c "exec 3<>/dev/tcp/127.0.0.1/$SYS_STANDIN_PORT && echo open" 2>&1)
	case $out in
	open) echo open ;;
	*"Connection refused"*) echo refused ;;
	*) echo "$out" ;;
	esac
}

# sample_sum METRIC: the sum of METRIC's samples now ("down" without).
sample_sum() {
	SYS_SAMPLES=$1 metrics_samples
}

# _grew METRIC FROM: METRIC's sum is above FROM.
_grew() {
	SYS_SAMPLES=$1 samples_above "$2"
}

# The program IDs the exporter's process holds (its fdinfo), sorted, one
# line; and those its own ebpf_exporter_ebpf_program_info metric names.
fd_prog_ids() {
	ct sh -c '
		pid=$(systemctl show -p MainPID --value "$1")
		[ "$pid" -gt 0 ] 2>/dev/null || { echo "no main process"; exit 0; }
		for fd in /proc/$pid/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = anon_inode:bpf-prog ] || continue
			sed -n "s/^prog_id:[[:space:]]*//p" "/proc/$pid/fdinfo/${fd##*/}"
		done | sort -n | tr "\n" " "' sh "$SYS_UNIT"
}

metric_prog_ids() {
	metrics | grep '^ebpf_exporter_ebpf_program_info{' | grep -o 'id="[0-9]*"' | tr -dc '0-9\n' |
		sort -n | tr '\n' ' '
}

# _activation_ms: how long systemd took to bring the unit up, READY=1
# included (InactiveExit to ActiveEnter), in ms.
_activation_ms() {
	local a b
	a=$(ct systemctl show -p InactiveExitTimestampMonotonic --value "$SYS_UNIT")
	b=$(ct systemctl show -p ActiveEnterTimestampMonotonic --value "$SYS_UNIT")
	echo $(((b - a) / 1000))
}

# One --ebpf job with the real exporter, start=wait then start=background.
scn_real() {
	local c j b0 s0 ids mids log ms act first seen cfg
	_real_have || return 0
	real_setup
	is "real: the unit is the packages' example, as installed" \
		"$(ct cmp "$SYS_EXAMPLE_UNIT" "/etc/systemd/system/$SYS_UNIT" 2>&1 && echo same)" same
	like "real: it runs $SYS_EXPORTER_PATH" "$(ct systemctl show -p ExecStart --value "$SYS_UNIT")" \
		"path=$SYS_EXPORTER_PATH ;"
	diag "real: $(ct "$SYS_EXPORTER_PATH" --version 2>&1 | head -n 1)"
	is "real: no job: inactive, port refused" "$(is_active); $(port_state)" "inactive; refused"

	c=$(journal_mark)
	j=$(submit_work sreal --ebpf) || { is "real: sbatch --ebpf accepted" no yes; return; }
	wait_started sreal
	first=$(cat "$NODE_ROOT$JOB_MARKS/sreal.first" 2>&1)
	is "real: start=wait: the job's first look finds the unit active and /metrics serving both configs" \
		"$first" "active 2"
	log=$(plugin_log_since "$c")
	ms=$(echo "$log" | sed -n 's/.*ebpf_exporter started in \([0-9]*\) ms.*/\1/p' | head -n 1)
	act=$(_activation_ms)
	diag "real: start=wait: the prolog's start took ${ms:-?} ms; systemd brought the unit up (READY=1) in $act ms"
	ok_if "real: start=wait: the prolog returned only after READY=1 (${ms:-none} ms >= $act ms)" \
		test "${ms:-0}" -ge "$act" -a "$act" -gt 0
	seen=$(observe)
	diag "real: job $j running: $seen"
	is "real: while the job runs: state holds it, unit active" "$(state); $(is_active)" "$(state_of "$j"); active"
	for cfg in $SYS_REAL_CONFIGS; do
		like "real: /metrics: ebpf_exporter_enabled_configs{name=\"$cfg\"} 1" "$(metrics)" \
			"^ebpf_exporter_enabled_configs\{name=\"$cfg\"\} 1$"
	done
	ids=$(fd_prog_ids)
	mids=$(metric_prog_ids)
	diag "real: programs held by the exporter's process: $ids; named by its metrics: $mids"
	ok_if "real: the exporter's process holds eBPF programs ($(progs) of type raw_tracepoint/tracing)" \
		test "$(progs)" -gt 0 2>/dev/null
	is "real: they are exactly the programs its metrics name (ebpf_exporter_ebpf_program_info)" "$ids" "$mids"
	b0=$(sample_sum ebpf_exporter_bio_latency_seconds_count)
	s0=$(sample_sum ebpf_exporter_syscalls_total)
	ok_if "real: biolatency counts the job's direct I/O (bio_latency_seconds_count grows from $b0)" \
		wait_until 30 "bio_latency_seconds_count to grow" _grew ebpf_exporter_bio_latency_seconds_count "${b0/down/0}"
	ok_if "real: syscalls counts the job's system calls (syscalls_total grows from $s0)" \
		wait_until 30 "syscalls_total to grow" _grew ebpf_exporter_syscalls_total "${s0/down/0}"
	release sreal
	wait_job_done "$j"
	is "real: job completed" "$(job_state "$j")" COMPLETED
	seen=$(observe)
	diag "real: after the job: $seen"
	is "real: after the job: state, unit, programs unloaded, endpoint" "$seen" \
		"count=0 active=inactive progs=0 metrics=down"
	is "real: after the job: the port refuses" "$(port_state)" refused
	is "real: one start, one stop (unit journal)" "$(unit_jobs_since "$c")" "start stop"
	is "real: the stop succeeded (no failed state from the exporter's exit)" \
		"$(ct systemctl show -p Result --value "$SYS_UNIT")" success

	plugin_args mode=opt-in start=background
	sys_restart_slurmd || bail "slurmd did not restart with start=background"
	c=$(journal_mark)
	j=$(submit_work sreal-bg --ebpf) || { is "real: sbatch --ebpf accepted" no yes; return; }
	wait_started sreal-bg
	first=$(cat "$NODE_ROOT$JOB_MARKS/sreal-bg.first" 2>&1)
	wait_for 30 "the exporter active" active is_active
	log=$(plugin_log_since "$c")
	ms=$(echo "$log" | sed -n 's/.*start queued in \([0-9]*\) ms.*/\1/p' | head -n 1)
	act=$(_activation_ms)
	diag "real: start=background: the job's first look: $first; the prolog queued the start in ${ms:-?} ms; systemd took $act ms to READY=1"
	ok_if "real: start=background: the prolog returned before READY=1 (${ms:-none} ms < $act ms)" \
		test "${ms:-99999}" -lt "$act"
	like "real: start=background: /metrics serves both configs later" "$(metrics | grep -c '^ebpf_exporter_enabled_configs{.*} 1$')" '^2$'
	release sreal-bg
	wait_job_done "$j"
	is "real: start=background: stopped after the job" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
	real_teardown
}

# _real_fault TAG SAID-RE: with the fault in place, a --ebpf job: the unit
# fails, the job runs and completes, the plugin's lines name the unit and
# carry its first error line (SAID-RE), spank-ebpf status shows the unit
# failed; a second job, the fault still there, tries again, fails again
# and runs; then the fault is undone and a third job starts the exporter
# again. Undo is the function _real_undo_TAG.
_real_fault() {
	local tag=$1 said=$2 c a p b log
	c=$(journal_mark)
	a=$(submit_work "sf-$tag-a" --ebpf) || { is "fault $tag: sbatch --ebpf accepted" no yes; return; }
	wait_started "sf-$tag-a"
	# The prolog's last line: its lines are all in the log.
	wait_logged "$c" "prolog job $a: the job is not affected"
	is "fault $tag: the job runs, the state holds it, the unit failed" \
		"$(job_state "$a"); $(state); $(settled_unit_state)" "RUNNING; $(state_of "$a"); failed"
	log=$(plugin_log_since "$c")
	diag "fault $tag: plugin lines: $(echo "$log" | tr '\n' '|')"
	like "fault $tag: the plugin's line names the unit" "$log" \
		"spank_ebpf: prolog job $a: failed to start $SYS_UNIT: "
	like "fault $tag: ... and carries the unit's first error line" "$log" \
		"spank_ebpf: prolog job $a: ebpf_exporter said: .*$said"
	like "fault $tag: spank-ebpf status shows the unit failed" \
		"$(ct "$SYS_ADMIN_CMD" status 2>&1)" "unit $SYS_UNIT: failed"
	# While the fault persists, the next job tries again, fails again,
	# and runs all the same.
	p=$(submit_work "sf-$tag-p" --ebpf) || { is "fault $tag: sbatch --ebpf accepted" no yes; return; }
	wait_started "sf-$tag-p"
	wait_logged "$c" "prolog job $p: the job is not affected"
	log=$(plugin_log_since "$c")
	like "fault $tag: while it persists, the next job tries again" "$log" \
		"spank_ebpf: prolog job $p: ebpf_exporter(\.service)? is not running although 1 other jobs? holds? it; starting it again"
	like "fault $tag: ... fails again, saying so" "$log" "spank_ebpf: prolog job $p: failed to start $SYS_UNIT: "
	is "fault $tag: ... and runs, held, the unit failed" \
		"$(job_state "$p"); $(state); $(settled_unit_state)" "RUNNING; $(state_of "$a" "$p"); failed"
	"_real_undo_$tag"
	ct systemctl daemon-reload
	b=$(submit_work "sf-$tag-b" --ebpf) || { is "fault $tag: sbatch --ebpf accepted" no yes; return; }
	wait_started "sf-$tag-b"
	wait_logged "$c" "prolog job $b: .*starting it again"
	like "fault $tag: once undone, the next job tried again" "$(plugin_log_since "$c")" \
		"spank_ebpf: prolog job $b: ebpf_exporter(\.service)? is not running although 2 other jobs hold it; starting it again"
	is "fault $tag: ... and the exporter runs, with programs" \
		"$(state); $(is_active); $(test "$(progs)" -gt 0 2>/dev/null && echo progs)" \
		"$(state_of "$a" "$p" "$b"); active; progs"
	release "sf-$tag-a"
	release "sf-$tag-p"
	release "sf-$tag-b"
	wait_job_done "$a"
	wait_job_done "$p"
	wait_job_done "$b"
	is "fault $tag: the three jobs completed, node usable" \
		"$(job_state "$a") $(job_state "$p") $(job_state "$b") $(node_usability)" "COMPLETED COMPLETED COMPLETED usable"
	is "fault $tag: stopped after them" "$(observe)" "count=0 active=inactive progs=0 metrics=down"
	ct systemctl reset-failed "$SYS_UNIT" 2>/dev/null
}

_real_undo_attach() {
	rm -f "$NODE_ROOT/etc/default/ebpf_exporter"
}

_real_undo_binary() {
	mv "$NODE_ROOT$SYS_EXPORTER_PATH.away" "$NODE_ROOT$SYS_EXPORTER_PATH"
}

_real_undo_confdir() {
	mv "$NODE_ROOT$SYS_EXPORTER_CONFDIR.away" "$NODE_ROOT$SYS_EXPORTER_CONFDIR"
}

# Faults with the real exporter: a config that cannot attach (the
# sse-missing-attach fixture, refused by --config.strict), a missing
# binary, a missing config directory.
scn_real_faults() {
	local c
	_real_have || return 0
	real_setup
	for c in sse-missing-attach; do
		install -m 0644 "$SYS_EXPORTER_DIR/configs/$c.yaml" "$SYS_EXPORTER_DIR/configs/$c.bpf.o" \
			"$NODE_ROOT$SYS_EXPORTER_CONFDIR/"
	done
	echo "EBPF_EXPORTER_CONFIGS=biolatency,sse-missing-attach" >"$NODE_ROOT/etc/default/ebpf_exporter"
	_real_fault attach "(failed to attach to raw tracepoint 'sse_no_such_tracepoint'|Missed attachments)"
	mv "$NODE_ROOT$SYS_EXPORTER_PATH" "$NODE_ROOT$SYS_EXPORTER_PATH.away"
	_real_fault binary "$SYS_EXPORTER_PATH"
	mv "$NODE_ROOT$SYS_EXPORTER_CONFDIR" "$NODE_ROOT$SYS_EXPORTER_CONFDIR.away"
	_real_fault confdir "$SYS_EXPORTER_CONFDIR"
	real_teardown
}

# The sets file scn_real_sets (and scn_job_metrics) declare: two of the
# probes package's configs as two sets, each on its own port, no linger;
# node_exporter's textfile directory TEXTFILE (default none).
SYS_SETS_FILE=/etc/slurm/spank_ebpf_sets.conf
_real_sets_file() {
	cat <<EOT
default = io
textfile = ${1:-none}

[io]
description = Block I/O latency and bytes of the job
configs = spank-io
listen = 127.0.0.1:941
linger = 0

[sched]
description = Time the job waited for a CPU
configs = spank-sched
listen = 127.0.0.1:942
linger = 0

[sched-detail]
description = Run-queue latency, and behind whom (about +10% on a job that only switches)
configs = spank-sched-detail
listen = 127.0.0.1:944
linger = 0
EOT
}

# set_configs PORT: the configs the exporter on PORT has enabled, sorted,
# space-separated ("down" when nothing answers).
set_configs() {
	local m
	m=$(SYS_STANDIN_PORT=$1 metrics)
	[ -n "$m" ] || { echo down; return 0; }
	printf '%s\n' "$m" | sed -n 's/^ebpf_exporter_enabled_configs{name="\([^"]*\)"} 1$/\1/p' |
		sort | tr '\n' ' ' | sed 's/ $//'
}

# inst_states: "io=STATE sched=STATE", each settled first.
inst_states() {
	echo "io=$(settled_unit_state spank-ebpf-exporter@io.service) sched=$(settled_unit_state spank-ebpf-exporter@sched.service)"
}

# Probe sets with the real exporter and the probes package's configs, run
# by the compute package's template unit (spank-ebpf exporter SET, then
# spank-ebpf admit SET): a job asking --ebpf=io,sched starts both
# instances, each serving only its own set's config; a job asking
# --ebpf=sched beside it joins the running sched instance (same process);
# the first job's end stops io only, the second's sched.
scn_real_sets() {
	local c a b pid log
	_real_have || return 0
	real_setup
	_real_sets_file >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	like "real sets: spank-ebpf check-config accepts the sets file" \
		"$(ct "$SYS_ADMIN_CMD" check-config --sets "$SYS_SETS_FILE" 2>&1)" 'probe sets: io, sched'
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	sys_restart_slurmd || bail "slurmd did not restart with sets="
	c=$(journal_mark)
	a=$(submit_work rsa --ebpf=io,sched) || { is "real sets: sbatch --ebpf=io,sched accepted" no yes; return; }
	wait_started rsa
	is "real sets: job A (io,sched) runs with both instances up" "$(job_state "$a"); $(inst_states)" \
		"RUNNING; io=active sched=active"
	is "real sets: io's exporter (127.0.0.1:941) serves only spank-io" "$(set_configs 941)" spank-io
	is "real sets: sched's exporter (127.0.0.1:942) serves only spank-sched" "$(set_configs 942)" spank-sched
	is "real sets: no other instance" \
		"$(ct systemctl list-units --no-legend --plain 'spank-ebpf-exporter@*' | awk '{print $1}' | sort | tr '\n' ' ')" \
		"spank-ebpf-exporter@io.service spank-ebpf-exporter@sched.service "
	like "real sets: the instance runs the real exporter as its main process" \
		"$(ct sh -c 'readlink /proc/$(systemctl show -p MainPID --value spank-ebpf-exporter@io.service)/exe' 2>&1)" \
		"^$SYS_EXPORTER_PATH\$"
	pid=$(unit_main_pid spank-ebpf-exporter@sched.service)
	b=$(submit_work rsb --ebpf=sched) || { is "real sets: sbatch --ebpf=sched accepted" no yes; return; }
	wait_started rsb
	is "real sets: job B (sched) joins: sched's process unchanged, io still up" \
		"$(unit_main_pid spank-ebpf-exporter@sched.service); $(inst_states)" "$pid; io=active sched=active"
	diag "real sets: spank-ebpf status: $(ct "$SYS_ADMIN_CMD" status 2>&1 | tr '\n' '|')"
	release rsa
	wait_job_done "$a"
	is "real sets: after job A: io stopped, sched still up in the same process" \
		"$(inst_states); $(unit_main_pid spank-ebpf-exporter@sched.service)" "io=inactive sched=active; $pid"
	is "real sets: io's port refuses, sched's serves spank-sched" "$(set_configs 941); $(set_configs 942)" \
		"down; spank-sched"
	release rsb
	wait_job_done "$b"
	is "real sets: after job B: both stopped, both ports refuse" \
		"$(inst_states); $(set_configs 941); $(set_configs 942)" "io=inactive sched=inactive; down; down"
	is "real sets: io started once and stopped once" \
		"$(unit_jobs_since "$c" spank-ebpf-exporter@io.service)" "start stop"
	is "real sets: sched started once and stopped once, across both jobs" \
		"$(unit_jobs_since "$c" spank-ebpf-exporter@sched.service)" "start stop"
	is "real sets: both stops succeeded" \
		"$(ct systemctl show -p Result --value spank-ebpf-exporter@io.service) $(ct systemctl show -p Result --value spank-ebpf-exporter@sched.service)" \
		"success success"
	is "real sets: both jobs completed" "$(job_state "$a") $(job_state "$b")" "COMPLETED COMPLETED"
	log=$(plugin_log_since "$c")
	diag "real sets: plugin lines: $(echo "$log" | tr '\n' '|')"
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart without sets="
	rm -f "$NODE_ROOT$SYS_SETS_FILE"
	real_teardown
}
