#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fs set's paired cost (bench/probepair.sh) on a real kernel: this
# host's kernel refuses fentry/fexit programs, so one qemu guest
# (tests/lib/vm.sh, software emulation) of RELEASE's node runs, PAIRS
# pairs each, the fs set's configs (spank-fs-nfs, spank-fs) and their
# floors (floor-fs-nfs, floor-fs: programs that return at once at the
# same hooks) against no exporter on
#   pipe        one-byte round trips through pipes (not file-system I/O:
#               nothing to record, nothing to cost)
#   cread       4 KiB reads of a cached file on the guest's ext4 root
#   meta-tmpfs  create, stat, unlink on a tmpfs
#   meta-nfs    the same on NFS (the guest's own export, nfs4 over
#               loopback: tests/vm/guest/probes-fs.sh's _fs_nfs_setup;
#               or, FSBENCH_NFS=link, another guest's over a network)
#   write-nfs   1 MiB writes and an fsync on that NFS mount
# The guest's scenario is bench/fsbench-guest.sh; its probepair lines
# come back as comments, a point per run says it finished. A benchmark,
# not a test: not in `make test` (figures in docs/BENCHMARKS.md).
#
# Usage (root, from the top of a built tree, under the container lock
# as the VM suites):
#   bench/vm-probepair.sh [PAIRS]          PAIRS: 21 by default
# FSBENCH_RELEASE (trixie: kernel 6.12; bookworm: 6.1), FSBENCH_CPUS (the
# guest's CPUs: 1), FSBENCH_STATS (1: probepair's bpf_stats run),
# FSBENCH_WRITES (write-nfs's 1 MiB writes per run: 16), FSBENCH_RUNS
# (CONFIG:WORKLOAD pairs, in that order: by default the NFS config on
# every workload, its floor on NFS's, spank-fs and its floor on the
# others), VM_TIMEOUT (seconds for the guest, 5400), FSBENCH_SAVE (a
# file: the whole TAP log kept there), FSBENCH_NFS (loopback: the
# guest's own export; link: two guests, as tests/vm/two-nodes.sh boots
# them, node1 the NFS server and node2 the bench, so that the server's
# work is not on the bench's CPU and each call crosses a network),
# VM_ICOUNT (qemu's -icount; shift=0,sleep=off: the guest's clock counts
# its instructions, so every "ns" is an instruction and the host's load
# drops out; loopback only: two guests' clocks would each run apart).
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/lib/tap.sh"
. "$srcdir/tests/vm/suite.sh"

FSBENCH_PAIRS=${1:-21}
FSBENCH_RELEASE=${FSBENCH_RELEASE:-trixie}
FSBENCH_NFS=${FSBENCH_NFS:-loopback}
FSBENCH_NET=10.77.0
FSBENCH_RUNS=${FSBENCH_RUNS:-spank-fs-nfs:pipe spank-fs-nfs:cread spank-fs-nfs:meta-tmpfs spank-fs-nfs:meta-nfs floor-fs-nfs:meta-nfs spank-fs-nfs:write-nfs floor-fs-nfs:write-nfs spank-fs:pipe floor-fs:pipe spank-fs:cread floor-fs:cread spank-fs:meta-tmpfs floor-fs:meta-tmpfs}

# fsbench_node_files: the bench in the guest's tree (VM_GUEST_DIR/src,
# where vm_guest_files put probes/), probe_load built in the node, the
# NFS helper of tests/vm/guest/probes-fs.sh, and this run's settings.
fsbench_node_files() {
	local b=$NODE_ROOT$VM_GUEST_DIR/src/bench
	mkdir -p "$b" || bail "cannot make $b"
	cp "$SYS_TOP/bench/probepair.sh" "$SYS_TOP/bench/probe_floor.bpf.c" "$SYS_TOP/bench/probe_floor.yaml" \
		"$SYS_TOP/bench/probe_load.c" "$b/" || bail "cannot copy the bench into the node"
	chroot "$NODE_ROOT" gcc -O2 -Wall -o "$VM_GUEST_DIR/src/bench/probe_load" "$VM_GUEST_DIR/src/bench/probe_load.c" ||
		bail "cannot build probe_load in the node"
	cp "$SYS_TOP/tests/vm/guest/probes-fs.sh" "$NODE_ROOT$VM_GUEST_DIR/lib/" || bail "cannot copy probes-fs.sh"
	printf 'FSB_PAIRS=%s\nFSB_RUNS="%s"\nFSB_STATS=%s\nFSB_NFS=%s\nFSB_NET=%s\nFSB_WRITES=%s\n' "$FSBENCH_PAIRS" \
		"$FSBENCH_RUNS" "${FSBENCH_STATS:-1}" "$FSBENCH_NFS" "$FSBENCH_NET" "${FSBENCH_WRITES:-16}" \
		>"$NODE_ROOT$VM_GUEST_DIR/fsbench.env"
	vm_nfs_packages
	[ "$FSBENCH_NFS" = loopback ] || vm_link_files "$FSBENCH_NET"
}

case $FSBENCH_NFS in
loopback) ;;
link) need_cmd ss shuf ;;
*) bail "FSBENCH_NFS=$FSBENCH_NFS: loopback or link" ;;
esac

vm_node_setup "$FSBENCH_RELEASE" "$FSBENCH_RELEASE" || exit 1
# No Slurm job here (probepair.sh makes a job's cgroup): its daemons are
# not enabled, as vm_node_image would.
sys_nspawn_stop
vm_guest_files "$NODE_ROOT" "$SYS_TOP/bench/fsbench-guest.sh"
_vm_node_files
fsbench_node_files
vm_image "$NODE_ROOT" "$RUN/root.img"
sys_unmount "$NODE_ROOT"
# One CPU by default: tests/lib/vm.sh emulates a guest's CPUs in turn on
# one host thread, and with two the NFS client, its server and the
# exporter were scheduled across them at random; a pair's two runs then
# differed by up to a factor of two.
if [ "$FSBENCH_NFS" = link ]; then
	SYS_TEARDOWN=vm_link_teardown
	VM_CPUS=${FSBENCH_CPUS:-1} vm_boot_linked "${VM_TIMEOUT:-5400}" "$FSBENCH_NET"
	[ -z "${FSBENCH_SAVE:-}" ] || cp "$RUN/log/node2/vm-tap.log" "$FSBENCH_SAVE"
else
	VM_CPUS=${FSBENCH_CPUS:-1} vm_boot "$RUN/root.img" "${VM_TIMEOUT:-5400}"
	[ -z "${FSBENCH_SAVE:-}" ] || cp "$RUN/log/vm-tap.log" "$FSBENCH_SAVE"
fi
rm -f "$RUN/root.img"
sys_finish
