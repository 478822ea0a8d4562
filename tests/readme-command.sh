#!/bin/bash
# tests/run.sh, the README's test command, on stub package lists in a
# scratch copy of the tree whose configure and make are doubles: without
# root it installs and runs nothing and prints the apt-get line; with
# nothing missing apt is never called; what is missing is printed before
# apt runs; an unreachable mirror ends with a message naming the missing
# packages (real apt-get on a scratch sources list, package lists and
# cache: the machine's own are not touched); make test's summary is the
# last line and a failed test makes the exit status non-zero; and the real
# list parses, each name once.
. "${srcdir:-.}/tests/lib/tap.sh"
need_cmd dpkg-query awk sed mktemp

src=${srcdir:-.}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
absent=slurm-spank-ebpf-test-absent-package

# A scratch tree: the script, a configure double (records its arguments)
# and, on PATH, make and apt-get doubles (record their arguments; make test
# prints $MAKE_SUMMARY and exits $MAKE_STATUS).
T=$tmp/tree
mkdir -p "$T/tests/deps" "$tmp/bin"
cp "$src/tests/run.sh" "$T/tests/run.sh"
cat >"$T/configure" <<EOF
#!/bin/sh
echo "configure \$*" >>"$tmp/calls"
EOF
cat >"$tmp/bin/make" <<EOF
#!/bin/sh
echo "make \$*" >>"$tmp/calls"
case " \$* " in
*" test "*)
	echo "\${LC_ALL:-unset}" >"$tmp/locale"
	echo "PASS: stub"
	echo "\$MAKE_SUMMARY"
	echo "make: *** [Makefile:42: test] Error \$MAKE_STATUS" >&2
	exit "\$MAKE_STATUS" ;;
esac
EOF
cat >"$tmp/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$tmp/calls"
EOF
chmod 0755 "$T/configure" "$tmp/bin/make" "$tmp/bin/apt-get"
printf '# stub\n[a]\ndpkg\nbash # comment\n\n[b]\ncoreutils\ndpkg\n' >"$T/tests/deps/present.txt"
printf '[a]\ndpkg\n%s\n[b]\ncoreutils\n' "$absent" >"$T/tests/deps/absent.txt"
chmod -R a+rX "$T"

# run_script [ENV=VALUE...] -- ARG...: tests/run.sh of the scratch tree; sets out
# (stdout and stderr) and st, and empties the call log first.
run_script() {
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	: >"$tmp/calls"
	chmod 0666 "$tmp/calls"
	out=$(env "${envs[@]}" PATH="$tmp/bin:$PATH" bash "$T/tests/run.sh" "$@" 2>&1)
	st=$?
}
recorded() { cat "$tmp/calls"; }

# --- without root ------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	nobody() { "$@"; }
fi
run_script -- --no-install --deps="$T/tests/deps/present.txt"
is "--no-install, nothing missing: exit 0" "$st" 0
like "--no-install, nothing missing: says so, counting each name once" "$out" \
	'^tests/run.sh: all 3 Debian packages of .*present.txt are installed: nothing to install$'
run_script -- --no-install --deps="$T/tests/deps/absent.txt"
is "--no-install, one missing: exit 1" "$st" 1
like "--no-install names the missing package" "$out" "not installed: $absent\$"
like "--no-install prints the apt-get line" "$out" \
	"as root: apt-get update && apt-get install -y --no-install-recommends $absent\$"
run_script -- --no-install --deps="$T/tests/deps/absent.txt" --groups=b
is "--groups=b leaves the missing package of [a] out" "$st" 0
run_script -- --no-install --deps="$T/tests/deps/absent.txt" --groups=c
like "--groups with an unknown group: refused" "$st:$out" '^1:.*no group \[c\]'

if command -v setpriv >/dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
	out=$(cd "$tmp" && : >calls && nobody env PATH="$tmp/bin:$PATH" bash "$T/tests/run.sh" --deps="$T/tests/deps/absent.txt" 2>&1)
	st=$?
	is "without root: exit 1" "$st" 1
	like "without root: says it needs root" "$out" '^tests/run.sh: needs root'
	like "without root: prints the apt-get line" "$out" \
		"as root: apt-get update && apt-get install -y --no-install-recommends $absent\$"
	is "without root: no apt-get, configure or make" "$(recorded)" ""
	out=$(cd "$tmp" && nobody env PATH="$tmp/bin:$PATH" bash "$T/tests/run.sh" --install-only --deps="$T/tests/deps/present.txt" 2>&1)
	st=$?
	is "without root, nothing missing, --install-only: still refuses (exit 1)" "$st" 1
	is "  and runs nothing" "$(recorded)" ""
else
	for i in 1 2 3 4 5 6; do skip_point "setpriv missing"; done
fi

