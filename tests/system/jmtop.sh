# spank-ebpf top against real jobs (sourced after jobmetrics.sh, whose
# Prometheus, node_exporter and job cgroups it uses): three --ebpf=io jobs
# of known, different loads (sse-work's blocks a round: 64, 16 and 4),
# two of the test user's and one of another user's; top's rows in the
# order of those loads, on the full screen (read with tmux, on the host,
# whose pane enters the container), in --once and in --json; the other
# user's view without the test user's jobs.

JT_LOGIN=/etc/slurm/login-plugstack.conf

# _jt_ids RUN ARGS...: the job IDs of top --once's rows, in order, as RUN
# (ct: root, ctu: the test user) runs it.
_jt_ids() {
	local run=$1
	shift
	"$run" "$SYS_ADMIN_CMD" -c "$JT_LOGIN" top --once "$@" 2>/dev/null |
		sed -n '3,$p' | awk '$1 ~ /^[0-9]+$/ { print $1 }' | tr '\n' ' ' | sed 's/ $//'
}

# _jt_order_is WANT: root's top --once lists WANT's jobs in that order.
_jt_order_is() {
	[ "$(_jt_ids ct)" = "$1" ]
}

# The tmux server of this scenario, on the host: its pane's command enters
# the container as _sys_ct does, with a terminal ncurses knows. Each screen
# has a server (socket) of its own: a server whose last session was killed
# exits a moment later, and a new-session sent to it then fails ("server
# exited unexpectedly").
JT_SOCK=jt-tmux.sock
_jt_tmux() {
	tmux -S "$RUN/$JT_SOCK" "$@"
}

_jt_screen() {
	_jt_tmux capture-pane -p -t jt
}

_jt_screen_has() {
	_jt_screen | grep -Eq -- "$1"
}

_jt_screen_ids() {
	_jt_screen | sed -n '4,$p' | awk '$1 ~ /^[0-9]+$/ { print $1 }' | tr '\n' ' ' | sed 's/ $//'
}

_jt_screen_order_is() {
	[ "$(_jt_screen_ids)" = "$1" ]
}

