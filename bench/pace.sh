# Part 6 of the benchmarks: the exporter at the pace of real workloads,
# on real systemd, with the stand-in exporter and then cloudflare's
# ebpf_exporter (bench/systemd.sh). Sourced by bench/systemd.sh
# once its container runs (tests/lib/system.sh's helpers, $suite, $out):
#   stream  PACE_JOBS short --ebpf jobs one after the other (a job array
#           throttled to one task at a time): makespan and exporter starts,
#           with no SPANK plugin at all, the null plugin of part 3 (job
#           hooks that return at once: Slurm then starts the next task as
#           soon as the last one's epilog is done), linger=0 and
#           linger=PACE_LINGER
#   first   the first job's prolog on an idle node, start=wait against
#           start=background (PACE_FIRST jobs each)
#   burst   PACE_BURST jobs arriving together on an idle node, PACE_ROUNDS
#           times: every prolog's duration, start=wait and start=background
# Prolog durations are the plugin's own figures ("prolog job N: done in X
# ms", logged at verbose: slurmd runs with SlurmdDebug=verbose here).
# Each line appended to $out: "pace-LABEL-CASE key=value...".

pace_jobs=${PACE_JOBS:-100}
pace_linger=${PACE_LINGER:-60}
pace_first=${PACE_FIRST:-10}
pace_burst=${PACE_BURST:-16}
pace_rounds=${PACE_ROUNDS:-3}

# The null SPANK plugin of part 3 (bench/spank_null.c: job prolog and
# epilog that return at once), built on this host against its Slurm: only
# for a container of the same Debian release (bookworm here).
PACE_NULL_SO=/usr/local/lib/spank_null.so
PACE_NULL_CONF=/etc/slurm/plugstack.conf.d/bench_null.conf

# _pace_plugin none|null|ARGS...: no SPANK plugin at all; the null plugin
# instead of this one; or this one with ARGS. slurmd restarted.
_pace_plugin() {
	local f=$NODE_ROOT$SYS_PLUGIN_CONF
	sed -i -E 's/^#((optional|required)[[:space:]])/\1/' "$f"
	rm -f "$NODE_ROOT$PACE_NULL_CONF"
	case $1 in
	none | null)
		sed -i -E 's/^((optional|required)[[:space:]])/#\1/' "$f"
		if [ "$1" = null ]; then
			install -m 0755 "${top_builddir:-.}/bench/.libs/spank_null.so" "$NODE_ROOT$PACE_NULL_SO" ||
				bail "no bench/.libs/spank_null.so (make check builds it)"
			echo "optional $PACE_NULL_SO" >"$NODE_ROOT$PACE_NULL_CONF"
		fi
		;;
	*) plugin_args "$@" ;;
	esac
	sys_restart_slurmd || bail "slurmd did not restart with plugin line: $*"
}

# Tasks of the stream that ran, by their marker files.
_pace_ran() {
	ls "$NODE_ROOT$JOB_MARKS" | grep -c '^pstream-'
}

# _pace_prologs CURSOR: the prolog durations (ms) logged since CURSOR.
_pace_prologs() {
	plugin_log_since "$1" | sed -n 's/.*spank_ebpf: prolog job [0-9]*: done in \([0-9.]*\) ms.*/\1/p'
}

# _pace_array NAME SPEC SCRIPT [SBATCH ARGS...]: a job array as the test
# user; prints its job ID.
_pace_array() {
	local name=$1 spec=$2 script=$3
	shift 3
	submit -J "$name" --array="$spec" -o /dev/null "$@" --wrap="$script" ||
		bail "sbatch --array=$spec $* failed"
}

