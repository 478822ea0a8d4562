# The exporter as a container's systemd and kernel see it: the stand-in
# ebpf_exporter.service of tests/system/files (bpftrace loading two
# perf_event programs, Prometheus text on 127.0.0.1:9435), its unit
# state, its eBPF programs, its endpoint. Through ct
# (tests/lib/container.sh). Kept apart from the rest: it changes with the
# exporter the suites run.

SYS_UNIT=ebpf_exporter.service
SYS_STANDIN_PORT=9435
# What unit_progs counts and metrics_samples reads: the stand-in's by
# default; tests/system/real.sh sets them for the real exporter.
#   SYS_PROG_TYPES  prog_type numbers of /proc/PID/fdinfo, |-separated
#                   (7 perf_event; 17 raw_tracepoint, 26 tracing)
#   SYS_PROG_KINDS  the same types as bpftool prog show names them
#   SYS_SAMPLES     the metric whose samples metrics_samples sums
SYS_PROG_TYPES=7
SYS_PROG_KINDS=perf_event
SYS_SAMPLES=ebpf_standin_cpu_samples_total

is_active() {
	ct systemctl is-active "$SYS_UNIT" 2>/dev/null
}

# unit_main_pid [UNIT]: its main process (0 when none).
unit_main_pid() {
	ct systemctl show -p MainPID --value "${1:-$SYS_UNIT}"
}

# A state systemd is moving the unit out of: reading it is no answer yet
# (a stop that takes 145 ms reads "deactivating" meanwhile).
_exporter_transition() {
	case $1 in
	activating | deactivating | reloading | refreshing) return 0 ;;
	esac
	return 1
}

# unit_settled [UNIT]: UNIT (default the exporter's) is in a state that
# lasts. settled_unit_state [UNIT]: that state, once it lasts, waiting
# SETTLE_SECONDS (30) at the most; after that the transition itself, for
# the check that reads it to fail on.
unit_settled() {
	! _exporter_transition "$(ct systemctl is-active "${1:-$SYS_UNIT}" 2>/dev/null)"
}

settled_unit_state() {
	wait_until "${SETTLE_SECONDS:-30}" "${1:-$SYS_UNIT} out of a transition" unit_settled "${1:-}"
	ct systemctl is-active "${1:-$SYS_UNIT}" 2>/dev/null
}

# unit_stopped: the exporter's unit is settled and not active (inactive,
# failed): what waits for an asynchronous stop poll.
unit_stopped() {
	local st
	st=$(is_active)
	[ "$st" != active ] && ! _exporter_transition "$st"
}

# exporter_settle: until the unit is settled and, unless it is active, the
# programs its process held are unloaded too (the kernel frees them after
# the process is gone); SETTLE_SECONDS (30) at the most. The readings
# that follow show whatever did not settle.
exporter_settle() {
	wait_until "${SETTLE_SECONDS:-30}" "the exporter's unit and programs to settle" _exporter_settled
}

_exporter_settled() {
	local st
	st=$(is_active)
	_exporter_transition "$st" && return 1
	[ "$st" = active ] || [ "$(unit_progs)" = 0 ]
}

