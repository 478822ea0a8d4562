#!/bin/bash
# System tests on Debian sid (Slurm 26.05): the packages built and installed
# in a container with real systemd; see tests/lib/system.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/system/suite.sh"
system_suite sid
