#!/bin/bash
# Debian 12's node (Slurm 22.05) with Slurm's own cgroups, on Debian 11's
# cloud kernel (5.10) under qemu, which the probes do not support: the
# job runs, the set fails to start and says why. See tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
vm_suite bookworm bullseye old-kernel
