#!/bin/bash
# probes/tests/verify.sh on Debian 12's cloud kernel (6.1) under qemu, in
# Debian 12's node (make check-vm: about fifteen minutes). See
# tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
# Then the fs set with jobs through Slurm on tmpfs, ext4 and NFS
# (tests/vm/guest/probes-fs.sh; the node's NFS server installed first).
VM_NODE_FILES=vm_nfs_packages vm_suite bookworm bookworm probes probes-fs