pace_stream() {
	local name=$1 c t0 t1 j opt=--ebpf starts stops
	shift
	_pace_plugin "$@"
	case $1 in none | null) opt= ;; esac
	rm -f "$NODE_ROOT$JOB_MARKS"/pstream-*
	c=$(journal_mark)
	t0=$(date +%s.%N)
	j=$(_pace_array pstream "1-$pace_jobs%1" "touch $JOB_MARKS/pstream-\$SLURM_ARRAY_TASK_ID" $opt)
	wait_until 3600 "the stream of $pace_jobs jobs (array $j)" job_gone "$j" ||
		bail "the stream did not finish"
	t1=$(date +%s.%N)
	[ "$(_pace_ran)" -eq "$pace_jobs" ] || bail "stream $name: $(_pace_ran) of $pace_jobs tasks ran"
	starts=$(unit_starts_since "$c")
	wait_until $((pace_linger + 120)) "the exporter stopped after the stream" unit_stopped ||
		bail "the exporter did not stop after the stream"
	stops=$(unit_stops_since "$c")
	diag "pace stream $name: $pace_jobs jobs in $(awk -v a="$t1" -v b="$t0" 'BEGIN {printf "%.1f", a - b}') s, $starts starts, $stops stops"
	echo "pace-$pace_label-stream-$name makespan_s=$(awk -v a="$t1" -v b="$t0" 'BEGIN {printf "%.2f", a - b}') starts=$starts stops=$stops" >>"$out"
}

pace_first_job() {
	local mode=$1 i c j ms
	_pace_plugin mode=opt-in "start=$mode"
	for i in $(seq "$pace_first"); do
		wait_until 60 "an idle node" unit_stopped || bail "the exporter did not stop"
		c=$(journal_mark)
		release "pfirst-$mode-$i" # the payload ends as soon as it starts
		j=$(submit_payload "pfirst-$mode-$i" --ebpf) || bail "sbatch --ebpf failed"
		wait_job_done "$j" 120 || bail "job $j did not finish"
		ms=$(_pace_prologs "$c")
		[ -n "$ms" ] || { show "$(plugin_log_since "$c")"; bail "job $j: no 'prolog job $j: done in' line"; }
		diag "pace first job, start=$mode: job $j prolog $ms ms"
		echo "pace-$pace_label-first-$mode prolog_ms=$ms" >>"$out"
	done
	wait_until 60 "an idle node" unit_stopped || bail "the exporter did not stop"
}

pace_burst_jobs() {
	local mode=$1 r c j ms n
	_pace_plugin mode=opt-in "start=$mode"
	for r in $(seq "$pace_rounds"); do
		wait_until 60 "an idle node" unit_stopped || bail "the exporter did not stop"
		c=$(journal_mark)
		j=$(_pace_array pburst "1-$pace_burst" "sleep 2" --ebpf)
		wait_until 300 "the burst (array $j)" job_gone "$j" || bail "the burst did not finish"
		ms=$(_pace_prologs "$c")
		n=$(printf '%s\n' "$ms" | grep -c .)
		[ "$n" -eq "$pace_burst" ] ||
			{ show "$(plugin_log_since "$c")"; bail "burst $j: $n prolog figures, not $pace_burst"; }
		diag "pace burst, start=$mode, round $r: $(echo $ms)"
		printf "pace-$pace_label-burst-$mode prolog_ms=%s\n" $ms >>"$out"
	done
	wait_until 60 "an idle node" unit_stopped || bail "the exporter did not stop"
}

# PACE_PARTS (default all three) picks among stream, first and burst;
# PACE_LABEL (default the release) names the lines; PACE_BASELINES=no
# leaves out the streams without this plugin (no plugin, null plugin),
# which do not depend on the exporter.
pace_all() {
	local parts=" ${PACE_PARTS:-stream first burst} "
	pace_label=${PACE_LABEL:-$suite}
	echo "pace-$pace_label-config jobs=$pace_jobs linger=$pace_linger first=$pace_first burst=$pace_burst rounds=$pace_rounds" >>"$out"
	case $parts in *" stream "*)
		if [ "${PACE_BASELINES:-yes}" != no ]; then
			pace_stream none none
			pace_stream null null
		fi
		pace_stream linger0 mode=opt-in linger=0
		pace_stream "linger$pace_linger" mode=opt-in "linger=$pace_linger"
		;;
	esac
	case $parts in *" first "*)
		pace_first_job wait
		pace_first_job background
		;;
	esac
	case $parts in *" burst "*)
		pace_burst_jobs wait
		pace_burst_jobs background
		;;
	esac
	_pace_plugin mode=opt-in
}
