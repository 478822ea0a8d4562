#!/bin/bash
# The Ansible role (contrib/ansible/roles/slurm_spank_ebpf) against the
# multi-host cluster on Debian bookworm (Slurm 22.05): ctl (submit host),
# node1 and node2 (compute nodes) as the inventory, reached over real SSH
# (sshd in each container, a key made for the run) from ansible-playbook
# run on this machine inside the cluster's network namespace. The
# packages come from files (slurm_spank_ebpf_package_source=files): the
# .debs built in node1 from this tree, and a newer build of them for the
# rolling upgrade. Five parts (issue 14):
#   a1  fresh rollout, then --ebpf jobs from ctl on both nodes
#   a2  a second run changes nothing and restarts nothing
#   a3  bad values are refused by check-config on the host, nothing changes
#   a4  a new timeout and a newer package under a running --ebpf job:
#       slurmd restarted one node at a time, the job's hold untouched
#   a5  state=absent: packages and declaration gone, slurmd running; an
#       edited spank_ebpf.conf kept by remove, gone with purge
# ansible-lint over the role is tests/ansible-lint.sh.
. "${srcdir:-.}/tests/lib.sh"
. "${srcdir:-.}/tests/system/lib.sh"
. "${srcdir:-.}/tests/cluster/lib.sh"
. "${srcdir:-.}/tests/cluster/scenarios.sh"

AN_CONF=/etc/slurm/spank_ebpf.conf
AN_LINK=/etc/slurm/plugstack.conf.d/spank_ebpf.conf
AN_PLUGSTACK=/etc/slurm/plugstack.conf
AN_INCLUDE='include /etc/slurm/plugstack.conf.d/*.conf'

# --- Ansible on this machine, SSH into the containers -------------------------

# an_ssh: a key for the run in every host's root account, sshd answering,
# and an address for this machine on the cluster's bridge (inside the
# namespace only).
an_ssh() {
	local h
	AN=$RUN/ansible
	mkdir -p "$AN/home" "$AN/tmp"
	ssh-keygen -q -t ed25519 -N '' -C "slurm-spank-ebpf tests $$" -f "$AN/id" || bail "ssh-keygen failed"
	ip -n "$CL_NETNS" addr add "$CL_NET.1/24" dev br0 || bail "no address on the bridge"
	for h in $CL_HOSTS; do
		install -d -m 0700 "${CL_ROOT[$h]}/root/.ssh"
		install -m 0600 "$AN/id.pub" "${CL_ROOT[$h]}/root/.ssh/authorized_keys"
		on "$h" ct systemctl start ssh || bail "sshd did not start on $h"
	done
	{
		echo "[submit]"
		echo "ctl ansible_host=${CL_ADDR[ctl]}"
		echo "[compute]"
		for h in $CL_NODES; do echo "$h ansible_host=${CL_ADDR[$h]}"; done
		echo "[all:vars]"
		echo "ansible_user=root"
		echo "ansible_python_interpreter=/usr/bin/python3"
		echo "ansible_ssh_private_key_file=$AN/id"
		echo "ansible_ssh_common_args='-o UserKnownHostsFile=$AN/known_hosts -o StrictHostKeyChecking=accept-new -o ConnectTimeout=10'"
	} >"$AN/inventory.ini"
}

# Ansible's ssh keeps a master connection per host for 60 s after its
# last use (ControlPersist), its socket under the run's HOME (.ansible/cp):
# closed before the containers go, so that none outlives the run.
an_ssh_masters() {
	ps -eo pid=,args= | awk -v d="ssh: $AN/" 'index($0, d) && / \[mux\]$/ { print $1 }'
}

an_teardown() {
	local sock
	if [ -n "${AN:-}" ] && [ -d "$AN" ]; then
		for sock in $(find "$AN" -type s); do
			ssh -o ControlPath="$sock" -O exit cluster-host >/dev/null 2>&1
		done
	fi
	cl_teardown
}

# an_left: what the teardown must not leave (cl_finish's CL_LEFTOVERS).
an_left() {
	local p
	for p in $(an_ssh_masters); do
		echo "ssh-master:$p"
	done
}

