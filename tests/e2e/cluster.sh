#!/bin/bash
# A shell on a throwaway single-node Slurm, the end-to-end tests' cluster
# (tests/lib/localslurm.sh). By hand, as root, from the top of a built
# tree:
#   tests/e2e/cluster.sh [ARG...]
# starts a cluster (ARGs go on the plugin line, after systemctl= and
# state=), opens a shell with SLURM_CONF set and tears the cluster down
# when the shell exits.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/localslurm.sh"
e2e_setup "$@"
cluster_start "$@"
echo "# SLURM_CONF=$SLURM_CONF; double in $DBL; state $STATE; slurmd log $SLURMD_LOG"
echo "# exit the shell to tear the cluster down"
export E2E_DIR DBL CALLS STATE SLURMD_LOG SLURMCTLD_LOG
"${SHELL:-/bin/bash}" 8>&- 9>&- || true
cluster_stop
exit 0
