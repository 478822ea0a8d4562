#!/bin/bash
# Builds the cached root filesystems of the container suites ahead of them:
#
#   tests/system/cache.sh [SUITE...]     (default: bookworm trixie sid)
#
# What tests/system, tests/cluster and bench/ would build on first use
# (sys_cache, tests/lib/rootfs.sh), under the same lock, so a suite that
# starts meanwhile waits for it instead of building the same directory.
# The releases are built side by side; .ci/run starts it in the
# background from its start. A cache that is fresh is left alone;
# SYSTEM_REFRESH=1 rebuilds. Exits non-zero when a release failed.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/system.sh"

[ $# -gt 0 ] || set -- bookworm trixie sid
for s in "$@"; do
	case $s in
	bookworm | trixie | sid) ;;
	*) bail "unknown suite $s (bookworm, trixie or sid)" ;;
	esac
done
sys_setup "$1"
# Side by side: each release has its own directories (SUITE.new, then
# SUITE), and debootstrap and apt mostly wait on downloads and dpkg.
pids=
for SUITE in "$@"; do
	(
		t0=$(date +%s)
		sys_cache
		diag "$SUITE: $SYS_CACHE_HOW in $(($(date +%s) - t0)) s"
	) &
	pids="$pids $!"
done
st=0
for p in $pids; do
	wait "$p" || st=1
done
exit "$st"
