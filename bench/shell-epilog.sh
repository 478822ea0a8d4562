#!/bin/sh
# The Epilog= half of the shell alternative (see shell-prolog.sh).
state=${BENCH_STATE:-/run/ebpf_exporter.ids}
[ -f "$state" ] || exit 0
exec 9>>"$state.lock"
flock -w 30 9 || exit 0
if grep -qx "$SLURM_JOB_ID" "$state"; then
	grep -vx "$SLURM_JOB_ID" "$state" > "$state.tmp"
	mv "$state.tmp" "$state"
	if [ ! -s "$state" ]; then
		timeout 10 "${BENCH_SYSTEMCTL:-/usr/bin/systemctl}" stop ebpf_exporter
	fi
fi
exit 0