# an_vars FILE DEB...: the role's variables for package files.
an_vars() {
	local f=$1 d sep=
	shift
	{
		printf '{"slurm_spank_ebpf_package_source": "files", "slurm_spank_ebpf_package_files": ['
		for d in "$@"; do
			printf '%s"%s"' "$sep" "$d"
			sep=', '
		done
		printf ']}\n'
	} >"$f"
}

# watch_start NAME / watch_stop: while a play runs, every 0.2 s, each
# node's SlurmdStartTime and State as slurmctld gives them (scontrol on
# ctl), with the unix time, into $AN_WATCH ($RUN/log/watch-NAME.txt).
watch_start() {
	AN_WATCH=$RUN/log/watch-$1.txt
	(
		while :; do
			t=$(date +%s.%N)
			on ctl ct scontrol -o show node 2>/dev/null | awk -v t="$t" '{
				n = s = st = ""
				for (i = 1; i <= NF; i++) {
					split($i, kv, "=")
					if (kv[1] == "NodeName") n = kv[2]
					else if (kv[1] == "SlurmdStartTime") s = kv[2]
					else if (kv[1] == "State") st = kv[2]
				}
				print t, n, s, st
			}'
			sleep 0.2
		done
	) >"$AN_WATCH" 2>/dev/null &
	AN_WATCH_PID=$!
}

watch_stop() {
	kill "$AN_WATCH_PID" 2>/dev/null
	wait "$AN_WATCH_PID" 2>/dev/null
}

# answered NODE: the first time (unix) slurmctld showed NODE with another
# SlurmdStartTime than at the start of the watch and a state that is
# neither DOWN nor NOT_RESPONDING; nothing if it never did.
answered() {
	awk -v n="$1" '$2 == n {
		if (s0 == "") { s0 = $3; next }
		if ($3 != s0 && $4 !~ /DOWN|NOT_RESPONDING/) { print $1; exit }
	}' "$AN_WATCH"
}

# play NAME ARGS...: site.yml over the inventory, from inside the network
# namespace, watched (watch_start); AN_RC, AN_OUT (also in
# $RUN/log/ansible-NAME.log).
play() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	watch_start "$name"
	ip netns exec "$CL_NETNS" env -i PATH="$PATH" HOME="$AN/home" LANG=C.UTF-8 \
		ANSIBLE_ROLES_PATH="$SYS_TOP/contrib/ansible/roles" ANSIBLE_HOME="$AN/home" \
		ANSIBLE_LOCAL_TEMP="$AN/tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
		ANSIBLE_PIPELINING=1 ANSIBLE_GATHER_SUBSET=min ANSIBLE_FORKS=5 \
		timeout 600 ansible-playbook -i "$AN/inventory.ini" "$SYS_TOP/contrib/ansible/site.yml" \
		-e "@$AN/vars.json" "$@" >"$RUN/log/ansible-$name.log" 2>&1
	AN_RC=$?
	watch_stop
	AN_OUT=$(cat "$RUN/log/ansible-$name.log")
	diag "ansible-playbook ($name, $*): exit $AN_RC after $(($(date +%s) - t0)) s"
}

# recap HOST: its PLAY RECAP counters that matter here.
recap() {
	printf '%s\n' "$AN_OUT" | awk -v h="$1" '
		$1 == h && $2 == ":" {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] }
			printf "changed=%s unreachable=%s failed=%s\n", c["changed"], c["unreachable"], c["failed"]
			found = 1
		}
		END { if (!found) print "no recap for " h }'
}

# --- what the hosts have ---------------------------------------------------------

# slurmd's identity on a node: main PID and start time (monotonic).
slurmd_id() {
	on "$1" ct systemctl show -p MainPID -p ExecMainStartTimestampMonotonic -p ActiveState slurmd | sort | tr '\n' ' '
}

slurmd_ids() {
	local h
	for h in $CL_NODES; do printf '%s: %s\n' "$h" "$(slurmd_id "$h")"; done
}

