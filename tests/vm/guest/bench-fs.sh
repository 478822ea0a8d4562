# In the VM (tests/vm/files/guest), by hand only (a benchmark, not a
# test: VM_SCENARIOS=bench-fs tests/vm/probes-6.1.sh): what the fs set
# costs a workload it observes, where the kernel takes fentry programs
# (this project's CI host refuses them). bench/probepair.sh, paired, in
# turn with no exporter: spank-fs with the workload's cgroup admitted as
# job 42, then spank-fs's hooks with programs that return at once
# (bench/probe_floor.bpf.c -DFLOOR_FS), on 4 KiB reads of a cached file,
# files made, stat'ed and removed on a tmpfs, and pipe round trips (no
# data call: within noise is the goal). Its summary lines are comments;
# the points say only that each ran and observed the job.
vm_scenario_bench_fs() {
	local d=/usr/local/share/sse-vm/src fl=/var/tmp/sse-bench-fs-floor w out pairs=${VM_BENCH_PAIRS:-21}
	mkdir -p "$fl"
	ok_if "bench: probe_load built in the guest" gcc -O2 -o "$d/bench/probe_load" "$d/bench/probe_load.c"
	ok_if "bench: the fs floor built (spank-fs's hooks, empty programs)" \
		clang -target bpf -O2 -g -Wall -DFLOOR_FS -idirafter "/usr/include/$(gcc -print-multiarch)" \
		-c "$d/bench/probe_floor.bpf.c" -o "$fl/spank-fs.bpf.o"
	cp "$d/bench/probe_floor.yaml" "$fl/spank-fs.yaml"
	for w in cread meta pipe; do
		out=$(EXPORTER=/usr/local/bin/ebpf_exporter timeout 1800 bash "$d/bench/probepair.sh" spank-fs "$w" "$pairs" 2>&1)
		printf '%s\n' "$out" | sed 's/^/# /'
		ok_if "bench: spank-fs on $w, $pairs pairs, the job observed in each" \
			test "$(printf '%s\n' "$out" | grep -c 'job_series=[1-9]')" -eq "$pairs"
		[ "$w" != pipe ] || continue
		out=$(PROBEPAIR_CONFIG_DIR=$fl EXPORTER=/usr/local/bin/ebpf_exporter timeout 1800 \
			bash "$d/bench/probepair.sh" spank-fs "$w" "$pairs" 2>&1)
		printf '%s\n' "$out" | sed 's/^/# floor: /'
		like "bench: the floor on $w, $pairs pairs" "$out" "probepair-spank-fs-$w pairs=$pairs median"
	done
}
