# A real kernel for the tests (tests/vm): Debian's cloud kernel of a
# release, booted under qemu (software emulation where there is no KVM)
# on an ext4 image made from a booted container's root filesystem (the
# packages installed there as tests/lib/system.sh installs them). The
# guest runs one scenario file with this directory's libraries (ct runs
# commands in the guest itself) and writes its TAP to its second serial
# port; the host relays those points as its own. No network: the guest
# has no NIC, unless a suite gives it one (vm_start's qemu arguments).
#
#   vm_kernel SUITE      KVER, KDIR: SUITE's newest cloud kernel, its
#                        modules and an initramfs, cached
#   vm_guest_files ROOT SCENARIO
#                        the test runner, its libraries and the scenario
#                        put in ROOT (the booted container's, stopped)
#   vm_image ROOT IMG    IMG, an ext4 image of ROOT (mkfs.ext4 -d)
#   vm_boot IMG SECONDS  boots it, bounded; relays the guest's points
#   vm_start IMG SECONDS DIR [QEMU-ARGS...]
#                        the same boot in the background (VM_PID), its
#                        logs in DIR, with more qemu arguments (a NIC);
#                        vm_wait PID DIR then waits for it and
#                        vm_relay relays its points (tests/vm/two-nodes.sh
#                        boots two guests so)
#
# Sourced after tests/lib/system.sh (sys_locked, SYS_CACHE, sys_mirror).

VM_CACHE=$SYS_CACHE/vm
# What the initramfs loads to find the root disk: virtio's PCI transport
# and block driver (modules in Debian's cloud kernels), with what they
# need (modules.dep).
VM_INITRD_MODULES="virtio_pci virtio_blk"
VM_GUEST_DIR=/usr/local/share/sse-vm

# _vm_apt SUITE APT-ARGS...: apt-get (or apt-cache, when the first argument
# is "cache") on SUITE's main archive alone, in a state of its own under
# VM_CACHE: the host's packages and lists are not touched.
_vm_apt() {
	local suite=$1 d=$VM_CACHE/apt-$1 tool=apt-get
	shift
	[ "$1" != cache ] || { tool=apt-cache; shift; }
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	[ -f "$d/sources.list" ] || echo "deb $(sys_mirror) $suite main" >"$d/sources.list"
	"$tool" -q -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o Dir::State::Status=/dev/null \
		-o APT::Architecture=amd64 -o APT::Sandbox::User=root "$@"
}

# vm_kernel SUITE: KVER (its uname -r), KDIR (vmlinuz, initrd.img,
# lib/modules/KVER, version: the package and its version) for SUITE's
# cloud kernel, the one linux-image-cloud-amd64 depends on. The archive
# keeps only the current ABI of a release: the newest is fetched again
# after SYS_CACHE_DAYS, and each run says which it used.
vm_kernel() {
	VM_SUITE=$1
	sys_locked "$VM_CACHE/kernel-$1.lock" _vm_kernel_locked
}

