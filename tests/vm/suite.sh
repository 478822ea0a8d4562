# What every VM suite runs (tests/vm/<release>-<kernel>.sh): a release's
# node prepared as tests/system prepares it (its cached root filesystem,
# this tree's packages built and installed, the real ebpf_exporter), then
# with Slurm's own cgroups (cgroup/v2, proctrack/cgroup, task/cgroup,
# memory limits) and no hand-made cgroup, booted on a real kernel
# (tests/lib/vm.sh); the scenarios run in the guest. Sourced after
# tests/lib/tap.sh.
. "${srcdir:-.}/tests/lib/system.sh"
. "${srcdir:-.}/tests/lib/vm.sh"
. "${srcdir:-.}/tests/system/real.sh"

# The command, where the package puts it (the guest's too: vm-env.sh).
SYS_ADMIN_CMD=/usr/sbin/spank-ebpf

# The sets the guest's jobs ask for: tests/system's (io, sched,
# sched-detail: real.sh), the oom set, the fs set with both its configs
# and fs-nfs with the NFS one alone (which needs the nfs modules loaded:
# tests/vm/guest/probes-fs.sh loads them before its first job).
_vm_sets_file() {
	_real_sets_file
	cat <<EOT

[oom]
description = Processes of the job the OOM killer chose
configs = spank-oom
listen = 127.0.0.1:943
linger = 0

[fs]
description = File system calls, bytes and metadata latency, NFS RPCs of the job
configs = spank-fs,spank-fs-nfs
listen = 127.0.0.1:945
linger = 0

[fs-nfs]
description = NFS calls, bytes, metadata latency and RPCs of the job
configs = spank-fs-nfs
listen = 127.0.0.1:946
linger = 0
EOT
}

# _vm_slurm_conf: slurm.conf and cgroup.conf as sites configure Slurm's
# own cgroups; slurmstepd's debug3 lines (the limits it writes into a job's cgroup)
# in the journal.
_vm_slurm_conf() {
	SYSTEM_SLURMD_SYSLOG_DEBUG=debug3 SYSTEM_SLURMD_DEBUG=debug3 sys_slurm_conf_text |
		sed -e 's|^ProctrackType=.*|ProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup|' \
			-e 's|^SelectTypeParameters=.*|SelectTypeParameters=CR_Core_Memory\nDefMemPerNode=256|' \
			-e "s|^\\(NodeName=.*\\) State=UNKNOWN|\\1 RealMemory=$VM_REAL_MEMORY State=UNKNOWN|" \
			>"$NODE_ROOT/etc/slurm/slurm.conf"
	printf 'CgroupPlugin=cgroup/v2\nConstrainCores=yes\nConstrainRAMSpace=yes\n' \
		>"$NODE_ROOT/etc/slurm/cgroup.conf"
}

# _vm_node_files: what the guest's node needs that a container gets from
# nspawn: an IPv4 address besides 127.0.0.1 (Slurm resolves 127.0.0.1
# with AI_ADDRCONFIG), made before Slurm starts, without a NIC.
_vm_node_files() {
	install -m 0644 "$SYS_TOP/tests/vm/files/sse-vm-addr.service" "$NODE_ROOT/etc/systemd/system/"
	ln -sf ../sse-vm-addr.service "$NODE_ROOT/etc/systemd/system/multi-user.target.wants/sse-vm-addr.service"
	install -m 0755 "$SYS_TOP/tests/vm/files/vm-work" "$NODE_ROOT/usr/local/bin/sse-vm-work"
	install -m 0755 "$SYS_TOP/tests/vm/files/vm-fs-work" "$NODE_ROOT/usr/local/bin/sse-vm-fs-work"
	cat >"$NODE_ROOT$VM_GUEST_DIR/vm-env.sh" <<EOT
NODE=$NODE SYS_USER=$SYS_USER JOB_MARKS=$JOB_MARKS STATE=$STATE SUBMIT_ERR=/tmp/sbatch.err
SYS_UNIT=$SYS_UNIT SYS_SETS_FILE=$SYS_SETS_FILE SYS_ADMIN_CMD=$SYS_ADMIN_CMD JM_OTHER=sse-other
VM_SLURM=$SLURM_VERSION VM_KERNEL="$(cat "$KDIR/version")"
SUBMIT_OPTS=()
EOT
}

# vm_link_files NET: what a node needs in an image two guests boot
# linked (tests/lib/vm.sh's vm_boot_linked): both names in /etc/hosts,
# and sse-vm-net, which gives the guest its name and link address.
vm_link_files() {
	printf '127.0.0.1\tlocalhost\n%s.1\tnode1\n%s.2\tnode2\n' "$1" "$1" >"$NODE_ROOT/etc/hosts"
	install -m 0755 "$SYS_TOP/tests/vm/files/sse-vm-net" "$NODE_ROOT/usr/local/sbin/sse-vm-net"
	install -m 0644 "$SYS_TOP/tests/vm/files/sse-vm-net.service" "$NODE_ROOT/etc/systemd/system/"
	ln -sf ../sse-vm-net.service "$NODE_ROOT/etc/systemd/system/multi-user.target.wants/sse-vm-net.service"
}

