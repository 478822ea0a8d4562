#!/bin/bash
# Multi-host tests on Debian bookworm (Slurm 22.05): ctl, node1 and node2,
# each a container with real systemd; see tests/lib/multihost.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/multihost.sh"
. "${srcdir:-.}/tests/cluster/scenarios.sh"
CL_MORE_SCENARIOS=real_sets
cl_main bookworm