# Checksums of a file on every host ("none" where it is missing).
sums() {
	local h
	for h in $CL_HOSTS; do
		if [ -e "${CL_ROOT[$h]}$1" ]; then
			printf '%s: %s\n' "$h" "$(md5sum <"${CL_ROOT[$h]}$1" | cut -d' ' -f1)"
		else
			printf '%s: none\n' "$h"
		fi
	done
}

pkg_version() {
	on "$1" ct dpkg-query -W -f='${Version}' slurm-spank-ebpf 2>/dev/null
}

# slurmd's restarts on HOST since its mark, from its journal: one line per
# restart, "STOP UP" (the unix times systemd began stopping it and slurmd
# said it started). Every entry after the cursor, no field match (see
# plugin_log_since in tests/system/lib.sh: -u with --after-cursor can lose
# the first entry).
restarts() {
	on "$1" ct journalctl --no-pager -q -o short-unix --after-cursor="${CL_MARK[$1]}" 2>&1 | awk '
		/ systemd\[1\]: Stopping slurmd\.service/ { stop = $1 }
		/slurmd version [^ ]+ started/ { if (stop != "") print stop, $1; stop = "" }'
}

# one_at_a_time: the node whose slurmd was stopped first answered
# slurmctld again (answered: a new SlurmdStartTime, not DOWN or
# NOT_RESPONDING) before the other node's slurmd was stopped; prints the
# timeline.
one_at_a_time() {
	local a b first second_stop ans
	a=$(restarts node1 | head -n 1)
	b=$(restarts node2 | head -n 1)
	if [ -z "$a" ] || [ -z "$b" ]; then
		echo "node1: ${a:-none}; node2: ${b:-none}"
		return 1
	fi
	if awk -v a="${a%% *}" -v b="${b%% *}" 'BEGIN { exit !(a + 0 < b + 0) }'; then
		first=node1 second_stop=${b%% *}
	else
		first=node2 second_stop=${a%% *}
	fi
	ans=$(answered "$first")
	echo "node1 stop, up: $a; node2 stop, up: $b; $first answered slurmctld at ${ans:-never}"
	[ -n "$ans" ] && awk -v s="$second_stop" -v t="$ans" 'BEGIN { exit !(s + 0 > t + 0) }'
}

# restarted_once: each node's slurmd restarted exactly once since the mark,
# one node at a time, and loaded the plugin again (or, with $1 = gone, not).
restarted_once() {
	local tag=$1 what=$2 h line
	for h in $CL_NODES; do
		is "$tag: $h: slurmd restarted once" "$(restarts "$h" | wc -l)" 1
		is "$tag: $h: slurmd active, node usable" "$(on "$h" ct systemctl is-active slurmd) $(usable "$h")" "active usable"
	done
	line=$(one_at_a_time)
	ok_if "$tag: slurmd restarted one node at a time: the first answered slurmctld before the second stopped ($line)" one_at_a_time
	diag "$tag: slurmd restarts (unix times): $line"
	for h in $CL_NODES; do
		if [ "$what" = gone ]; then
			unlike "$tag: $h: the new slurmd has no plugin" "$(on "$h" slurmd_log_since "${CL_MARK[$h]}")" 'spank_ebpf: slurmd: version'
		else
			like "$tag: $h: the new slurmd loaded the plugin ($what)" "$(on "$h" slurmd_log_since "${CL_MARK[$h]}")" \
				"spank_ebpf: slurmd: version [0-9.]+ loaded: $what"
		fi
	done
}

# --- the newer build ---------------------------------------------------------------