scn_jm_top() {
	local h m l out want as_other
	_real_have || return 0
	need_cmd tmux
	real_setup
	_real_sets_file "$JM_TEXTFILE" >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	sys_restart_slurmd || bail "slurmd did not restart with sets="
	ct id "$JM_OTHER" >/dev/null 2>&1 || ct useradd -m -s /bin/sh "$JM_OTHER"
	jm_monitoring_start
	printf 'optional %s prometheus=http://%s/\n' "$(plugin_line | awk '{print $2}')" "$JM_PROM" >"$NODE_ROOT$JT_LOGIN"
	chmod 0644 "$NODE_ROOT$JT_LOGIN"
	h=$(submit -J jt-heavy -o "$JOB_MARKS/jt-heavy-%j.out" --ebpf=io /usr/local/bin/sse-work jt-heavy 64) ||
		{ is "top: sbatch --ebpf=io accepted" no yes; return; }
	m=$(SYS_USER=$JM_OTHER submit -J jt-mid -o "$JOB_MARKS/jt-mid-%j.out" --ebpf=io /usr/local/bin/sse-work jt-mid 16) ||
		{ is "top: the other user's sbatch --ebpf=io accepted" no yes; return; }
	l=$(submit -J jt-light -o "$JOB_MARKS/jt-light-%j.out" --ebpf=io /usr/local/bin/sse-work jt-light 4) ||
		{ is "top: sbatch --ebpf=io accepted" no yes; return; }
	wait_started jt-heavy
	wait_started jt-mid
	wait_started jt-light
	ok_if "top: job $h's payload moved into job_$h (cgroup made by the test, Slurm's layout)" jm_place "$h" jt-heavy
	ok_if "top: job $m's payload (user $JM_OTHER) moved into job_$m (cgroup made by the test)" jm_place "$m" jt-mid
	ok_if "top: job $l's payload moved into job_$l (cgroup made by the test)" jm_place "$l" jt-light
	ok_if "top: Prometheus has a write rate for each of the three jobs" \
		wait_until 90 "three jobs' write rates" _jm_has \
		"count(sum by (jobid) (rate(ebpf_exporter_spank_io_bytes_total{jobid=~\"$h|$m|$l\"}[60s])) > 0) == 3"
	diag "top: the jobs' write rates in Prometheus: $(promql "sum by (jobid) (rate(ebpf_exporter_spank_io_bytes_total{jobid=~\"$h|$m|$l\"}[60s]))" | tr '\n' '|')"
	want="$h $m $l"
	# The rates settle as the window fills: the order, once it is the
	# loads', is asked again below and must hold.
	wait_until 90 "top's order $want" _jt_order_is "$want"
	out=$(ct "$SYS_ADMIN_CMD" -c "$JT_LOGIN" top --once 2>&1)
	diag "top: root's top --once: $(printf '%s\n' "$out" | tr '\n' '|')"
	is "top --once as root: the three jobs in the order of their loads (64, 16, 4 blocks a round)" "$(_jt_ids ct)" "$want"
	like "top --once: the title: three jobs, every user's" "$(printf '%s\n' "$out" | head -n 1)" \
		'^spank-ebpf top [0-9:]+: 3 jobs with series of 3 running \(all users\); rates over 60 s, every 5 s; sorted by IO/s$'
	like "top --once: the heavy job's row: its user, a rate in bytes a second, a p99" "$out" \
		"^ +$h $SYS_USER +[^ ]+ +1 +[0-9.]+[kMG]?B +[0-9.]+(us|ms|s) "
	out=$(ct "$SYS_ADMIN_CMD" -c "$JT_LOGIN" top --json 2>&1)
	is "top --json as root: the same order, each rate below the one before, the users" \
		"$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [j["io_bytes_per_s"] for j in d["jobs"]]
print(" ".join(str(j["job"]) for j in d["jobs"]), all(a > b > 0 for a, b in zip(r, r[1:])), " ".join(j["user"] for j in d["jobs"]))' 2>&1)" \
		"$want True $SYS_USER $JM_OTHER $SYS_USER"
	is "top --once as $SYS_USER: their two jobs alone, in the same order" "$(_jt_ids ctu)" "$h $l"
	is "top --once as $JM_OTHER: their own job alone" "$(SYS_USER=$JM_OTHER _jt_ids ctu)" "$m"
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" -c "$JT_LOGIN" top --json 2>&1)
	is "top --json as $JM_OTHER: their job, not one of $SYS_USER's" \
		"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([j["job"] for j in d["jobs"]], d["all_users"])' 2>&1)" \
		"[$m] False"

	# The full screen: tmux on the host, its pane in the container.
	_jt_tmux new-session -d -s jt -x 160 -y 40 \
		"nsenter -t $CT_INIT -a env -i PATH=$SYS_PATH HOME=/root LANG=C.UTF-8 TERM=screen $SYS_ADMIN_CMD -c $JT_LOGIN top -d 2; echo exited \$? >$RUN/jt-screen.rc; sleep 60"
	ok_if "top's full screen (in tmux, 160 x 40): its headings" wait_until 30 "top's screen" _jt_screen_has '^ +JOBID USER'
	wait_until 30 "the screen's order $want" _jt_screen_order_is "$want"
	diag "top: the screen: $(_jt_screen | head -n 8 | tr '\n' '|')"
	is "top's full screen: the three jobs in the order of their loads" "$(_jt_screen_ids)" "$want"
	_jt_tmux send-keys -t jt R
	wait_until 10 "reversed" _jt_screen_has 'sorted by IO/s, reversed$'
	is "top's full screen, R: the order reversed" "$(_jt_screen_ids)" "$l $m $h"
	_jt_tmux send-keys -t jt R Enter
	wait_until 10 "the highlighted job's nodes" _jt_screen_has "^job $h, user $SYS_USER, partition [^ ]+: 1 of 1 nodes with series"
	like "top's full screen, Enter: the heavy job's node, with its figures" "$(_jt_screen)" \
		"^ +$h $SYS_MACHINE +[0-9.]+[kMG]?B "
	_jt_tmux send-keys -t jt q
	ok_if "top's full screen, q: quits" wait_until 10 "top's exit" test -s "$RUN/jt-screen.rc"
	is "... exit 0" "$(cat "$RUN/jt-screen.rc" 2>&1)" "exited 0"
	as_other="setpriv --reuid=$JM_OTHER --regid=$JM_OTHER --init-groups env HOME=/home/$JM_OTHER USER=$JM_OTHER"
	_jt_tmux kill-server 2>/dev/null
	JT_SOCK=jt-tmux-other.sock
	_jt_tmux new-session -d -s jt -x 160 -y 40 \
		"nsenter -t $CT_INIT -a env -i PATH=$SYS_PATH LANG=C.UTF-8 TERM=screen $as_other $SYS_ADMIN_CMD -c $JT_LOGIN top -d 2; sleep 60" ||
		diag "top: tmux did not start the second screen"
	ok_if "top's full screen as $JM_OTHER: its headings" wait_until 30 "top's screen" _jt_screen_has '^ +JOBID USER'
	wait_until 30 "their job's row" _jt_screen_has "^ +$m "
	is "top's full screen as $JM_OTHER: their own job alone" "$(_jt_screen_ids)" "$m"
	like "... the title says so" "$(_jt_screen | head -n 1)" '1 job with series of 1 running \(your jobs only\)'
	_jt_tmux kill-server 2>/dev/null
	JT_SOCK=jt-tmux.sock

	release jt-heavy
	release jt-mid
	release jt-light
	wait_job_done "$h"
	wait_job_done "$m"
	wait_job_done "$l"
	is "top: the three jobs completed" "$(job_state "$h") $(job_state "$m") $(job_state "$l")" \
		"COMPLETED COMPLETED COMPLETED"
	rm -f "$NODE_ROOT$JT_LOGIN"
	jm_unplace
	jm_monitoring_stop
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart without sets="
	rm -f "$NODE_ROOT$SYS_SETS_FILE"
	real_teardown
}
