#!/bin/bash
# Multi-host tests on Debian sid (Slurm 26.05): ctl, node1 and node2,
# each a container with real systemd; see tests/lib/multihost.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/multihost.sh"
. "${srcdir:-.}/tests/cluster/scenarios.sh"
# From 24.11 slurmd logs a prolog's stderr only at debug2
# (docs/OPERATING.md, "Logging").
export SYSTEM_SLURMD_SYSLOG_DEBUG=${SYSTEM_SLURMD_SYSLOG_DEBUG-info}
cl_main sid