# an_newer_debs: the same tree with a new Debian revision in the
# changelog (and a comment more in the packaged spank_ebpf.conf, so that
# the upgrade brings a new conffile), built in node1 like the first.
an_newer_debs() {
	local name dir v v2 t0
	name=$(basename "$TARBALL" .tar.xz)
	dir=$RUN/dist2/$name
	mkdir -p "$RUN/dist2"
	tar -C "$RUN/dist2" -xJf "$TARBALL" || bail "could not unpack $TARBALL"
	v=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$dir/packaging/debian/changelog")
	v2=${v%-*}-$((${v##*-} + 1))
	{
		printf '%s (%s) unstable; urgency=medium\n\n' "$(sed -n '1s/ .*//p' "$dir/packaging/debian/changelog")" "$v2"
		printf '  * Rebuilt by tests/cluster/ansible.sh: the newer build of the rolling upgrade.\n\n'
		printf ' -- slurm-spank-ebpf tests <tests@localhost>  %s\n\n' "$(date -R)"
		cat "$dir/packaging/debian/changelog"
	} >"$dir/packaging/debian/changelog.new" && mv "$dir/packaging/debian/changelog.new" "$dir/packaging/debian/changelog"
	sed -i '1a # (rebuilt for the upgrade test)' "$dir/etc/spank_ebpf.conf.in"
	tar -C "$RUN/dist2" -cJf "$RUN/dist2/$name.tar.xz" "$name" || bail "could not pack the newer tarball"
	mv "$RUN/debs" "$RUN/debs-1"
	t0=$(date +%s)
	TARBALL=$RUN/dist2/$name.tar.xz on node1 sys_build_debs || bail "the newer build failed"
	mv "$RUN/debs" "$RUN/debs-2"
	AN_V1=$v AN_V2=$v2
	diag "newer build $v2 in $(($(date +%s) - t0)) s: $(ls "$RUN/debs-2" | tr '\n' ' ')"
}

# --- the five parts -------------------------------------------------------------------

# a1: the role on a cluster without the plugin; node2's plugstack.conf has
# no include line (as SchedMD's and OpenHPC's packages ship it).
a1_rollout() {
	local h before1 before2 daemons
	before1=$(md5sum <"${CL_ROOT[node1]}$AN_PLUGSTACK")
	printf '# a site comment, kept by the role\n' >"${CL_ROOT[node2]}$AN_PLUGSTACK"
	before2=$(cat "${CL_ROOT[node2]}$AN_PLUGSTACK")
	daemons=$(ctl_daemons)
	cl_mark
	play rollout
	is "a1: the rollout succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		like "a1: $h: something changed, nothing failed" "$(recap "$h")" '^changed=[1-9][0-9]* unreachable=0 failed=0$'
	done
	is "a1: ctl: the submit role" "$(cl_installed ctl)" "slurm-spank-ebpf slurm-spank-ebpf-submit"
	for h in $CL_NODES; do
		is "a1: $h: the compute role" "$(cl_installed "$h")" "slurm-spank-ebpf slurm-spank-ebpf-compute"
	done
	for h in $CL_HOSTS; do
		like "a1: $h: the plugin's line from the role's variables" "$(on "$h" plugin_line)" \
			'^optional /usr/lib/[^/]+/slurm-wlm/spank_ebpf\.so mode=opt-in$'
		is "a1: $h: declared through the package's link" "$(on "$h" ct readlink "$AN_LINK")" ../spank_ebpf.conf
	done
	is "a1: node1: plugstack.conf (with the include line) untouched" "$(md5sum <"${CL_ROOT[node1]}$AN_PLUGSTACK")" "$before1"
	is "a1: node2: the include line added after the existing content" "$(cat "${CL_ROOT[node2]}$AN_PLUGSTACK")" \
		"$before2
$AN_INCLUDE"
	for h in $CL_NODES; do
		is "a1: $h: the exporter disabled at boot, not running" \
			"$(on "$h" ct systemctl is-enabled "$SYS_UNIT" 2>&1); $(view "$h")" "disabled; $IDLE"
	done
	restarted_once a1 "mode=opt-in .* timeout=10s"
	is "a1: ctl (submit host): munge and slurmctld not restarted" "$(ctl_daemons)" "$daemons"
	n2_job a1 "after the rollout, sbatch --ebpf from ctl" --ebpf
}

# a2: the same run again.
a2_idempotent() {
	local h ids sums_before
	ids=$(slurmd_ids)
	sums_before=$(sums "$AN_CONF")
	cl_mark
	play again
	is "a2: the second run succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		is "a2: $h: changed=0" "$(recap "$h")" "changed=0 unreachable=0 failed=0"
	done
	is "a2: slurmd not restarted (PID, start time)" "$(slurmd_ids)" "$ids"
	is "a2: no slurmd stop in the journals" "$(restarts node1)$(restarts node2)" ""
	is "a2: spank_ebpf.conf unchanged everywhere" "$(sums "$AN_CONF")" "$sums_before"
}

# a3: bad values: mode=sometimes (the whole inventory: node1, first in
# the play's order compute:submit, refuses it and the play stops there),
# a relative state path (the submit host only: ctl refuses it), and a
# good value with a play batch of both compute nodes (the role refuses to
# run: it would restart both slurmd at once).
a3_bad_values() {
	local ids sums_before
	ids=$(slurmd_ids)
	sums_before=$(sums "$AN_CONF")
	cl_mark
	play bad-mode -e slurm_spank_ebpf_mode=sometimes
	ok_if "a3: mode=sometimes: the play fails (exit $AN_RC)" test "$AN_RC" -ne 0
	like "a3: mode=sometimes: with the plugin's message" "$AN_OUT" 'invalid plugstack argument \\?"mode=sometimes\\?": mode must be \\?"opt-in\\?" or \\?"always\\?"'
	is "a3: mode=sometimes: failed on node1, the play stopped there" "$(recap node1); $(recap node2); $(recap ctl)" \
		"changed=0 unreachable=0 failed=1; no recap for node2; no recap for ctl"
	play bad-state --limit submit -e slurm_spank_ebpf_state_file=run/ebpf_exporter.refcount
	ok_if "a3: state=run/...: the play fails (exit $AN_RC)" test "$AN_RC" -ne 0
	like "a3: state=run/...: with the plugin's message" "$AN_OUT" 'state must be an absolute path'
	is "a3: state=run/...: failed on ctl" "$(recap ctl)" "changed=0 unreachable=0 failed=1"
	play batch -e slurm_spank_ebpf_serial=2 -e slurm_spank_ebpf_timeout=12
	ok_if "a3: serial=2 (both compute nodes in one batch): the play fails (exit $AN_RC)" test "$AN_RC" -ne 0
	like "a3: serial=2: the role refuses to restart both slurmd at once" "$AN_OUT" \
		'this play batch holds 2 compute nodes \(node1, node2\), more than\s+slurm_spank_ebpf_restart_batch=1'
	is "a3: every host keeps its file" "$(sums "$AN_CONF")" "$sums_before"
	is "a3: slurmd still running, not restarted" "$(slurmd_ids)" "$ids"
	n2_job a3 "after the refused values" --ebpf
}

# a4: timeout=15 and the newer build, under a running --ebpf job on both
# nodes.
a4_rolling() {
	local h j daemons
	declare -A pid
	an_vars "$AN/vars2.json" "$RUN"/debs-2/*.deb
	daemons=$(ctl_daemons)
	j=$(sb a4 -N2 --ebpf --wrap "$N2_STEPS a4") || { is "a4: sbatch -N2 --ebpf accepted" no yes; return; }
	wait_started_on a4 node1 node2
	for h in $CL_NODES; do
		pid[$h]=$(unit_pid "$h")
		is "a4: job $j running: $h holds the exporter" "$(view "$h")" "$(held_while "$h" "$j")"
	done
	cl_mark
	play upgrade -e "@$AN/vars2.json" -e slurm_spank_ebpf_timeout=15
	is "a4: the rolling change succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		is "a4: $h: upgraded to $AN_V2" "$(pkg_version "$h")" "$AN_V2"
		like "a4: $h: timeout=15 on the line" "$(on "$h" plugin_line)" ' mode=opt-in timeout=15$'
		is "a4: $h: the role's file kept over the package's new conffile, no prompt (.dpkg-dist beside it)" \
			"$(head -n 1 "${CL_ROOT[$h]}$AN_CONF" | cut -c1-17); $(test -e "${CL_ROOT[$h]}$AN_CONF.dpkg-dist" && echo dist)" \
			"# Ansible managed; dist"
	done
	restarted_once a4 "mode=opt-in .* timeout=15s"
	is "a4: ctl (submit host): munge and slurmctld not restarted" "$(ctl_daemons)" "$daemons"
	for h in $CL_NODES; do
		is "a4: after the play: $h still holds it, same exporter process" \
			"$(view "$h") pid=$(unit_pid "$h")" "$(held_while "$h" "$j") pid=${pid[$h]}"
		is "a4: $h: the exporter was neither stopped nor started during the play" "$(unit_jobs "$h")" ""
	done
	is "a4: the job still runs" "$(jstate "$j")" RUNNING
	release_all a4
	wait_done "$j"
	is "a4: job completed" "$(jstate "$j")" COMPLETED
	for h in $CL_NODES; do
		is "a4: $h: the job's epilog stopped the exporter" "$(view "$h"); $(unit_jobs "$h")" "$IDLE; stop"
		like "a4: $h: the new slurmd ran the epilog" "$(plugin_lines "$h")" "$(hold_released_re "$j")"
	done
}

# a5: state=absent (remove), then with purge.
a5_removal() {
	local h out rc j
	cl_mark
	play remove -e slurm_spank_ebpf_state=absent
	is "a5: the removal succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		is "a5: $h: no plugin package left" "$(cl_installed "$h")" ""
		is "a5: $h: the declaration is gone" "$(on "$h" ct sh -c "test -e $AN_LINK || test -L $AN_LINK && echo present")" ""
		is "a5: $h: apt remove kept the edited spank_ebpf.conf (dpkg: config-files)" \
			"$(on "$h" ct dpkg-query -W -f='${db:Status-Status}' slurm-spank-ebpf 2>&1); $(head -n 1 "${CL_ROOT[$h]}$AN_CONF" 2>&1 | cut -c1-17)" \
			"config-files; # Ansible managed"
	done
	is "a5: node2: the include line stays" "$(grep -cxF "$AN_INCLUDE" "${CL_ROOT[node2]}$AN_PLUGSTACK")" 1
	restarted_once a5 gone
	out=$(on ctl ctu timeout 30 sbatch --ebpf --wrap /bin/true 2>&1)
	rc=$?
	like "a5: ctl: sbatch --ebpf refused now (exit $rc)" "$out" "unrecognized option '--ebpf'"
	j=$(sb a5 -N2 --wrap 'srun -N2 --ntasks-per-node=1 /bin/true') || { is "a5: sbatch -N2 accepted" no yes; return; }
	wait_done "$j"
	is "a5: a 2-node job without the plugin completed" "$(jstate "$j")" COMPLETED
	play purge -e slurm_spank_ebpf_state=absent -e slurm_spank_ebpf_purge=true
	is "a5: the purge succeeded" "$AN_RC" 0
	is "a5: purge removed spank_ebpf.conf everywhere" "$(sums "$AN_CONF")" "$(printf '%s: none\n' $CL_HOSTS)"
	for h in $CL_HOSTS; do
		is "a5: $h: dpkg has no record left" "$(on "$h" ct dpkg-query -W -f='${db:Status-Status}' slurm-spank-ebpf 2>/dev/null)" ""
	done
}

main() {
	local s t
	cl_setup bookworm
	SYS_TEARDOWN=an_teardown CL_LEFTOVERS=an_left CL_LEFTOVERS_DESC="no ssh master left"
	need_cmd ansible-playbook ssh ssh-keygen md5sum
	sys_cache
	sys_tarball
	cl_up
	cl_install_payload
	cl_start
	an_newer_debs
	an_ssh
	an_vars "$AN/vars.json" "$RUN"/debs-1/*.deb
	diag "$SUITE: cluster up, no plugin anywhere, after $(sys_elapsed) s; $(ansible-playbook --version | head -n 1)"
	for s in ${ANSIBLE_PARTS:-a1_rollout a2_idempotent a3_bad_values a4_rolling a5_removal}; do
		t=$(date +%s)
		"$s"
		diag "$s took $(($(date +%s) - t)) s (total $(sys_elapsed) s)"
	done
	[ -z "${CLUSTER_HOLD:-}" ] || cl_hold
	# The teardown's "no ssh master left" means something only if masters
	# are seen while they live: the last playbook's are.
	ok_if "ssh masters of the last playbook seen before the teardown: $(an_ssh_masters | wc -l)" \
		test -n "$(an_ssh_masters)"
	cl_finish
}

main
