# In the VM (tests/vm/files/guest): probes/tests/verify.sh on this kernel,
# as on the host (tests/probes.sh): the probes built here with the guest's
# clang, loaded by the real ebpf_exporter, fed by processes in cgroups it
# makes; its points relayed, each prefixed with the kernel.
vm_scenario_probes() {
	local d=/usr/local/share/sse-vm/src k
	k=$(uname -r)
	EXPORTER=/usr/bin/ebpf_exporter CGROUP2=/sys/fs/cgroup PROBES_WORK=/var/tmp/spank-probe-test \
		timeout 1800 bash "$d/probes/tests/verify.sh" 2>&1 </dev/null |
		sed -e "s/^ok \([0-9]*\) - /ok \1 - probes on $k: /" -e "s/^not ok \([0-9]*\) - /not ok \1 - probes on $k: /" \
			-e "s/^Bail out! /not ok 0 - probes on $k: verify.sh bailed out: /"
}