_vm_kernel_locked() {
	local pick=$VM_CACHE/kernel-$VM_SUITE.current pkg ver deb new age m
	if [ -f "$pick" ] && [ -d "$VM_CACHE/$(cat "$pick")" ]; then
		age=$((($(date +%s) - $(stat -c %Y "$pick")) / 86400))
		if [ "$age" -lt "$SYS_CACHE_DAYS" ]; then
			KDIR=$VM_CACHE/$(cat "$pick")
			KVER=$(ls "$KDIR/lib/modules")
			return 0
		fi
	fi
	mkdir -p "$VM_CACHE"
	_vm_apt "$VM_SUITE" update >"$VM_CACHE/apt-$VM_SUITE.log" 2>&1 ||
		{ show "$(tail -n 5 "$VM_CACHE/apt-$VM_SUITE.log")"; bail "apt-get update for $VM_SUITE failed"; }
	pkg=$(_vm_apt "$VM_SUITE" cache depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-cloud-amd64\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || bail "$VM_SUITE: no linux-image-cloud-amd64 (or what it depends on) in the archive"
	ver=$(_vm_apt "$VM_SUITE" cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	new=$VM_CACHE/${pkg}_$ver
	if [ ! -f "$new/done" ]; then
		rm -rf "$new" "$new.deb.d"
		mkdir -p "$new.deb.d"
		(cd "$new.deb.d" && _vm_apt "$VM_SUITE" download "$pkg=$ver") >>"$VM_CACHE/apt-$VM_SUITE.log" 2>&1 ||
			{ show "$(tail -n 5 "$VM_CACHE/apt-$VM_SUITE.log")"; bail "$VM_SUITE: could not download $pkg $ver"; }
		deb=$(ls "$new.deb.d"/*.deb)
		mkdir -p "$new/x"
		dpkg-deb -x "$deb" "$new/x" || bail "dpkg-deb -x $deb failed"
		# /lib/modules, or /usr/lib/modules from trixie on.
		m=$(ls -d "$new"/x/lib/modules/* "$new"/x/usr/lib/modules/* 2>/dev/null | head -n 1)
		KVER=${m##*/}
		mkdir -p "$new/lib/modules"
		{ [ -n "$KVER" ] && mv "$m" "$new/lib/modules/" &&
			cp "$new/x/boot/vmlinuz-$KVER" "$new/vmlinuz" &&
			cp "$new/x/boot/config-$KVER" "$new/config"; } ||
			bail "$VM_SUITE: $deb has no kernel and modules where expected"
		rm -rf "$new/x" "$new.deb.d"
		depmod -b "$new" "$KVER" || bail "depmod for $KVER failed"
		_vm_initramfs "$new" "$KVER"
		echo "$pkg $ver" >"$new/version"
		touch "$new/done"
	fi
	basename "$new" >"$pick"
	KDIR=$new
	KVER=$(ls "$KDIR/lib/modules")
}

# _vm_initramfs KDIR KVER: KDIR/initrd.img, busybox (static) and the
# modules of VM_INITRD_MODULES, uncompressed (busybox's insmod reads plain
# .ko files; the kernel takes them either way); /init mounts /dev/vda and
# becomes the image's systemd.
_vm_initramfs() {
	local kdir=$1 kver=$2 t m f
	command -v busybox >/dev/null && busybox --list | grep -qx switch_root ||
		missing "a static busybox (Debian: busybox-static) for the VM's initramfs"
	t=$(mktemp -d)
	mkdir -p "$t/bin" "$t/proc" "$t/sys" "$t/dev" "$t/newroot" "$t/m"
	cp "$(command -v busybox)" "$t/bin/busybox"
	for m in $(_vm_module_order "$kdir" "$kver" $VM_INITRD_MODULES); do
		f=$t/m/$(basename "$m")
		case $m in
		*.ko.xz) xz -dc "$kdir/lib/modules/$kver/$m" >"${f%.xz}" && f=${f%.xz} ;;
		*.ko.zst) zstd -qdc "$kdir/lib/modules/$kver/$m" >"${f%.zst}" && f=${f%.zst} ;;
		*) cp "$kdir/lib/modules/$kver/$m" "$f" ;;
		esac || bail "could not unpack $m"
		echo "/m/$(basename "$f")" >>"$t/modules"
	done
	cat >"$t/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do insmod "$m" || echo "initramfs: insmod $m failed"; done </modules
i=0
while [ ! -b /dev/vda ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
	echo "initramfs: could not mount /dev/vda"
	reboot -f
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
EOF
	chmod 0755 "$t/init"
	(cd "$t" && find . | cpio -o -H newc --quiet | gzip -1) >"$kdir/initrd.img" ||
		bail "could not make the initramfs"
	rm -rf "$t"
}

