#!/bin/bash
# Builds the cached root filesystems of the container suites ahead of them:
#
#   tests/system/cache.sh [SUITE...]     (default: bookworm trixie sid)
#
# What tests/system, tests/cluster and bench/ would build on first use
# (sys_cache, tests/lib/rootfs.sh), under the same lock, so a suite that
# starts meanwhile waits for it instead of building the same directory.
# .ci/run starts it in the background while single-threaded sections
# (fuzzing, distcheck) leave a core idle. A cache that is fresh is left
# alone; SYSTEM_REFRESH=1 rebuilds. Exits non-zero on the first failure.
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
for SUITE in "$@"; do
	t0=$(date +%s)
	sys_cache
	diag "$SUITE: $SYS_CACHE_HOW in $(($(date +%s) - t0)) s"
done
