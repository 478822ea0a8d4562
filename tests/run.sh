#!/bin/bash
# The README's test command. On Debian 12, as root, from a git clone or a
# release tarball:
#
#   tests/run.sh
#
# 1. Lists the packages of tests/deps/debian.txt that dpkg-query does not
#    report as installed, prints them, and only if there are any runs
#    apt-get update and apt-get install -y --no-install-recommends on them
#    (so a second run installs nothing and does not call apt at all).
# 2. ./autogen.sh (a git clone without configure), ./configure
#    --enable-werror, make.
# 3. make test: the whole suite, ending with "N passed, N failed, N
#    skipped", which is also this script's last line. Exits non-zero if a
#    test failed or the build did.
#
# Options:
#   --no-install    only check: print what is missing and the apt-get line
#                   that installs it; exit 1 if anything is, 0 if not.
#                   Needs no root.
#   --install-only  install what is missing, then stop (.ci/run's first step).
#   --groups=A,B    only these groups of the list (tests/system/demo.sh).
#   --deps=FILE     another list in the same format (tests/readme-command.sh).
# Without root it installs and runs nothing: it prints what it would need
# and exits non-zero. The only network access is apt's.
set -eu
# The same from a login shell as from `env -i PATH=... HOME=/root`: the
# build and the suite run in one locale and umask of their own (the tests
# set them again: tests/lib/tap.sh), apt in C, whose messages this script
# reads.
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
unset LANGUAGE
umask 022

me=tests/run.sh
top=$(cd "$(dirname "$0")/.." && pwd)
deps=$top/tests/deps/debian.txt
groups=
mode=all
for arg in "$@"; do
	case $arg in
	--no-install) mode=check ;;
	--install-only) mode=install ;;
	--groups=*) groups=${arg#--groups=} ;;
	--deps=*) deps=${arg#--deps=} ;;
	-h | --help)
		sed -n '2,/^set -eu$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "$me: unknown argument: $arg (see $me --help)" >&2
		exit 2
		;;
	esac
done

say() { printf '%s: %s\n' "$me" "$*"; }
die() {
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

# --- 1. prerequisites ----------------------------------------------------

[ -r "$deps" ] || die "cannot read the package list $deps"
command -v dpkg-query >/dev/null 2>&1 ||
	die "dpkg-query not found: this script installs Debian packages (Debian 12 and its derivatives)"

# The list's package names (of the wanted groups), each once, in order.
# A line holds one name; "[group]" lines start a group; "#" comments.
pkgs=$(awk -v want=",$groups," -v file="$deps" '
	{ sub(/#.*/, "") }
	/^[[:space:]]*\[[A-Za-z0-9_-]+\][[:space:]]*$/ {
		g = $0; gsub(/[][[:space:]]/, "", g); known[g] = 1; next
	}
	NF == 0 { next }
	NF > 1 || $1 !~ /^[a-z0-9][a-z0-9+.-]+$/ {
		printf "%s:%d: not a package name: %s\n", file, FNR, $0 > "/dev/stderr"
		bad = 1; next
	}
	want == ",," || index(want, "," g ",") { if (!seen[$1]++) print $1 }
	END {
		n = split(want, w, ",")
		for (i = 1; i <= n; i++)
			if (w[i] != "" && !(w[i] in known)) {
				printf "%s: no group [%s]\n", file, w[i] > "/dev/stderr"
				bad = 1
			}
		exit bad
	}' "$deps") || die "cannot use $deps${groups:+ with --groups=$groups}"
[ -n "$pkgs" ] || die "no package in $deps${groups:+ (groups $groups)}"

missing_pkgs() {
	local p
	for p in $pkgs; do
		[ "$(LC_ALL=C dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			printf ' %s' "$p"
	done
}

total=$(printf '%s\n' $pkgs | wc -l)
missing=$(missing_pkgs)
nmissing=$(printf '%s\n' $missing | grep -c . || true)
apt_line="apt-get install -y --no-install-recommends$missing"
if [ -z "$missing" ]; then
	say "all $total Debian packages of ${deps#"$top"/}${groups:+ [$groups]} are installed: nothing to install"
else
	say "$nmissing of the $total Debian packages of ${deps#"$top"/}${groups:+ [$groups]} are not installed:$missing"
fi

if [ "$mode" = check ]; then
	[ -z "$missing" ] && exit 0
	say "to install them, as root: apt-get update && $apt_line"
	exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
	say "needs root: it installs Debian packages, and the end-to-end, packaging and" >&2
	say "system tests start Slurm daemons, install packages and boot containers." >&2
	[ -z "$missing" ] || say "as root: apt-get update && $apt_line" >&2
	say "then, as root: $me   (without root, only the tests that need none: ./configure && make check)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
apt_get() { LC_ALL=C apt-get -o DPkg::Lock::Timeout=600 "$@"; }

if [ -n "$missing" ]; then
	say "installing them: apt-get update && $apt_line"
	update_failed=
	# A source apt cannot reach is only a warning to apt-get update (exit 0).
	if ! apt_get -q update >"$tmp/update.log" 2>&1 ||
		grep -Eq '^(Err:|E:|W: Failed to fetch|W: Some index files failed)' "$tmp/update.log"; then
		update_failed=1
		sed -n 's/^\(E\|W\|Err\):/  &/p' "$tmp/update.log" | tail -n 10
		say "apt-get update failed (no network, or a source in /etc/apt/sources.list* is unreachable); trying with the package lists there are"
	fi
	# shellcheck disable=SC2086 # one word per package
	if ! apt_get -q install -y --no-install-recommends $missing >"$tmp/install.log" 2>&1; then
		sed -n 's/^\(E\|W\|Err\):/  &/p' "$tmp/install.log" | tail -n 10
		if [ -n "$update_failed" ]; then
			die "cannot install the missing packages: apt cannot reach the package mirror (offline?). Missing:$missing"
		fi
		die "apt-get install failed. Missing:$missing"
	fi
	sed -n 's/^\([0-9][0-9]* upgraded, [0-9][0-9]* newly installed.*\)/  apt-get: \1/p' "$tmp/install.log"
	still=$(missing_pkgs)
	[ -z "$still" ] || die "apt-get install succeeded but these are still not installed:$still"
	say "installed:$missing"
fi
[ "$mode" = install ] && exit 0

# --- 2. build --------------------------------------------------------------

cd "$top"
if [ ! -x configure ]; then
	[ -e .git ] || die "no ./configure here, and this is not a git clone (a release tarball ships configure)"
	say "./autogen.sh"
	./autogen.sh >"$tmp/autogen.log" 2>&1 || {
		tail -n 20 "$tmp/autogen.log"
		die "./autogen.sh failed"
	}
fi
say "./configure --enable-werror"
./configure -q --enable-werror
say "make"
make -s -j"$(nproc)"

# --- 3. the suite --------------------------------------------------------

say "make test"
# make's own closing "make: *** [Makefile:N: test] Error 1" is dropped so
# that the summary stays the last line; the exit status says it instead.
set +e
make test 2>&1 | sed -u -E '/^make(\[[0-9]+\])?: \*\*\* \[[^]]*:[0-9]+: test\] Error [0-9]+$/d' |
	tee "$tmp/test.log"
st=${PIPESTATUS[0]}
set -e
last=$(tail -n 1 "$tmp/test.log")
case $last in
*" passed, "*" failed, "*" skipped") ;;
*)
	say "make test stopped before the tests ran (exit status $st; see above)"
	exit "$((st ? st : 1))"
	;;
esac
case $last in
*" passed, 0 failed, "*) exit "$st" ;;
*) exit "$((st ? st : 1))" ;;
esac
