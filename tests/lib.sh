# Shared by the shell tests: TAP output, and prerequisites that skip when
# run by hand but fail in CI (CI=true), so CI never passes on a skip.

# The suite's own environment, whatever the caller's (a bare root shell
# without LANG, cron, sudo's env_reset, a configuration-management run):
# man, groff, sort and every tool's messages in one locale, the files the
# tests make (and check the modes of) with one umask.
export LC_ALL=C.UTF-8
unset LANGUAGE
umask 022
n=0
failed=0

ok_if() {
	desc=$1
	shift
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}

diag() {
	echo "# $*"
}

# show TEXT: TEXT as indented TAP comment lines.
show() {
	printf '%s' "$1" | sed -e 's/^/#     /'
	echo
}

# is DESC GOT WANT: exact comparison, shows both on failure.
is() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
		return 0
	fi
	echo "not ok $n - $1"
	failed=$((failed + 1))
	echo "#   got:"
	show "$2"
	echo "#   want:"
	show "$3"
	return 1
}

# like DESC TEXT ERE / unlike DESC TEXT ERE: grep -E over TEXT's lines.
like() {
	n=$((n + 1))
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		echo "ok $n - $1"
		return 0
	fi
	echo "not ok $n - $1"
	failed=$((failed + 1))
	echo "#   no line matches: $3"
	echo "#   in (last 30 lines):"
	show "$(printf '%s\n' "$2" | tail -n 30)"
	return 1
}

unlike() {
	n=$((n + 1))
	if ! printf '%s\n' "$2" | grep -Eq -- "$3"; then
		echo "ok $n - $1"
		return 0
	fi
	echo "not ok $n - $1"
	failed=$((failed + 1))
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

# The plugin's lines for one job alone on the node, from prolog to epilog
# (durations as "N"; pipe the log through plugin_cycle_normalize first).
plugin_cycle_log() {
	printf "spank_ebpf: prolog job $1: %s\n" "--ebpf: taking a hold on ebpf_exporter" \
		"refcount now 1" "starting ebpf_exporter" "ebpf_exporter started in N ms"
	printf "spank_ebpf: epilog job $1: %s\n" "releasing its hold on ebpf_exporter" \
		"refcount now 0" "stopping ebpf_exporter" "ebpf_exporter stopped in N ms"
}

# The first line of a prolog that takes a job's hold, and of an epilog
# that releases it (EREs; JOB: a job ID, or [0-9]+).
hold_taken_re() {
	echo "spank_ebpf: prolog job ${1:-[0-9]+}: (--ebpf|mode=always): taking a hold on "
}

hold_released_re() {
	echo "spank_ebpf: epilog job ${1:-[0-9]+}: releasing its hold on "
}

# "refcount now N" lines as N N N (any context: prolog, epilog, reconcile).
refcounts_of() {
	sed -n 's/.*spank_ebpf: [^:]*: refcount now \([0-9]*\)$/\1/p' | tr '\n' ' ' | sed 's/ $//'
}

plugin_cycle_normalize() {
	sed 's/ in [0-9][0-9]* ms$/ in N ms/'
}

# prom_structure < TEXT: what is wrong with Prometheus text beyond what
# promtool checks (it accepts a family without # TYPE): every sample's
# family has one # HELP and one # TYPE, both before its first sample, and
# a family's samples are together. Prints one line per problem, nothing
# when the text is sound. Histogram and summary samples (_bucket, _sum,
# _count) belong to their family's TYPE.
prom_structure() {
	awk '
		function family(name,   base) {
			base = name
			sub(/_(bucket|sum|count)$/, "", base)
			if (base != name && (type[base] == "histogram" || type[base] == "summary")) return base
			return name
		}
		/^# HELP / { if (help[$3]++) print "line " NR ": a second # HELP for " $3; next }
		/^# TYPE / {
			if ($3 in type) print "line " NR ": a second # TYPE for " $3
			if ($3 in sampled) print "line " NR ": # TYPE for " $3 " after its samples"
			type[$3] = $4; next
		}
		/^#/ || /^[[:space:]]*$/ { next }
		{
			name = $1; sub(/\{.*/, "", name); f = family(name)
			if (!(f in type)) print "line " NR ": sample of " f " without # TYPE before it"
			if (!(f in help)) print "line " NR ": sample of " f " without # HELP before it"
			if ((f in sampled) && last != f) print "line " NR ": samples of " f " not together"
			sampled[f] = 1; last = f
		}'
}

done_testing() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# Missing prerequisite: skip the whole script by hand, fail it in CI.
missing() {
	if [ -n "${CI:-}" ]; then
		echo "Bail out! missing prerequisite in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP missing prerequisite: $*"
	exit 0
}

need_cmd() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing "command $c"
	done
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

need_root() {
	[ "$(id -u)" -eq 0 ] || missing "root"
}
