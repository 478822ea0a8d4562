#!/bin/bash
# Debian sid's node (Slurm 26.05: job cgroups named by SLUID) with Slurm's
# own cgroups, on Debian 12's cloud kernel (6.1) under qemu: jobs in
# slurmstepd's cgroups. See tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
vm_suite sid bookworm cgroup-jobs