# _vm_module_order KDIR KVER MODULE...: the modules' files (relative to
# lib/modules/KVER), each after what it depends on, from modules.dep.
_vm_module_order() {
	local kdir=$1 kver=$2
	shift 2
	awk -v want="$*" '
		BEGIN { n = split(want, w, " ") }
		{
			f = $1; sub(/:$/, "", f)
			name = f; sub(/.*\//, "", name); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", name)
			gsub(/-/, "_", name)
			file[name] = f
			deps[name] = ""
			for (i = 2; i <= NF; i++) {
				d = $i; sub(/.*\//, "", d); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", d); gsub(/-/, "_", d)
				deps[name] = deps[name] " " d
			}
		}
		function visit(m,   k, a, i) {
			if (m in done || !(m in file)) return
			done[m] = 1
			k = split(deps[m], a, " ")
			for (i = k; i >= 1; i--) visit(a[i])
			print file[m]
		}
		END { for (i = 1; i <= n; i++) visit(w[i]) }' "$kdir/lib/modules/$kver/modules.dep"
}

# vm_guest_files ROOT SCENARIO...: what the guest needs besides the
# installed packages: the kernel's modules, an fstab, the runner and its
# unit (enabled), the libraries it sources and the scenario files (each
# defines vm_scenario_<name>, run in the order given by basename).
vm_guest_files() {
	local root=$1 f
	shift
	mkdir -p "$root/lib/modules" "$root$VM_GUEST_DIR/lib" "$root$VM_GUEST_DIR/scenarios"
	cp -a "$KDIR/lib/modules/$KVER" "$root/lib/modules/" || bail "could not copy the modules of $KVER"
	# The initramfs mounts the root read-write; no udev in these root
	# filesystems, so no device unit to wait for.
	echo "# / is mounted by the initramfs (tests/lib/vm.sh)" >"$root/etc/fstab"
	for f in tap.sh slurm.sh plugin.sh exporter.sh journal.sh; do
		cp "$SYS_TOP/tests/lib/$f" "$root$VM_GUEST_DIR/lib/" || bail "could not copy tests/lib/$f"
	done
	install -m 0755 "$SYS_TOP/tests/vm/files/guest" "$root$VM_GUEST_DIR/guest"
	install -m 0644 "$SYS_TOP/tests/vm/files/sse-vm-test.service" "$root/etc/systemd/system/"
	ln -sf ../sse-vm-test.service "$root/etc/systemd/system/multi-user.target.wants/sse-vm-test.service"
	# probes/tests/verify.sh and what it sources, for the probes scenario.
	mkdir -p "$root$VM_GUEST_DIR/src/tests"
	cp -r "$SYS_TOP/probes" "$root$VM_GUEST_DIR/src/" || bail "could not copy probes/"
	ln -sfn ../../lib "$root$VM_GUEST_DIR/src/tests/lib"
	: >"$root$VM_GUEST_DIR/scenarios.list"
	for f in "$@"; do
		cp "$f" "$root$VM_GUEST_DIR/scenarios/" || bail "could not copy $f"
		basename "$f" .sh >>"$root$VM_GUEST_DIR/scenarios.list"
	done
}

# vm_image ROOT IMG: an ext4 image holding ROOT (sparse; the guest's
# free space is what the jobs write).
vm_image() {
	local t0
	t0=$(date +%s)
	rm -f "$2"
	# Root's alone: it holds every file of the node whatever its mode
	# (the test cluster's munge key, /etc/shadow), and the run
	# directory is readable by all.
	(umask 077 && mkfs.ext4 -q -F -L sse-root -d "$1" "$2" "${VM_IMAGE_SIZE:-6G}") >"$RUN/log/mkfs.log" 2>&1 ||
		{ show "$(tail -n 10 "$RUN/log/mkfs.log")"; bail "mkfs.ext4 -d $1 failed"; }
	[ "$(stat -c %a "$2")" = 600 ] || bail "the image $2 is readable by others"
	diag "vm: image of $(du -sh --apparent-size "$1" 2>/dev/null | cut -f1) made in $(($(date +%s) - t0)) s"
}

# vm_boot IMG SECONDS: boots KDIR's kernel on IMG with the guest's
# systemd, two CPUs and VM_MEMORY MiB, no NIC; the guest's first serial
# port is the console ($RUN/log/vm-console.log), its second the runner's
# TAP, relayed here (vm_relay). Killed after SECONDS.
vm_boot() {
	local rc
	vm_start "$1" "$2" "$RUN/log"
	vm_wait "$VM_PID" "$RUN/log"
	rc=$?
	vm_relay "$rc"
}

# vm_start IMG SECONDS DIR [QEMU-ARGS...]: vm_boot's qemu in the
# background, VM_PID its (timeout's) PID, its logs in DIR: the console
# (vm-console.log), the TAP port (vm-tap.log), qemu's own (qemu.log).
# QEMU-ARGS add devices (a NIC: -netdev/-device); VM_APPEND adds to the
# kernel's command line (the guest reads its part there: -append is one);
# VM_CPUS, the guest's CPUs (2); VM_ICOUNT, qemu's -icount (a bench's:
# shift=0,sleep=off makes the guest's clock count the instructions it
# ran, a nanosecond each, whatever the host's load).
vm_start() {
	local img=$1 secs=$2 dir=$3
	shift 3
	mkdir -p "$dir"
	: >"$dir/vm-tap.log"
	date +%s >"$dir/vm-started"
	# Software emulation (this kind of machine's /dev/kvm fails on an
	# MSR), both vCPUs on one host thread: with one each (MTTCG), a 6.12
	# guest patching a tracepoint into __schedule panicked (Oops: int3).
	timeout -k 10 "$secs" qemu-system-x86_64 -nodefaults -no-user-config -machine pc -accel tcg,thread=single \
		-cpu max -smp "${VM_CPUS:-2},sockets=1,cores=${VM_CPUS:-2},threads=1" -m "${VM_MEMORY:-3072}" -display none -no-reboot -nic none \
		-kernel "$KDIR/vmlinuz" -initrd "$KDIR/initrd.img" \
		-append "console=ttyS0 panic=-1 systemd.show_status=0 systemd.getty_auto=0${VM_APPEND:+ $VM_APPEND}" \
		-drive "file=$img,format=raw,if=virtio,cache=unsafe" \
		-serial "file:$dir/vm-console.log" -serial "file:$dir/vm-tap.log" ${VM_ICOUNT:+-icount "$VM_ICOUNT"} "$@" \
		</dev/null >"$dir/qemu.log" 2>&1 &
	VM_PID=$!
}

# vm_wait PID DIR: waits for vm_start's qemu (bounded by its timeout);
# its status. VM_SECONDS: how long it ran.
vm_wait() {
	local rc
	wait "$1"
	rc=$?
	VM_SECONDS=$(($(date +%s) - $(cat "$2/vm-started")))
	diag "vm: $(cat "$KDIR/version") (tcg${VM_ICOUNT:+, -icount $VM_ICOUNT}), booted and ran for $VM_SECONDS s; qemu exit $rc${VM_NAME:+ ($VM_NAME)}"
	return "$rc"
}

# vm_relay QEMU_STATUS [DIR [PREFIX]]: the guest's points (DIR's, by
# default $RUN/log) as this script's own (their numbers are this
# script's, their names after PREFIX), its comments as comments; a point
# that the guest ran to its end (its last line), else the console's tail.
vm_relay() {
	local line end= dir=${2:-$RUN/log} pre=${3:-}
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"ok "*"# SKIP"*) skip_point "$pre${line#*# SKIP }" ;;
		"ok "*) tap_point "$pre$(echo "$line" | sed 's/^ok [0-9]* - //')" 0 ;;
		"not ok "*) tap_point "$pre$(echo "$line" | sed 's/^not ok [0-9]* - //')" 1 ;;
		"#"*) echo "$line" ;;
		"Bail out! "*) diag "${pre}vm: the guest's scenario bailed: ${line#Bail out! }" ;;
		"sse-vm: end") end=1 ;;
		esac
	done <"$dir/vm-tap.log"
	if ! ok_if "${pre}vm: the guest ran every scenario to its end and powered off (qemu exit $1)" \
		test -n "$end" -a "$1" -eq 0; then
		show "$(tail -n 40 "$dir/vm-console.log" | tr -d '\r')"
	fi
}

