# Processes, by PID only: nothing here, or anywhere in the tests, kills a
# process by its name. Used by the localhost cluster (localslurm.sh) to
# stop its daemons and whatever its jobs left behind. Needs
# tests/lib/tap.sh (diag, gone_within).

# stop_pid PID NAME: SIGTERM, up to 10 s, then SIGKILL; reaps it (a child
# of this shell). NAME is for the diagnostic.
stop_pid() {
	local pid=$1
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	if ! gone_within 10 "$pid"; then
		diag "$2 (pid $pid) ignored SIGTERM for 10 s: SIGKILL"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

# PIDs of this shell, its ancestors and its descendants: never touched.
own_pids() {
	ps -e -o pid=,ppid= | awk -v me=$$ '
		{ parent[$1] = $2; kids[$2] = kids[$2] " " $1 }
		END {
			for (p = me; p > 1; p = parent[p]) print p
			todo = me
			while (todo != "") {
				split(todo, a, " "); todo = ""
				for (i in a) { print a[i]; todo = todo kids[a[i]] }
			}
		}' | sort -u
}

# strays DIR ENV [PID...]: processes that still refer to DIR (their cwd,
# an open file, their command line) or have the line ENV in their
# environment; neither own_pids nor the PIDs given.
strays() {
	local dir=$1 env=$2 own p pid
	shift 2
	own=" $(own_pids | tr '\n' ' ') $* "
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		case $own in *" $pid "*) continue ;; esac
		case $(readlink "$p/cwd" 2>/dev/null) in
		"$dir" | "$dir"/*) echo "$pid"; continue ;;
		esac
		if _procs_fd_in "$p" "$dir/" ||
			tr '\0' '\n' 2>/dev/null <"$p/cmdline" | grep -qF -- "$dir/" ||
			tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qxF -- "$env"; then
			echo "$pid"
		fi
	done
}

_procs_fd_in() {
	local f
	for f in "$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in "$2"*) return 0 ;; esac
	done
	return 1
}

# describe_pids PID...: "PID command line" (cut at 120 characters) each.
describe_pids() {
	local pid
	for pid in "$@"; do
		echo "$pid $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-120)"
	done
}
