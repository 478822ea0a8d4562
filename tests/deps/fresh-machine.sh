#!/bin/bash
# The README's test command on a fresh Debian 12 machine, as far as one
# machine can play another: a minbase bookworm root filesystem (debootstrap,
# cached in /var/cache/slurm-spank-ebpf-tests/fresh/root), an overlayfs
# copy of it per run with this host's apt sources, a clean `git clone` of
# this tree's HEAD in it, and in systemd-nspawn (not booted):
#
#   tests/run.sh --install-only      from nothing: every package of
#                                    tests/deps/debian.txt
#   tests/run.sh --no-install        now nothing is missing
#   ./autogen.sh && ./configure && make test TESTS='<what needs no daemons>'
#
# all of it from a bare root shell: `env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin
# HOME=/root`, no LANG, as cron, sudo's env_reset or a configuration-
# management run start it (the suite must set what it needs itself).
# The tests run there are those that need neither Slurm daemons, nor
# systemd, nor containers of their own (make expands $(unit_tests),
# $(shell_tests) and $(fuzz_replays) of tests/*Makefile.inc), and the man
# pages' test (man renders by locale): the end-to-end, packaging and system
# tests boot containers, which do not nest in this one; CI runs them on a
# real machine. Output: this script's stdout, and the run's log under
# /var/tmp (kept). As root; downloads what tests/deps/debian.txt lists
# (about 500 MB). FRESH_REFRESH=1 rebuilds the cached root filesystem.
# Not part of `make test`: .ci/run runs it.
set -eu
me=tests/deps/fresh-machine.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${FRESH_CACHE:-/var/cache/slurm-spank-ebpf-tests/fresh}
tests=${FRESH_TESTS:-'$(unit_tests) $(shell_tests) $(fuzz_replays) tests/packaging/man.sh'}

# Its messages as "tests/deps/fresh-machine.sh: ..." lines (diag, bail).
TAP_PLAIN=$me
. "$top/tests/lib/tap.sh"
[ "$(id -u)" -eq 0 ] || bail "run me as root (debootstrap, overlayfs, systemd-nspawn)"
for c in debootstrap systemd-nspawn git mount; do
	command -v "$c" >/dev/null 2>&1 || bail "needs $c (tests/run.sh --install-only installs it)"
done
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || bail "needs a git clone (it tests a clean clone of HEAD)"

# The mirror of this host's release, as the system tests find it.
. "$top/tests/lib/rootfs.sh"
mirror=$(sys_mirror) || true
[ -n "$mirror" ] || bail "no Debian mirror for this release in /etc/apt/sources.list*"

if [ -n "${FRESH_REFRESH:-}" ] || [ ! -x "$cache/root/usr/bin/apt-get" ]; then
	diag "debootstrap --variant=minbase bookworm $cache/root"
	rm -rf "$cache/root.new"
	mkdir -p "$cache"
	debootstrap --variant=minbase bookworm "$cache/root.new" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		bail "debootstrap failed (log: $cache/debootstrap.log)"
	rm -rf "$cache/root"
	mv "$cache/root.new" "$cache/root"
fi

run=$(mktemp -d /var/tmp/slurm-spank-ebpf-fresh.XXXXXX)
merged=$run/merged
mkdir -p "$run/upper" "$run/work" "$merged"
cleanup() {
	umount "$merged" 2>/dev/null || true
	rm -rf "$run/upper" "$run/work" "$merged"
}
trap cleanup EXIT
mount -t overlay overlay -o "lowerdir=$cache/root,upperdir=$run/upper,workdir=$run/work" "$merged"

# A fresh machine with the same apt sources as this one.
rm -f "$merged/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && cp "$f" "$merged$f"
done
git clone -q "$top" "$merged/root/src"
diag "clean clone of $(git -C "$top" rev-parse --short HEAD) ($(git -C "$top" rev-parse --abbrev-ref HEAD)) in a fresh minbase bookworm; log: $run/log"

nspawn_prep
set +e
systemd-nspawn -q -D "$merged" --register=no --keep-unit --pipe \
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	/bin/bash -c '
		set -e
		cd /root/src
		echo "environment: $(env | sort | tr "\n" " ")"
		t0=$(date +%s)
		tests/run.sh --install-only
		echo "(install step: $(($(date +%s) - t0)) s)"
		tests/run.sh --no-install
		./autogen.sh >/dev/null 2>&1
		./configure -q
		make -s -j"$(nproc)" >/dev/null
		# What this run checks is the environment, not the odds: the
		# stress tests with fewer trials (the README command runs them
		# in full).
		TEST_KILL_TRIALS=100 TEST_STRESS_PROCS=8 make test TESTS="$1"
	' sh "$tests" </dev/null 2>&1 | tee "$run/log"
st=${PIPESTATUS[0]}
set -e
diag "exit status $st; log: $run/log"
exit "$st"
