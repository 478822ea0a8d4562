#!/bin/bash
# A throwaway three-host cluster to try configurations on (as root):
#   tests/cluster/shell.sh [bookworm|trixie|sid]     (or: make cluster-shell CLUSTER_SUITE=trixie)
# Boots ctl, node1 and node2 as the multi-host tests do (tests/lib/multihost.sh),
# the packages installed by role (compute on the nodes, submit on ctl), runs
# no scenario (CLUSTER_SCENARIOS="c3 ..." to run some first), prints a root
# shell command for each host and waits; `rm` the printed hold file or
# Ctrl-C tears everything down.
suite=${1:-${CLUSTER_SUITE:-bookworm}}
case $suite in
bookworm | trixie | sid) ;;
*)
	echo "usage: $0 [bookworm|trixie|sid]" >&2
	exit 2
	;;
esac
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export srcdir
export CLUSTER_HOLD=1 CLUSTER_SCENARIOS=${CLUSTER_SCENARIOS-none}
exec bash "$srcdir/tests/cluster/$suite.sh"
