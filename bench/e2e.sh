#!/bin/bash
# End-to-end cost on a real single-node Slurm (tests/lib/localslurm.sh), as
# root: wall time for JOBS short jobs (`sbatch --wrap true`, overlapping
# on an OverSubscribe partition), submitted back to back, until the last
# one is gone from squeue. One variant per run of this script:
#   none        no plugin at all (the baseline)
#   null        a plugin whose job prolog/epilog do nothing
#               (bench/spank_null.c): what Slurm spends per job once any
#               SPANK plugin has those hooks
#   noopt       the plugin, jobs without --ebpf
#   ebpf        the plugin, --ebpf jobs (systemctl= a no-op, so the
#               exporter's own start time is not counted)
#   shell       no plugin; the shell alternative as Prolog=/Epilog=
#               (bench/shell-{prolog,epilog}.sh), every job opted in
# Usage: bench/e2e.sh VARIANT [JOBS]   (run from the top of a built tree)
# Prints "e2e-VARIANT jobs=N wall_s=S jobs_per_s=R cpu_s=C" last.
set -u
variant=$1
jobs=${2:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
srcdir=${srcdir:-$top}
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/localslurm.sh"
e2e_setup "$@"

extra=
case $variant in
none) export E2E_PLUGIN=none ;;
null)
	E2E_SO=${BENCH_NULL_SO:-$(pwd)/bench/.libs/spank_null.so}
	[ -f "$E2E_SO" ] || missing "$E2E_SO (make bench builds it)"
	;;
noopt|ebpf) ;;
shell)
	export E2E_PLUGIN=none
	# slurmd builds the Prolog's environment itself: wrappers set ours.
	for h in prolog epilog; do
		cat >"$E2E_DIR/$h" <<EOT
#!/bin/sh
export BENCH_STATE=$E2E_DIR/state/shell.ids BENCH_SYSTEMCTL=/bin/true SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf=
exec $top/bench/shell-$h.sh
EOT
		chmod 0755 "$E2E_DIR/$h"
	done
	extra="Prolog=$E2E_DIR/prolog
Epilog=$E2E_DIR/epilog"
	;;
*) echo "unknown variant $variant" >&2; exit 2 ;;
esac
export E2E_SLURM_CONF_EXTRA=$extra
# A no-op systemctl: only the plugin's own cost is measured.
SYSTEMCTL=/bin/true
cluster_start
# ... and an exporter that stays "alive" in the harness's cgroup tree, so
# joins do not restart it.
mkdir -p "$CGROUP_UNIT"

opt=
[ "$variant" = ebpf ] && opt=--ebpf
# CPU time of the whole machine (every process, the daemons, sbatch and
# the jobs included): far steadier than the wall time, which follows
# slurmctld's scheduling passes. The machine should be otherwise idle.
cpu_ticks() {
	awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat
}
c0=$(cpu_ticks)
t0=$(date +%s.%N)
i=0
while [ $i -lt "$jobs" ]; do
	sbatch --parsable -D "$E2E_DIR/work" -o /dev/null $opt --wrap true >/dev/null ||
		diag "sbatch failed"
	i=$((i + 1))
done
wait_until 600 "all $jobs jobs gone" queue_empty
t1=$(date +%s.%N)
c1=$(cpu_ticks)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", (b - a) / hz}')
diag "$(grep -cE "$(hold_taken_re)|$(hold_released_re)" "$SLURMD_LOG") plugin prolog/epilog lines in the slurmd log"
ok_if "every job ran (none left, node not drained)" sh -c "! sinfo -h -o %T | grep -qi drain"
line="e2e-$variant jobs=$jobs wall_s=$wall jobs_per_s=$(awk -v n="$jobs" -v w="$wall" 'BEGIN {printf "%.1f", n / w}') cpu_s=$cpu"
diag "$line"
echo "$line" >> "${BENCH_OUT:-/dev/null}"
cluster_finish