# vm_link_teardown: a SYS_TEARDOWN for vm_boot_linked's scripts: the
# guests' qemu stopped (by PID), then the usual teardown.
vm_link_teardown() {
	vm_link_stop
	SYS_TEARDOWN= sys_teardown
}

# vm_suite RELEASE KERNEL-RELEASE SCENARIO...: RELEASE's node on
# KERNEL-RELEASE's cloud kernel, running the guest scenarios
# (tests/vm/guest/SCENARIO.sh) in that order.
vm_suite() {
	local kern=$2 rel=$1
	shift 2
	# VM_SCENARIOS="a b": only those, by hand.
	[ -z "${VM_SCENARIOS:-}" ] || set -- $VM_SCENARIOS
	vm_node_setup "$rel" "$kern" || return 0
	_vm_sets_file >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	vm_node_image "$@"
	vm_boot "$RUN/root.img" "${VM_TIMEOUT:-1200}"
	rm -f "$RUN/root.img"
	sys_finish
}

# vm_node_setup RELEASE KERNEL-RELEASE: RELEASE's node booted as a
# container, this tree's packages and the real exporter installed, the
# other user added; KDIR, KVER: the kernel. Without the exporter (a
# point says so) the suite is over: returns 1.
vm_node_setup() {
	VM_REAL_MEMORY=2000
	# The guest's CPUs as qemu makes them (vm_boot), not this host's.
	SYS_HW="CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1"
	sys_setup "$1"
	need_cmd qemu-system-x86_64 mkfs.ext4 cpio depmod busybox
	sys_cache
	sys_tarball
	vm_kernel "$2"
	diag "vm: $1's node on $2's kernel $KVER ($(cat "$KDIR/version"))"
	sys_boot
	sys_install
	_real_have || { sys_finish; return 1; }
	real_setup
	ct useradd -m -s /bin/sh sse-other || bail "useradd sse-other failed"
}

# vm_nfs_packages: nfs-kernel-server and nfs-common, bindfs (a FUSE file
# system, the stand-in for user-space ones) and e2fsprogs (trixie's
# minimal root has no mkfs.ext4) installed in the node's root (stopped, still mounted: VM_NODE_FILES), from its release's
# archive through the host's network (the container has none), for the
# guest's NFS server (tests/vm/guest/probes-fs.sh). Not in the shared
# root filesystems' package list: that would rebuild every cached root.
# Their services are not started here (policy-rc.d), nor enabled at boot.
vm_nfs_packages() {
	local r=$NODE_ROOT rc=0
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d" && chmod 0755 "$r/usr/sbin/policy-rc.d"
	mount --bind /proc "$r/proc" && mount --bind /dev "$r/dev" || { diag "vm: could not bind /proc, /dev"; return 1; }
	cp -L /etc/resolv.conf "$r/etc/resolv.conf.sse" 2>/dev/null
	mv -f "$r/etc/resolv.conf" "$r/etc/resolv.conf.sse-orig" 2>/dev/null
	cp "$r/etc/resolv.conf.sse" "$r/etc/resolv.conf"
	timeout 600 chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c 'apt-get -q update && apt-get -q install -y --no-install-recommends nfs-kernel-server nfs-common bindfs e2fsprogs' \
		>"$RUN/log/nfs-packages.log" 2>&1 || rc=$?
	rm -f "$r/etc/resolv.conf" "$r/etc/resolv.conf.sse" "$r/usr/sbin/policy-rc.d"
	mv -f "$r/etc/resolv.conf.sse-orig" "$r/etc/resolv.conf" 2>/dev/null
	umount "$r/dev" "$r/proc"
	ok_if "vm: nfs-kernel-server installed in the node (apt-get in its root: $RUN/log/nfs-packages.log)" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || show "$(tail -n 5 "$RUN/log/nfs-packages.log")"
}

# vm_node_image SCENARIO...: the container powered off, Slurm's own
# cgroups configured, the guest's files and scenarios
# (tests/vm/guest/SCENARIO.sh) put in, the ext4 image made
# ($RUN/root.img) and the overlay unmounted. Munge, slurmctld and slurmd
# start at boot. $VM_NODE_FILES names a function that puts more in the
# root just before the image is made (tests/vm/two-nodes.sh).
vm_node_image() {
	local s scn=
	for s in "$@"; do scn="$scn $SYS_TOP/tests/vm/guest/$s.sh"; done
	ct systemctl enable munge slurmctld slurmd >/dev/null 2>&1
	sys_nspawn_stop
	_vm_slurm_conf
	vm_guest_files "$NODE_ROOT" $scn
	_vm_node_files
	[ -z "${VM_NODE_FILES:-}" ] || "$VM_NODE_FILES"
	vm_image "$NODE_ROOT" "$RUN/root.img"
	sys_unmount "$NODE_ROOT"
	# For a look at the guest by hand (tests/README.md, "A real kernel").
	[ -z "${VM_SAVE_IMAGE:-}" ] || (umask 077 && cp --sparse=always "$RUN/root.img" "$VM_SAVE_IMAGE")
}
