#!/bin/bash
# System tests on Debian trixie (Slurm 24.11): the packages built and installed
# in a container with real systemd; see tests/lib/system.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/system/suite.sh"
system_suite trixie
