#!/bin/bash
# Debian trixie's node (Slurm 24.11) with Slurm's own cgroups, on trixie's
# cloud kernel (6.12) under qemu: jobs in slurmstepd's cgroups. See
# tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
vm_suite trixie trixie cgroup-jobs
