# The shell tests' TAP output and prerequisites: prerequisites that skip
# when run by hand but fail in CI (CI=true), so CI never passes on a skip.
#
# Every script sources this file first, then the library its suite builds
# on (tests/e2e/lib.sh, tests/lib/system.sh, multihost.sh, ...); a library
# sources the libraries it builds on, never one that builds on it, and none
# sources this file again (it resets the counters). The graph, each file
# above what it sources:
#   tests/e2e/lib.sh -> localslurm.sh -> slurm.sh, procs.sh, localdaemons.sh
#   ansible-play.sh -> multihost.sh, ansible-check.sh
#   multihost.sh -> system.sh, multihost-jobs.sh
#   system.sh -> slurm.sh, container.sh, journal.sh, exporter.sh, packages.sh,
#     dbd.sh
#   container.sh -> rootfs.sh;  slurm.sh -> plugin.sh
#
# TAP_PLAIN=NAME, set before sourcing, is for scripts that speak to a
# person rather than to a TAP harness (tests/system/demo.sh,
# tests/deps/fresh-machine.sh): diag, bail and missing then print
# "NAME: ..." lines, and a missing prerequisite is an error.

# The suite's own environment, whatever the caller's (a bare root shell
# without LANG, cron, sudo's env_reset, a configuration-management run):
# man, groff, sort and every tool's messages in one locale, the files the
# tests make (and check the modes of) with one umask.
export LC_ALL=C.UTF-8
unset LANGUAGE
umask 022
n=0
failed=0

# tap_point DESC STATUS: the next test point, "ok" when STATUS is 0;
# returns STATUS's verdict (0 or 1). The comparisons below print what
# differed after it.
tap_point() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
		return 0
	fi
	echo "not ok $n - $1"
	failed=$((failed + 1))
	return 1
}

# skip_point REASON: a test point that could not apply here, counted as ok.
skip_point() {
	n=$((n + 1))
	echo "ok $n # SKIP $*"
}

# ok_if DESC CMD...: CMD succeeds (its output discarded).
ok_if() {
	local desc=$1
	shift
	"$@" >/dev/null 2>&1
	tap_point "$desc" $?
}

diag() {
	if [ -n "${TAP_PLAIN:-}" ]; then
		printf '%s: %s\n' "$TAP_PLAIN" "$*"
	else
		echo "# $*"
	fi
}

# show TEXT: TEXT as indented TAP comment lines.
show() {
	printf '%s' "$1" | sed -e 's/^/#     /'
	echo
}

# bail MSG: ends the whole script (TAP's "Bail out!").
bail() {
	if [ -n "${TAP_PLAIN:-}" ]; then
		printf '%s: %s\n' "$TAP_PLAIN" "$*" >&2
	else
		echo "Bail out! $*"
	fi
	exit 1
}

# is DESC GOT WANT: exact comparison, shows both on failure.
is() {
	[ "$2" = "$3" ]
	tap_point "$1" $? && return 0
	echo "#   got:"
	show "$2"
	echo "#   want:"
	show "$3"
	return 1
}

# like DESC TEXT ERE / unlike DESC TEXT ERE: grep -E over TEXT's lines.
like() {
	printf '%s\n' "$2" | grep -Eq -- "$3"
	tap_point "$1" $? && return 0
	echo "#   no line matches: $3"
	echo "#   in (last 30 lines):"
	show "$(printf '%s\n' "$2" | tail -n 30)"
	return 1
}

unlike() {
	! printf '%s\n' "$2" | grep -Eq -- "$3"
	tap_point "$1" $? && return 0
	echo "#   unexpected lines matching: $3"
	show "$(printf '%s\n' "$2" | grep -E -- "$3" | head -n 20)"
	return 1
}

# wait_until SECONDS DESC CMD...: poll CMD every 0.2 s.
wait_until() {
	local secs=$1 desc=$2 end
	shift 2
	end=$(($(date +%s) + secs))
	until "$@" >/dev/null 2>&1; do
		if [ "$(date +%s)" -ge "$end" ]; then
			diag "timed out after ${secs}s waiting for: $desc"
			return 1
		fi
		sleep 0.2
	done
}

