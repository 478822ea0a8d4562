#!/bin/bash
# probes/tests/verify.sh on trixie's cloud kernel (6.12) under qemu, in
# trixie's node (make check-vm: about fifteen minutes). See tests/vm/suite.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
# Then the fs set with jobs through Slurm on tmpfs, ext4 and NFS
# (tests/vm/guest/probes-fs.sh; the node's NFS server installed first).
VM_NODE_FILES=vm_nfs_packages vm_suite trixie trixie probes probes-fs
