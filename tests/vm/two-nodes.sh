#!/bin/bash
# Two guests on Debian 12's cloud kernel (6.1) under qemu (or, with
# TN_RELEASE and TN_KERNEL, another release's: tests/vm/two-nodes-6.12.sh),
# booted from two copies of one prepared node (tests/vm/suite.sh), linked
# by a private L2 network between the two qemu processes (qemu's socket
# netdev on 127.0.0.1: no root networking on the host). node1 runs
# slurmctld, slurmd, Prometheus and Slurm's accounting (slurmdbd on
# MariaDB, tests/lib/dbd.sh), node2 slurmd; both run the io set's
# exporter on their link address and node_exporter's textfile collector.
# A job on both nodes writes on each, and spank-ebpf report --cluster
# gives its figures per node from Prometheus; after its end, from the
# summary EpilogSlurmctld=spank-ebpf stored in its AdminComment, the same
# figures of both nodes, asked for (--summary) or once Prometheus has the
# job's series no more (tests/vm/guest/two-nodes.sh). Two kernels, unlike
# the containers: each node's exporter counts its own node's writes only.
# Then real NFS between them: node1 exports /srv/sse-fs-nfs
# (nfs-kernel-server), node2 mounts it with -t nfs4, and a job on node2
# asks for the fs set: its calls and RPCs counted on node2 under its ID
# alone, against node2's mountstats, in its report and summary.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/vm/suite.sh"
# jm_monitoring_conf: the monitoring files, as in the container suites.
. "${srcdir:-.}/tests/system/jobmetrics.sh"

TN_NET=10.77.0
# The node's release and its cloud kernel's (vm_node_setup).
TN_RELEASE=${TN_RELEASE:-bookworm}
TN_KERNEL=${TN_KERNEL:-bookworm}
TN_TEXTFILE=$JM_TEXTFILE
# Each guest's bound: the whole suite takes about seven minutes here (its
# root filesystem and packages cached), the guests about six, four of
# them the NFS part.
TN_TIMEOUT=${VM_TIMEOUT:-900}

# _tn_sets_file: the io and fs sets, on the node's link address (the
# guest writes it in: tests/vm/files/sse-vm-net), their jobs listed for
# node_exporter's textfile collector. The fs set is spank-fs-nfs alone,
# as a site offers it for NFS (probes/README.md): no hook outside NFS's
# own functions, and a job's NFS calls, bytes and RPCs counted all the
# same.
_tn_sets_file() {
	cat <<EOT
default = io
textfile = $TN_TEXTFILE

[io]
description = Block I/O latency and bytes of the job
configs = spank-io
listen = @SSE_VM_ADDR@:941
linger = 0

[fs]
description = NFS calls, bytes, metadata latency and RPCs of the job
configs = spank-fs-nfs
listen = @SSE_VM_ADDR@:945
linger = 0
EOT
}

# _tn_slurm_nodes: slurm.conf's controller and nodes (_vm_slurm_conf
# writes it, with Slurm's own cgroups).
_tn_slurm_nodes() {
	SYS_CONF_WHAT=two-node
	SYS_CONF_CTLD="node1($TN_NET.1)"
	SYS_CONF_NODES="NodeName=node1 NodeAddr=$TN_NET.1 $SYS_HW State=UNKNOWN
NodeName=node2 NodeAddr=$TN_NET.2 $SYS_HW State=UNKNOWN
PartitionName=main Nodes=node1,node2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8"
	NODE=node1
}

# _tn_node1_only UNIT...: UNIT starts on node1 alone (same image on both).
_tn_node1_only() {
	local u
	for u in "$@"; do
		mkdir -p "$NODE_ROOT/etc/systemd/system/$u.d"
		printf '[Unit]\nConditionKernelCommandLine=sse.node=node1\n' \
			>"$NODE_ROOT/etc/systemd/system/$u.d/sse-vm-node1.conf"
	done
}

# _tn_monitoring: jobmetrics.sh's monitoring files over the link:
# node_exporter on each node's address, Prometheus on node1 scraping both
# nodes' io and fs sets and node_exporters by name (the report names a node by
# its instance's host). Started at boot; Prometheus on node1 alone.
_tn_monitoring() {
	jm_monitoring_conf @SSE_VM_ADDR@:9100 "$TN_NET.1:9090" "'node1:941', 'node2:941', 'node1:945', 'node2:945'" "'node1:9100', 'node2:9100'"
	ct test -d "$TN_TEXTFILE" || bail "no $TN_TEXTFILE (prometheus-node-exporter ships it)"
	ct systemctl enable prometheus.service prometheus-node-exporter.service >/dev/null 2>&1 ||
		bail "could not enable prometheus and prometheus-node-exporter"
	_tn_node1_only prometheus.service slurmctld.service
}

