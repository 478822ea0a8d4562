#!/bin/bash
# Debian trixie's node (Slurm 24.11) with Slurm's own cgroups, on trixie's
# cloud kernel (6.12) under qemu: jobs in slurmstepd's cgroups; then the
# fs set with jobs through Slurm on tmpfs, ext4 and NFS (the node's own
# server over loopback: tests/vm/guest/probes-fs.sh), its objects built
# by trixie's clang 19 as trixie's packages are. See tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
VM_NODE_FILES=vm_nfs_packages vm_suite trixie trixie cgroup-jobs probes-fs
