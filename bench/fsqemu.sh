#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fs set's paired cost where the host refuses fentry programs (this
# project's CI host: EPERM at load): bench/probepair.sh's pairs, in a
# guest of Debian's cloud kernel under qemu (tests/lib/vm.sh's kernel,
# cached) that runs nothing but an initramfs: busybox, bpftool, the real
# ebpf_exporter (the tests' cached build) and bench/probe_load (static).
# Per pair, in turn (the order flips each pair): "off", no exporter;
# "on", the exporter running spank-fs with the workload's cgroup (made in
# Slurm's layout) admitted as job 42. Then the same with the floor:
# empty programs at spank-fs's hooks (bench/probe_floor.bpf.c -DFLOOR_FS).
# Workloads: 4 KiB reads of a file in the page cache (a tmpfs), files
# made, stat'ed and removed one at a time on a tmpfs, one-byte pipe round
# trips (no data call: the filter's cost alone). One vCPU, software
# emulation: the figures are this guest's, not a node's.
#
# Usage (root, from the top of a built tree, after make probes and make
# check): bench/fsqemu.sh [SUITE [PAIRS]]   (bookworm: 6.1; trixie: 6.12)
# Prints per pair "fsqemu CONFIG WORKLOAD pair=N off_ns=.. on_ns=..
# job_series=..", then per config and workload the median of the on/off
# ratios and their quartiles.
set -u -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-bookworm}
pairs=${2:-21}
exporter=${EXPORTER:-/var/cache/slurm-spank-ebpf-tests/exporter/v2.5.1-r1/bin/ebpf_exporter}
srcdir=$top
. "$top/tests/lib/tap.sh" >/dev/null
. "$top/tests/lib/system.sh"
. "$top/tests/lib/vm.sh"
[ -x "$exporter" ] || { echo "no ebpf_exporter at $exporter (tests/exporter/build.sh)" >&2; exit 1; }
[ -f "$top/probes/spank-fs.bpf.o" ] || { echo "no probes/spank-fs.bpf.o (make)" >&2; exit 1; }
vm_kernel "$suite" >/dev/null
t=$(mktemp -d /var/tmp/fsqemu.XXXXXX)
trap 'rm -rf "$t" "$t.img"' EXIT
mkdir -p "$t/bin" "$t/proc" "$t/sys" "$t/dev" "$t/o" "$t/tmp" "$t/mnt"
cp "$(command -v busybox)" "$(command -v bpftool)" "$exporter" "$t/bin/" || exit 1
for l in $(ldd "$(command -v bpftool)" | grep -o '/lib[^ ]*'); do
	mkdir -p "$t$(dirname "$l")" && cp -L "$l" "$t$l"
done
gcc -O2 -static -o "$t/o/probe_load" "$top/bench/probe_load.c" || exit 1
clang -target bpf -O2 -g -Wall -DFLOOR_FS ${BPF_CPPFLAGS:-} -idirafter "/usr/include/$(gcc -print-multiarch)" \
	-c "$top/bench/probe_floor.bpf.c" -o "$t/o/spank-floor.bpf.o" || exit 1
cp "$top/bench/probe_floor.yaml" "$t/o/spank-floor.yaml"
cp "$top/probes/spank-fs.bpf.o" "$top/probes/spank-fs.yaml" "$t/o/"
cat >"$t/init" <<EOT
#!/bin/busybox sh
PAIRS=$pairs
EOT
cat >>"$t/init" <<'EOT'
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t cgroup2 none /sys/fs/cgroup
ip link set lo up
mkdir -p /cf/fs /cf/floor /mnt/t /mnt/m
cp /o/spank-fs.bpf.o /o/spank-fs.yaml /cf/fs/
cp /o/spank-floor.bpf.o /cf/floor/spank-fs.bpf.o
cp /o/spank-floor.yaml /cf/floor/spank-fs.yaml
mount -t tmpfs tmpfs /mnt/t
mount -t tmpfs tmpfs /mnt/m
dd if=/dev/urandom of=/mnt/t/file bs=1M count=16 2>/dev/null
CG=/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42/step_0
mkdir -p $CG
key="6a 6f 62 5f 34 32 $(printf '00 %.0s' $(seq 58))"
on() {
	ebpf_exporter --config.dir=$1 --config.names=spank-fs --web.listen-address=127.0.0.1:9435 \
		--config.strict >/tmp/exp.log 2>&1 &
	EP=$!
	i=0
	while ! wget -q -O /dev/null http://127.0.0.1:9435/metrics 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	for id in $(bpftool map show | awk -F'[: ]+' '/name spank_jobs  /{print $1}'); do
		bpftool map update id $id key hex $key value hex 2a 00 00 00 ff ff ff ff
	done
	for id in $(bpftool map show | awk -F'[: ]+' '/name spank_jobs_gen /{print $1}'); do
		bpftool map update id $id key 0 0 0 0 value 1 0 0 0 0 0 0 0
	done
}
off() {
	kill $EP
	wait $EP 2>/dev/null
}
run() {
	sh -c "echo \$\$ > $CG/cgroup.procs; exec /o/probe_load $*" | sed -n 's/^ns_per_op=\([0-9.]*\) .*/\1/p'
}
seen() {
	wget -q -O - http://127.0.0.1:9435/metrics | grep -c 'jobid="42"'
}
for cfg in fs floor; do
	for w in "cread /mnt/t/file 100000" "meta /mnt/m 5000" "pipe 50000"; do
		name=${w%% *}
		[ $cfg = floor ] && [ $name = pipe ] && continue
		p=1
		while [ $p -le $PAIRS ]; do
			if [ $((p % 2)) -eq 1 ]; then
				a=$(run $w); on /cf/$cfg; b=$(run $w); s=$(seen); off
			else
				on /cf/$cfg; b=$(run $w); s=$(seen); off; a=$(run $w)
			fi
			echo "fsqemu $cfg $name pair=$p off_ns=$a on_ns=$b job_series=$s"
			p=$((p + 1))
		done
	done
done
poweroff -f
EOT
chmod 0755 "$t/init"
(cd "$t" && find . | cpio -o -H newc --quiet | gzip -1) >"$t.img" || exit 1
echo "# fsqemu: $(cat "$KDIR/version"), $pairs pairs, one vCPU (tcg)"
timeout 7200 qemu-system-x86_64 -nodefaults -no-user-config -machine pc -accel tcg,thread=single -cpu max \
	-smp 1 -m 1536 -display none -no-reboot -nic none -kernel "$KDIR/vmlinuz" -initrd "$t.img" \
	-append "console=ttyS0 panic=-1 quiet" -serial stdio </dev/null 2>&1 | tr -d '\r' | grep --line-buffered '^fsqemu ' |
	tee "$t/pairs"
awk '
	{ for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } k = $2 " " $3; n[k]++; r[k, n[k]] = f["on_ns"] / f["off_ns"] }
	END {
		for (k in n) {
			m = n[k]
			for (i = 2; i <= m; i++) { x = r[k, i]; for (j = i - 1; j > 0 && r[k, j] > x; j--) r[k, j + 1] = r[k, j]; r[k, j + 1] = x }
			printf "fsqemu %s pairs=%d median %+.2f%% (quartiles %+.2f%% to %+.2f%%; min %+.2f%%, max %+.2f%%)\n", k, m,
				(r[k, int((m + 1) / 2)] - 1) * 100, (r[k, int((m + 3) / 4)] - 1) * 100, (r[k, int((3 * m + 1) / 4)] - 1) * 100,
				(r[k, 1] - 1) * 100, (r[k, m] - 1) * 100
		}
	}' "$t/pairs"