# _tn_accounting: node1's accounting, made here as far as it can be
# without slurmctld (tests/lib/dbd.sh's steps): MariaDB's database and
# its user, slurmdbd.conf; MariaDB and slurmdbd start at boot on node1
# alone. The guest adds the cluster and its users, then restarts
# slurmctld (dbd_join). slurm.conf: _tn_node_files.
_tn_accounting() {
	dbd_store
	# Stopped cleanly before the image is made of its files.
	ct timeout 120 systemctl stop mariadb.service || bail "MariaDB did not stop"
	ct systemctl enable mariadb.service slurmdbd.service >/dev/null 2>&1 ||
		bail "could not enable mariadb and slurmdbd"
	_tn_node1_only mariadb.service slurmdbd.service
}

# _tn_node_files: after the image's usual files (vm_node_image): both
# names in /etc/hosts, the link's service, the job's payload, the guest's
# PromQL and accounting helpers (tests/system/jobmetrics.sh,
# tests/lib/dbd.sh) and what the scenario reads; slurm.conf (both
# nodes': one cluster's) with slurmdbd as its accounting storage, and
# spank-ebpf as EpilogSlurmctld, which stores a job's summary at its end.
_tn_node_files() {
	vm_link_files "$TN_NET"
	install -m 0755 "$SYS_TOP/tests/vm/files/vm-two-work" "$NODE_ROOT/usr/local/bin/sse-vm-two-work"
	cp "$SYS_TOP/tests/system/jobmetrics.sh" "$SYS_TOP/tests/lib/dbd.sh" "$NODE_ROOT$VM_GUEST_DIR/lib/" ||
		bail "could not copy jobmetrics.sh and dbd.sh"
	dbd_slurm_conf
	echo "EpilogSlurmctld=$SYS_ADMIN_CMD" >>"$NODE_ROOT/etc/slurm/slurm.conf"
	cat >>"$NODE_ROOT$VM_GUEST_DIR/vm-env.sh" <<EOT
TN_NET=$TN_NET TN_TEXTFILE=$TN_TEXTFILE
EOT
}

# _tn_nfs_files: node1's NFS server (vm_nfs_packages installed it; the
# fs set's helpers are tests/vm/guest/probes-fs.sh's): /srv/sse-fs-nfs
# exported to the link's /24, NFSv4 read-write, nfs-server started at
# boot on node1 alone; node2 mounts it (tests/vm/guest/two-nodes.sh).
_tn_nfs_files() {
	mkdir -p "$NODE_ROOT/srv/sse-fs-nfs" "$NODE_ROOT/mnt/sse-fs-nfs"
	chmod 1777 "$NODE_ROOT/srv/sse-fs-nfs"
	echo "/srv/sse-fs-nfs $TN_NET.0/24(rw,sync,no_subtree_check)" >"$NODE_ROOT/etc/exports"
	systemctl --root="$NODE_ROOT" enable nfs-server.service >/dev/null 2>&1 ||
		bail "could not enable nfs-server in the node"
	_tn_node1_only nfs-server.service
	cp "$SYS_TOP/tests/vm/guest/probes-fs.sh" "$NODE_ROOT$VM_GUEST_DIR/lib/" ||
		bail "could not copy tests/vm/guest/probes-fs.sh"
	# The dashboard, whose fs panels' queries node1 asks its Prometheus.
	cp "$SYS_TOP/contrib/grafana/job-io.json" "$NODE_ROOT$VM_GUEST_DIR/lib/" ||
		bail "could not copy contrib/grafana/job-io.json"
}

# _tn_files: what _tn_node_files puts in, after the NFS packages
# (vm_nfs_packages) and node1's export.
_tn_files() {
	vm_nfs_packages || bail "no NFS packages in the node"
	_tn_nfs_files
	_tn_node_files
}

# _tn_dump: on failure, the container's diagnostics while it runs
# (sys_dump); once the image is made, where the guests' logs are: their
# consoles and TAP (the points relayed above carry their own details).
_tn_dump() {
	if [ -n "$CT_NSPAWN" ]; then
		SYS_DUMP= sys_dump
		return
	fi
	diag "two nodes: each guest's console, TAP and qemu log: $RUN/log/node1, $RUN/log/node2"
}

# A missing prerequisite fails this suite rather than skipping it
# (tests/lib/tap.sh's missing, as in CI): its point is the real report.
CI=${CI:-two-nodes}
vm_node_setup "$TN_RELEASE" "$TN_KERNEL" || exit 0
need_cmd ss shuf
SYS_TEARDOWN=vm_link_teardown SYS_DUMP=_tn_dump
_tn_sets_file >"$NODE_ROOT$SYS_SETS_FILE"
chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
# prometheus=: where EpilogSlurmctld's spank-ebpf reads the job's figures.
plugin_args mode=opt-in "sets=$SYS_SETS_FILE" "prometheus=http://$TN_NET.1:9090/"
_tn_monitoring
_tn_accounting
_tn_slurm_nodes
VM_NODE_FILES=_tn_files vm_node_image two-nodes
# node1 runs the scenario and tells node2 when it is over.
vm_boot_linked "$TN_TIMEOUT" "$TN_NET"
sys_finish