# unit_progs (and progs, the same): eBPF programs of the exporter's types
# (SYS_PROG_TYPES; the stand-in's: perf_event, prog_type 7) attributed to this host's exporter. eBPF
# programs are kernel-global, so a machine-wide count (bpftool prog show)
# also counts other containers' programs; this one never does:
# - the unit has a main process: the programs it holds, by its descriptors
#   (/proc/PID/fd links to anon_inode:bpf-prog, prog_type and prog_id in
#   /proc/PID/fdinfo); their IDs are recorded in the host's /run;
# - it has none: how many of the recorded IDs the kernel still has loaded
#   (bpftool prog show id N), so "0 after the job" means the programs were
#   unloaded, not merely that the process is gone.
# A line starting with "error:" when it cannot tell (never a number then).
unit_progs() {
	ct sh -c '
		ids=/run/sse-test-prog-ids
		pid=$(systemctl show -p MainPID --value "$1" 2>/dev/null)
		case $pid in
		"") echo "error: systemctl show -p MainPID gave nothing"; exit 0 ;;
		0)
			n=0 left=
			for id in $(cat "$ids" 2>/dev/null); do
				out=$(bpftool prog show id "$id" 2>&1)
				if printf "%s\n" "$out" | grep -Eq "^$id: ($3) "; then
					n=$((n + 1)) left="$left $id"; continue
				fi
				case $out in
				*"No such file"* | *"can'"'"'t get prog by id"* | "$id: "*) ;;
				*) echo "error: bpftool prog show id $id: $out"; exit 0 ;;
				esac
			done
			printf "%s\n" $left >"$ids"
			echo "$n"
			exit 0 ;;
		esac
		ls "/proc/$pid/fd" >/dev/null 2>&1 || { echo "error: /proc/$pid/fd unreadable"; exit 0; }
		n=0 seen=
		for fd in /proc/$pid/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = anon_inode:bpf-prog ] || continue
			info=$(cat "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null) ||
				{ echo "error: /proc/$pid/fdinfo/${fd##*/} unreadable"; exit 0; }
			case $info in
			*prog_type:*prog_id:*) ;;
			*) echo "error: no prog_type/prog_id in /proc/$pid/fdinfo/${fd##*/}"; exit 0 ;;
			esac
			printf "%s\n" "$info" | grep -Eq "^prog_type:[[:space:]]+($2)$" || continue
			n=$((n + 1))
			seen="$seen $(printf "%s\n" "$info" | sed -n "s/^prog_id:[[:space:]]*//p")"
		done
		{ cat "$ids" 2>/dev/null; printf "%s\n" $seen; } | sort -un | grep . >"$ids.new"
		mv "$ids.new" "$ids"
		echo "$n"' sh "$SYS_UNIT" "$SYS_PROG_TYPES" "$SYS_PROG_KINDS" 2>&1 || echo "error: could not enter the container"
}

progs() {
	unit_progs
}

# The endpoint's answer (body only), empty when nothing listens; another
# node's with SYS_STANDIN_HOST (tests/vm/guest/two-nodes.sh reads node2's).
metrics() {
	ct bash -c "exec 3<>/dev/tcp/${SYS_STANDIN_HOST:-127.0.0.1}/$SYS_STANDIN_PORT && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3" 2>/dev/null |
		sed '1,/^\r*$/d'
}

# The sum of SYS_SAMPLES's samples (every label set), or "down" when
# nothing answers (or the metric is not there).
metrics_samples() {
	metrics | awk -v m="$SYS_SAMPLES" '
		$1 == m || index($1, m "{") == 1 { s += $NF; n++ }
		END { if (n) printf "%.0f\n", s; else print "down" }'
}

# metric_sum PORT METRIC LABELS: the sum of METRIC's samples on PORT's
# exporter whose labels include LABELS (e.g. 'jobid="5",operation="write"',
# in the exposition's order: by name), 0 when none, "down" when nothing
# answers on PORT.
metric_sum() {
	SYS_STANDIN_PORT=$1 metrics | awk -v m="$2" -v l="$3" '
		{ seen = 1 }
		index($1, m "{") == 1 && index($1, l) { s += $NF }
		END { if (!seen) print "down"; else printf "%.0f\n", s }'
}

# metric_series PORT JOB: how many series of PORT's exporter carry jobid JOB.
metric_series() {
	SYS_STANDIN_PORT=$1 metrics | grep -c "jobid=\"$2\""
}

# metric_at_least PORT METRIC LABELS N: metric_sum is N or more.
metric_at_least() {
	local v
	v=$(metric_sum "$1" "$2" "$3")
	[ "$v" != down ] && [ "$v" -ge "$4" ]
}

# metric_no_series PORT JOB: no series of JOB on PORT.
metric_no_series() {
	[ "$(metric_series "$1" "$2")" -eq 0 ]
}

# samples_above FROM: SYS_SAMPLES's sum is above FROM (for wait_until:
# an exporter's counter moves only when it next reads its maps).
samples_above() {
	local v
	v=$(metrics_samples)
	[ "$v" != down ] && [ "$v" -gt "$1" ]
}

# One line: state count, unit state, programs, endpoint; settled first
# (exporter_settle), as every check of it wants.
observe() {
	exporter_settle
	printf 'count=%s active=%s progs=%s metrics=%s' \
		"$(state_count)" "$(is_active)" "$(progs)" "$(metrics_samples)"
}
