#!/bin/bash
# System tests on Debian trixie (Slurm 24.11): the packages built and installed
# in a container with real systemd; see tests/lib/system.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/system.sh"
. "${srcdir:-.}/tests/system/scenarios.sh"
. "${srcdir:-.}/tests/system/pace.sh"
. "${srcdir:-.}/tests/system/real.sh"
# From 24.11 slurmd logs what a prolog/epilog writes to stderr only at
# debug2; with the journal as its only log, the plugin's lines (errors
# included) show up only with SlurmdSyslogDebug (docs/OPERATING.md,
# "Logging").
export SYSTEM_SLURMD_SYSLOG_DEBUG=${SYSTEM_SLURMD_SYSLOG_DEBUG-info}
sys_main trixie