# --- the real list ----------------------------------------------------------
out=$(bash "$src/tests/run.sh" --no-install 2>&1)
like "the real list parses (tests/run.sh --no-install)" "$out" \
	'^tests/run.sh: (all [0-9]+|[0-9]+ of the [0-9]+) Debian packages of tests/deps/debian.txt'
dups=$(sed -e 's/#.*//' -e '/^\[/d' "$src/tests/deps/debian.txt" | awk 'NF { print $1 }' | sort | uniq -d |
	grep -vx -e make -e util-linux)
is "no package listed twice (make and util-linux serve two groups)" "$dups" ""

# --- as root --------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	for i in $(seq 1 22); do skip_point "root"; done
	done_testing
fi

run_script -- --install-only --deps="$T/tests/deps/present.txt"
is "--install-only, nothing missing: exit 0" "$st" 0
like "  says nothing to install" "$out" 'nothing to install$'
is "  calls neither apt-get nor configure nor make" "$(recorded)" ""

run_script LC_ALL=C.UTF-8 MAKE_SUMMARY="5 passed, 0 failed, 1 skipped" MAKE_STATUS=0 -- --deps="$T/tests/deps/present.txt"
is "whole run, nothing missing, tests pass: exit 0" "$st" 0
is "  configure --enable-werror, make, make test; no apt-get" "$(recorded)" \
	"configure -q --enable-werror
make -s -j$(nproc)
make test"
is "  the last line is make test's summary" "$(printf '%s\n' "$out" | tail -n 1)" "5 passed, 0 failed, 1 skipped"
is "  make test runs in the caller's locale" "$(cat "$tmp/locale")" C.UTF-8

run_script MAKE_SUMMARY="4 passed, 1 failed, 1 skipped" MAKE_STATUS=2 -- --deps="$T/tests/deps/present.txt"
is "whole run, a test fails: exit status non-zero (make's)" "$st" 2
is "  the last line is still the summary (make's Error line dropped)" \
	"$(printf '%s\n' "$out" | tail -n 1)" "4 passed, 1 failed, 1 skipped"

run_script MAKE_SUMMARY="make: *** [Makefile:42: all] Error 1" MAKE_STATUS=2 -- --deps="$T/tests/deps/present.txt"
is "build broken, no summary: exit status non-zero (make's)" "$st" 2
like "  and says the tests did not run" "$(printf '%s\n' "$out" | tail -n 1)" \
	'^tests/run.sh: make test stopped before the tests ran'

# Missing, apt-get a double that succeeds and installs nothing.
run_script -- --install-only --deps="$T/tests/deps/absent.txt"
like "missing: prints what it installs" "$out" \
	"^tests/run.sh: installing them: apt-get update && apt-get install -y --no-install-recommends $absent\$"
is "  then apt-get update and install with a lock timeout" "$(recorded)" \
	"apt-get -o DPkg::Lock::Timeout=600 -q update
apt-get -o DPkg::Lock::Timeout=600 -q install -y --no-install-recommends $absent"
printed=$(printf '%s\n' "$out" | grep -n "installing them" | cut -d: -f1)
is "  it printed that before anything else happened (line 2)" "$printed" 2
is "  apt-get 'succeeded' but the package is not there: exit 1" "$st" 1
like "  and it is named" "$out" "still not installed: $absent\$"

# Offline: the real apt-get, with sources, lists and cache of its own
# pointing at a closed port on loopback; without locks, so that it does
# not wait for another apt (it cannot install anything: its lists are empty).
if command -v apt-get >/dev/null 2>&1; then
	mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial"
	echo "deb http://127.0.0.1:9/debian bookworm main" >"$tmp/apt/sources.list"
	cat >"$tmp/apt/apt.conf" <<EOF
Dir::Etc::sourcelist "$tmp/apt/sources.list";
Dir::Etc::sourceparts "/nonexistent";
Dir::State::lists "$tmp/apt/lists/";
Dir::Cache "$tmp/apt/cache/";
Acquire::Retries "0";
Debug::NoLocking "true";
EOF
	: >"$tmp/calls"
	out=$(APT_CONFIG=$tmp/apt/apt.conf bash "$T/tests/run.sh" --install-only --deps="$T/tests/deps/absent.txt" 2>&1)
	st=$?
	is "offline: exit 1" "$st" 1
	like "  says apt-get update failed" "$out" '^tests/run.sh: apt-get update failed'
	like "  ends naming the missing package" "$(printf '%s\n' "$out" | tail -n 1)" \
		"cannot reach the package mirror \(offline\?\)\. Missing: $absent\$"
	like "  shows apt's own error" "$out" '^  (E|W|Err):'
	is "  no configure, no make" "$(recorded)" ""
	is "  the machine's own package lists untouched" \
		"$(ls /var/lib/apt/lists | grep -c '127\.0\.0\.1')" 0
else
	for i in 1 2 3 4 5 6; do skip_point "apt-get"; done
fi

done_testing
