#!/bin/sh
# The alternative an admin would write instead of the plugin: a Prolog=
# script doing the same bookkeeping with flock(1) and systemctl. Used only
# by the benchmarks. Settings come from the environment: BENCH_STATE,
# BENCH_SYSTEMCTL; the job from SLURM_JOB_ID.
[ -n "${SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf+x}" ] || exit 0
state=${BENCH_STATE:-/run/ebpf_exporter.ids}
exec 9>>"$state.lock"
flock -w 30 9 || exit 0
touch "$state"
if ! grep -qx "$SLURM_JOB_ID" "$state"; then
	echo "$SLURM_JOB_ID" >> "$state"
	if [ "$(wc -l < "$state")" -eq 1 ]; then
		timeout 10 "${BENCH_SYSTEMCTL:-/usr/bin/systemctl}" start ebpf_exporter
	fi
fi
exit 0