# wait_for SECONDS DESC WANT CMD...: poll until CMD prints WANT.
wait_for() {
	local secs=$1 desc=$2
	shift 2
	wait_until "$secs" "$desc" _tap_prints "$@"
}

_tap_prints() {
	local want=$1
	shift
	[ "$("$@" 2>/dev/null)" = "$want" ]
}

# gone_within SECONDS PID: polls (0.1 s steps) until PID has exited; fails
# if it still runs after SECONDS.
gone_within() {
	local i
	for i in $(seq 1 $(($1 * 10))); do
		kill -0 "$2" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$2" 2>/dev/null
}

# done_testing: the plan, after the script's wall time as a comment
# ("# took N s", bash's SECONDS since it started: tests/slowest.sh reads it).
done_testing() {
	echo "# took $SECONDS s"
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# Missing prerequisite: skip the whole script by hand, fail it in CI.
missing() {
	[ -z "${TAP_PLAIN:-}" ] || bail "missing: $*"
	if [ -n "${CI:-}" ]; then
		echo "Bail out! missing prerequisite in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP missing prerequisite: $*"
	exit 0
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing "command $c"
	done
}

need_root() {
	[ "$(id -u)" -eq 0 ] || missing "root"
}

# Two locks, each held by a script for its whole life, so that `make -j`
# and two lanes of make test (tests/Makefile.inc) are safe:
# - SUITE_LOCK: the suites that use this host itself (a localhost Slurm,
#   packages installed here, the host's exporter and its BPF sysctl) take
#   turns: their ports, mounts over /sys/fs/cgroup and packages would clash;
# - CONTAINER_LOCK: the one-container suites (tests/system, the
#   benchmark's, the demo) take turns: one machine name per release, its
#   nspawn cgroups on the host;
# - CLUSTER_LOCK: the same for the three-host suites (tests/cluster):
#   their host names.
# Suites of different locks run side by side: containers have a network
# of their own, every count of eBPF programs is per process
# (tests/lib/exporter.sh), never kernel-wide, and what two of them share
# on disk is built under locks of its own (a release's root filesystem,
# its packages: tests/lib/rootfs.sh, packages.sh). A script that needs
# SUITE_LOCK and another takes SUITE_LOCK first.
SUITE_LOCK=${E2E_LOCK:-/run/slurm-spank-ebpf-e2e.lock}
CONTAINER_LOCK=${CONTAINER_LOCK:-/run/slurm-spank-ebpf-containers.lock}
CLUSTER_LOCK=${CLUSTER_LOCK:-/run/slurm-spank-ebpf-clusters.lock}
_LOCKS_HELD=' '

# suite_lock SECONDS: holds SUITE_LOCK (fd 9) for the rest of the script,
# waiting SECONDS at the most for it; a script already holding it (one
# library on top of another) goes on.
suite_lock() {
	_hold_lock "$SUITE_LOCK" 9 "$1"
}

# container_lock SECONDS, cluster_lock SECONDS: the same for
# CONTAINER_LOCK (fd 6) and CLUSTER_LOCK (fd 4).
container_lock() {
	_hold_lock "$CONTAINER_LOCK" 6 "$1"
}

cluster_lock() {
	_hold_lock "$CLUSTER_LOCK" 4 "$1"
}

_hold_lock() {
	case $_LOCKS_HELD in *" $1 "*) return 0 ;; esac
	eval "exec $2>>\"\$1\"" || missing "lock file $1"
	flock -w "$3" "$2" || bail "could not take $1 within ${3}s"
	_LOCKS_HELD="$_LOCKS_HELD$1 "
}

# `make distcheck` builds and tests the release tarball in
# <distdir>/_build/sub. It runs the unit tests and fuzz replay; the slow
# suites (end to end, packaging, system, benchmark) run once, in make test.
in_distcheck() {
	case ${top_builddir:-${SPANK_EBPF_SO:-}} in
	*/_build/sub | */_build/sub/*) return 0 ;;
	esac
	return 1
}

# skip_in_distcheck WHAT: under make distcheck, skip the whole script, saying
# so (in the distcheck output: "SKIP: <script> # SKIP <WHAT> ...").
skip_in_distcheck() {
	in_distcheck || return 0
	echo "1..0 # SKIP $*: not under make distcheck, on purpose (make test runs it once)"
	exit 0
}
