#!/bin/bash
# ebpf_exporter's time to READY with 1, 2 and 5 configs, on this host (no
# systemd needed): for each set, RUNS starts of the binary
# tests/exporter/build.sh cached, as root, with --config.strict. Two
# figures per start, in ms: from exec to its port accepting a connection
# (it listens just before it sends READY=1, after every program is
# attached), and its own "Started with ... in Nms" (attach time, from its
# start). Median (min-max) of RUNS, as a Markdown table.
#
#   bench/exporter-ready.sh [RUNS]       (default 10)
set -u
runs=${1:-10}
# build.sh's result for the pinned version (packaging/ebpf-exporter/VERSION).
dir=${SYSTEM_EXPORTER_DIR:-${SYSTEM_CACHE:-/var/cache/slurm-spank-ebpf-tests}/exporter/$(cat "$(dirname "$0")/../packaging/ebpf-exporter/VERSION")-r1}
bin=$dir/bin/ebpf_exporter
port=${EXPORTER_READY_PORT:-19435}
[ "$(id -u)" -eq 0 ] || { echo "exporter-ready.sh: run as root (eBPF)" >&2; exit 1; }
[ -x "$bin" ] || { echo "exporter-ready.sh: no $bin (tests/exporter/build.sh)" >&2; exit 1; }

stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%g (%d-%d)", m, v[1], v[NR] }'
}

log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
echo "| configs | n | to port open, ms | its own attach time, ms |"
echo "|---|---|---|---|"
for set in biolatency biolatency,syscalls biolatency,syscalls,cgroup,kfree_skb,timers; do
	walls='' owns=''
	for _ in $(seq 1 "$runs"); do
		t0=$(date +%s%N)
		OTEL_TRACES_EXPORTER=none "$bin" --config.dir="$dir/configs" --config.names="$set" \
			--config.strict --web.listen-address="127.0.0.1:$port" >"$log" 2>&1 &
		pid=$!
		until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
			kill -0 "$pid" 2>/dev/null || { echo "exporter-ready.sh: it exited: $(tail -n 3 "$log")" >&2; exit 1; }
			sleep 0.005
		done
		t1=$(date +%s%N)
		kill -TERM "$pid"
		wait "$pid" 2>/dev/null
		walls="$walls $(((t1 - t0) / 1000000))"
		owns="$owns $(sed -n 's/.*Started with .* in \([0-9]*\)ms.*/\1/p' "$log")"
		sleep 0.5
	done
	printf '| %s | %d | %s | %s |\n' "$set" "$(echo "$set" | tr ',' '\n' | wc -l)" \
		"$(printf '%s\n' $walls | stats)" "$(printf '%s\n' $owns | stats)"
done