# vm_boot_linked SECONDS NET: two guests of $RUN/root.img (node2 boots
# a copy), linked by a private L2 network between their qemu processes
# (qemu's socket netdev on 127.0.0.1: no root networking on the host).
# The image's sse-vm-net (tests/vm/suite.sh's vm_link_files) reads each
# one's name and address from the kernel's command line: node1 at NET.1,
# node2 at NET.2. node1 listens on the link's port, node2 connects. Each
# guest is emulated on its own host thread. Waits for node1, then for
# node2 (a minute at the most after node1: then stopped); both relayed,
# node2's points named so. VM_LINK_PIDS: their qemu while they run
# (vm_link_stop, in a teardown).
vm_boot_linked() {
	local secs=$1 net=$2 port p1 p2 rc1 rc2
	port=$(_vm_link_port) || bail "no free port on 127.0.0.1 for the guests' link"
	cp --sparse=always "$RUN/root.img" "$RUN/node2.img" || bail "could not copy the image"
	VM_APPEND="sse.node=node1 sse.addr=$net.1/24${VM_APPEND:+ $VM_APPEND}" vm_start "$RUN/root.img" "$secs" "$RUN/log/node1" \
		-netdev "socket,id=n0,listen=127.0.0.1:$port" -device virtio-net-pci,netdev=n0,mac=52:54:00:77:00:01
	p1=$VM_PID VM_LINK_PIDS=$VM_PID
	# qemu accepts one peer: its socket polled with ss, never connected to.
	wait_until 30 "node1's qemu listening on 127.0.0.1:$port" _vm_link_listening "$port" ||
		bail "node1's qemu does not listen on 127.0.0.1:$port: $(cat "$RUN/log/node1/qemu.log")"
	VM_APPEND="sse.node=node2 sse.addr=$net.2/24${VM_APPEND:+ $VM_APPEND}" vm_start "$RUN/node2.img" "$secs" "$RUN/log/node2" \
		-netdev "socket,id=n0,connect=127.0.0.1:$port" -device virtio-net-pci,netdev=n0,mac=52:54:00:77:00:02
	p2=$VM_PID VM_LINK_PIDS="$p1 $p2"
	diag "two nodes: node1 (qemu $p1) and node2 (qemu $p2) linked through 127.0.0.1:$port"
	VM_NAME=node1 vm_wait "$p1" "$RUN/log/node1"
	rc1=$?
	wait_until 60 "node2 powered off" eval "! kill -0 $p2 2>/dev/null" || kill "$p2" 2>/dev/null
	VM_NAME=node2 vm_wait "$p2" "$RUN/log/node2"
	rc2=$?
	VM_LINK_PIDS=
	vm_relay "$rc1" "$RUN/log/node1"
	vm_relay "$rc2" "$RUN/log/node2" "node2: "
	rm -f "$RUN/root.img" "$RUN/node2.img"
}

# vm_link_stop: vm_boot_linked's qemu, if still running, stopped by PID.
vm_link_stop() {
	local p
	for p in ${VM_LINK_PIDS:-}; do
		kill "$p" 2>/dev/null
	done
	VM_LINK_PIDS=
}

# _vm_link_port: a TCP port of 127.0.0.1 nothing listens on.
_vm_link_port() {
	local p
	for p in $(shuf -i 20000-60000 -n 20); do
		_vm_link_listening "$p" || { echo "$p"; return 0; }
	done
	return 1
}

_vm_link_listening() {
	[ -n "$(ss -Hltn "sport = :$1")" ]
}
