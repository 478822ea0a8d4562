#!/bin/bash
# The Ansible role (contrib/ansible/roles/slurm_spank_ebpf) against the
# multi-host cluster on Debian bookworm (Slurm 22.05): ctl (submit host),
# node1 and node2 (compute nodes) as the inventory, reached over real SSH
# (sshd in each container, a key made for the run) from ansible-playbook
# run on this machine inside the cluster's network namespace. The
# packages come from files (slurm_spank_ebpf_package_source=files): the
# .debs built in node1 from this tree, and a newer build of them for the
# rolling upgrade. The parts, in this order (issue 14; check mode: issue
# 22, item 10):
#   an_check_mode_fresh   --check --diff on hosts without the packages
#                         (package files): completes, shows the plugin's
#                         line it would write, changes nothing
#   an_check_mode_repo    the same from a package repository made on each
#                         host from the run's .debs (package_source=repo)
#   a1_rollout            fresh rollout, then --ebpf jobs from ctl on both
#                         nodes
#   a2_idempotent         a second run changes nothing, restarts nothing
#   an_check_mode_change  --check --diff of a new timeout: the diff of the
#                         line, no restart and no wait for one, fast
#   a3_bad_values         bad values are refused by check-config on the
#                         host, nothing changes
#   a4_rolling            a new timeout and a newer package under a running
#                         --ebpf job: slurmd restarted one node at a time,
#                         the job's hold untouched
#   a5_removal            state=absent: packages and declaration gone,
#                         slurmd running; an edited spank_ebpf.conf kept by
#                         remove, gone with purge
#   an_repo_rollout       a real rollout from that repository
# ANSIBLE_PARTS="NAME..." runs only those parts, in the order given; each
# expects what the parts before it in the list above leave (a2,
# an_check_mode_change, a3, a4 and a5 a rollout; the check-mode parts
# before a1 and an_repo_rollout hosts without the packages).
# ansible-lint over the role is tests/ansible-lint.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
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
# namespace, watched (watch_start); AN_RC, AN_SECS (its duration), AN_OUT
# (also in $RUN/log/ansible-NAME.log).
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
	AN_SECS=$(($(date +%s) - t0))
	watch_stop
	AN_OUT=$(cat "$RUN/log/ansible-$name.log")
	diag "ansible-playbook ($name, $*): exit $AN_RC after $AN_SECS s"
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

# --- check mode: ansible-playbook --check --diff (issue 22, item 10) -------------
#
# How an admin previews a change: the play must complete, show the diff
# of what it would write, and change nothing on any host. Self-contained
# (the helpers an_check_*, an_tree, an_written*, an_repo, an_task and the
# parts an_check_mode_fresh, an_check_mode_repo, an_check_mode_change,
# an_repo_rollout use only play, recap, restarts, restarted_once,
# slurmd_ids, ctl_daemons and pkg_version from above).

# What the role puts on the line, in check mode, for the path of a plugin
# whose package is not installed yet (the role's README, "Check mode").
AN_PLACEHOLDER='<spank_ebpf.so-of-slurm-spank-ebpf-once-installed>'
# The package repository of an_repo, on every host.
AN_REPO=/srv/slurm-spank-ebpf-repo
AN_REPO_LIST=sources.list.d/slurm-spank-ebpf-tests.list

# an_ere TEXT: TEXT as an extended regular expression matching itself.
an_ere() {
	printf '%s' "$1" | sed -e 's/[\\^]/\\&/g' -e 's/[]*$+?(){}|.[]/[&]/g'
}

# an_task NAME HOST: what ansible-playbook printed (AN_OUT) for the role's
# task or handler NAME in the batch that ran HOST (serial: 1, one host a
# batch): from its header to the next header, diffs included.
an_task() {
	printf '%s\n' "$AN_OUT" | awk -v hdr="[slurm_spank_ebpf : $1]" -v h="$2" '
		function flush() { if (mine && hit) printf "%s", blk; blk = ""; hit = 0 }
		/^(TASK \[|RUNNING HANDLER \[|PLAY \[|PLAY RECAP)/ { flush(); mine = index($0, hdr) > 0 }
		mine { blk = blk $0 "\n"; if (index($0, "[" h "]") || index($0, "[" h " -> ")) hit = 1 }
		END { flush() }'
}

# an_tree HOST DIR: every entry under DIR on HOST (path, type, mode,
# owner, link target, and the md5 of each file), or "DIR: none".
an_tree() {
	local r=${CL_ROOT[$1]}$2 p y rest
	if [ ! -e "$r" ]; then
		echo "$1 $2: none"
		return
	fi
	(cd "$r" && find . -printf '%p %y %m %U:%G %l\n' | sort) | while read -r p y rest; do
		if [ "$y" = f ]; then
			echo "$1 $2/${p#./} $y $rest $(md5sum <"$r/$p" | cut -d' ' -f1)"
		else
			echo "$1 $2/${p#./} $y $rest"
		fi
	done
}

# an_hosts_state: what a check-mode run must leave as it was: on every
# host /etc/slurm (the plugin's line, its link, plugstack.conf), the
# package directory, dpkg's database and the plugin packages' states, the
# exporter's units at boot; slurmd's PID and start time as systemd gives
# them and its SlurmdStartTime as slurmctld does; munge and slurmctld on ctl.
an_hosts_state() {
	local h
	for h in $CL_HOSTS; do
		an_tree "$h" /etc/slurm
		an_tree "$h" /var/cache/slurm-spank-ebpf
		echo "$h dpkg status: $(md5sum <"${CL_ROOT[$h]}/var/lib/dpkg/status" | cut -d' ' -f1)"
		echo "$h packages: $(on "$h" ct dpkg-query -W -f='${Package}=${db:Status-Status}:${Version} ' \
			slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-submit 2>&1 | tr '\n' ' ')"
		echo "$h exporter at boot: $(on "$h" ct systemctl is-enabled "$SYS_UNIT" ebpf_exporter.socket 2>&1 | tr '\n' ' ')"
	done
	slurmd_ids
	for h in $CL_NODES; do
		echo "$h: $(on ctl ct scontrol -o show node "$h" 2>&1 | grep -o 'SlurmdStartTime=[^ ]*')"
	done
	ctl_daemons
}

# an_written_mark / an_written: what was written on each host's file
# system in between, whatever the path: the entries of its overlay's
# upper directory (where every file created, changed or deleted on the
# host lands) whose inode changed after the mark. an_written_else: the
# same without what is written whatever the play does: logs (/var/log:
# the journal, apt's simulation log), Ansible's temporary directory
# (/root/.ansible), slurmctld's periodic state save on ctl, and the
# directories above them.
an_written_mark() {
	AN_WMARK=$RUN/written.mark
	: >"$AN_WMARK"
}

an_written() {
	local h
	for h in $CL_HOSTS; do
		(cd "$RUN/hosts/$h/upper" && find . -cnewer "$AN_WMARK" -printf "$h %y /%P\n" | sort) ||
			echo "$h: no overlay upper directory"
	done
}

an_written_else() {
	printf '%s\n' "$AN_WRITTEN" | grep -Ev \
		-e '^[^ ]+ . (/var/log|/root/\.ansible)(/|$)' -e '^ctl . /var/lib/slurm/slurmctld(/|$)' \
		-e '^[^ ]+ d (/|/root|/var|/var/lib|/var/lib/slurm)$' -e '^$'
}

# an_check_play NAME ARGS...: play NAME --check --diff ARGS, the hosts'
# state (an_hosts_state) taken before and after (AN_STATE0, AN_STATE1),
# what was written meanwhile (AN_WRITTEN), a journal mark (cl_mark) first.
an_check_play() {
	local name=$1
	shift
	AN_STATE0=$(an_hosts_state)
	cl_mark
	an_written_mark
	play "$name" --check --diff "$@"
	AN_WRITTEN=$(an_written)
	AN_STATE1=$(an_hosts_state)
	diag "$name: written on the hosts during the run: $(printf '%s\n' "$AN_WRITTEN" | wc -l) entries"
	printf '%s\n' "$AN_WRITTEN" >"$RUN/log/written-$name.txt"
}

# an_check_nothing_changed TAG: what every check-mode run asserts: it
# completed, no task failed, and no host changed.
an_check_nothing_changed() {
	local tag=$1 h
	is "$tag: --check --diff completed (exit $AN_RC)" "$AN_RC" 0
	unlike "$tag: no task failed or was retried" "$AN_OUT" '^(fatal|failed): \[|^FAILED - RETRYING'
	for h in $CL_HOSTS; do
		like "$tag: $h: reached, nothing failed" "$(recap "$h")" '^changed=[0-9]+ unreachable=0 failed=0$'
	done
	is "$tag: nothing changed on any host (/etc/slurm, package directory, dpkg, exporter at boot, slurmd PID and SlurmdStartTime, ctl's daemons)" \
		"$AN_STATE1" "$AN_STATE0"
	is "$tag: no slurmd stopped or started (journals)" "$(restarts node1)$(restarts node2)" ""
	for h in $CL_HOSTS; do
		like "$tag: $h: its overlay shows what the run wrote (its journal: a positive control)" \
			"$AN_WRITTEN" "^$h f /var/log/journal/"
	done
	is "$tag: nothing else written on any host (overlays; logs, Ansible's temporary directory, slurmctld's state save aside)" \
		"$(an_written_else)" ""
}

# an_check_handler TAG: on each compute node the handler reports the
# restart it would do (check mode: changed, nothing restarted: see
# an_check_nothing_changed) and skips the wait for an answer check mode
# cannot get; on ctl (a submit host only) it restarts nothing.
an_check_handler() {
	local tag=$1 h
	for h in $CL_NODES; do
		like "$tag: $h: the handler reports the restart it would do" \
			"$(an_task 'Restart slurmd (the restart)' "$h")" "^changed: \[$h\]"
		like "$tag: $h: the handler skips the wait for the node (no restart to wait for)" \
			"$(an_task 'Restart slurmd (the node answers again)' "$h")" "^skipping: \[$h\]"
	done
	like "$tag: ctl (submit host): no slurmd restart" "$(an_task 'Restart slurmd (the restart)' ctl)" '^skipping: \[ctl\]'
}

# an_check_line TAG HOST BEFORE AFTER: the diff of the plugin's file on
# HOST shows the line BEFORE (nothing: the file is not there) replaced
# by AFTER.
an_check_line() {
	local tag=$1 h=$2 before=$3 after=$4 block
	block=$(an_task "The plugin's line, checked by the plugin's own parser before it is put in place" "$h")
	if [ -z "$before" ]; then
		like "$tag: $h: the diff of the file it would write (none there)" "$block" '^--- before$'
	else
		like "$tag: $h: the diff of $AN_CONF" "$block" "^--- before: $(an_ere "$AN_CONF")\$"
		like "$tag: $h: the line as it is" "$block" "^-$(an_ere "$before")\$"
	fi
	like "$tag: $h: from the role's template" "$block" '^\+\+\+ after: .*/spank_ebpf\.conf\.j2$'
	like "$tag: $h: the line it would write" "$block" "^\+$(an_ere "$after")\$"
	like "$tag: $h: reported as a change" "$block" "^changed: \[$h\]"
}

# an_repo: a package repository on every host, of the run's first build
# (debs-1), indexed with dpkg-scanpackages in $AN_REPO and declared
# [trusted=yes] in /etc/apt/$AN_REPO_LIST; apt-get update reads that
# source only (the hosts have no way to a Debian mirror; the lists of the
# others stay). Once per run.
an_repo() {
	local h
	[ -z "${AN_REPO_DONE:-}" ] || return 0
	for h in $CL_HOSTS; do
		mkdir -p "${CL_ROOT[$h]}$AN_REPO"
		cp "$RUN"/debs-1/*.deb "${CL_ROOT[$h]}$AN_REPO/"
		echo "deb [trusted=yes] file:$AN_REPO ./" >"${CL_ROOT[$h]}/etc/apt/$AN_REPO_LIST"
		on "$h" ct sh -c "cd $AN_REPO && dpkg-scanpackages --multiversion . >Packages" >>"$RUN/log/repo-$h.log" 2>&1 ||
			bail "dpkg-scanpackages failed on $h (log: $RUN/log/repo-$h.log)"
		on "$h" ct apt-get update -q -o Dir::Etc::sourcelist="$AN_REPO_LIST" -o Dir::Etc::sourceparts=- \
			-o APT::Get::List-Cleanup=0 >>"$RUN/log/repo-$h.log" 2>&1 ||
			bail "apt-get update of the test repository failed on $h (log: $RUN/log/repo-$h.log)"
	done
	AN_REPO_DONE=1
}

# The role's packages for HOST, as cl_installed prints them.
an_role_pkgs() {
	case $1 in
	ctl) echo "slurm-spank-ebpf slurm-spank-ebpf-submit" ;;
	*) echo "slurm-spank-ebpf slurm-spank-ebpf-compute" ;;
	esac
}

# check-fresh: --check --diff with package files on hosts without the
# packages (before the first rollout).
an_check_mode_fresh() {
	local h
	for h in $CL_HOSTS; do
		is "check-fresh: $h: no plugin package yet" "$(cl_installed "$h")" ""
	done
	an_check_play check-fresh
	an_check_nothing_changed check-fresh
	for h in $CL_HOSTS; do
		like "check-fresh: $h: the package files would be copied" "$(an_task 'Package files | copied' "$h")" \
			"^changed: \[$h\] => \(item=.*/slurm-spank-ebpf_"
		like "check-fresh: $h: and installed (reported; their versions cannot be read before they are copied)" \
			"$(an_task 'Package files | would be installed together (check mode)' "$h")" "^changed: \[$h\]"
		an_check_line check-fresh "$h" "" "optional $AN_PLACEHOLDER mode=opt-in"
	done
	an_check_handler check-fresh
}

# check-repo: the same from a repository (an_repo) the hosts know, with
# the packages not installed: the role's apt step and its dpkg-query -L.
an_check_mode_repo() {
	local h block
	an_repo
	for h in $CL_HOSTS; do
		is "check-repo: $h: no plugin package yet" "$(cl_installed "$h")" ""
		like "check-repo: $h: the repository offers $AN_V1" "$(on "$h" ct apt-cache policy slurm-spank-ebpf 2>&1)" \
			"Candidate: $(an_ere "$AN_V1")\$"
	done
	an_check_play check-repo -e slurm_spank_ebpf_package_source=repo
	an_check_nothing_changed check-repo
	for h in $CL_HOSTS; do
		block=$(an_task "Packages from the site's repository (apt)" "$h")
		like "check-repo: $h: apt would install the host's packages (apt's simulation)" "$block" \
			"^The following NEW packages will be installed:\$"
		like "check-repo: $h: namely $(an_role_pkgs "$h")" "$block" "^ +$(an_role_pkgs "$h")\$"
		like "check-repo: $h: reported as a change" "$block" "^changed: \[$h\]"
		an_check_line check-repo "$h" "" "optional $AN_PLACEHOLDER mode=opt-in"
	done
	an_check_handler check-repo
}

# check-change: after the rollout (a1, a2), a preview of a new timeout.
an_check_mode_change() {
	local h
	declare -A line
	for h in $CL_HOSTS; do
		line[$h]=$(on "$h" plugin_line)
		like "check-change: $h: rolled out before ($(cl_installed "$h"))" "${line[$h]}" ' mode=opt-in$'
	done
	an_check_play check-change -e slurm_spank_ebpf_timeout=13
	an_check_nothing_changed check-change
	ok_if "check-change: the preview took $AN_SECS s: no wait for a restart that did not happen (at most 60 s; the handler's wait gives up after 120)" \
		test "$AN_SECS" -le 60
	for h in $CL_HOSTS; do
		an_check_line check-change "$h" "${line[$h]}" "${line[$h]} timeout=13"
	done
	an_check_handler check-change
}

# repo-rollout: a real run from the repository (an_repo), on hosts
# without the packages (after a5's purge).
an_repo_rollout() {
	local h
	an_repo
	for h in $CL_HOSTS; do
		is "repo-rollout: $h: no plugin package before" "$(cl_installed "$h")" ""
	done
	cl_mark
	play repo-rollout -e slurm_spank_ebpf_package_source=repo
	is "repo-rollout: the rollout from the repository succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		is "repo-rollout: $h: the role's packages" "$(cl_installed "$h")" "$(an_role_pkgs "$h")"
		is "repo-rollout: $h: the repository's version" "$(pkg_version "$h")" "$AN_V1"
		like "repo-rollout: $h: the plugin's line, with the path from dpkg-query -L" "$(on "$h" plugin_line)" \
			'^optional /usr/lib/[^/]+/slurm-wlm/spank_ebpf\.so mode=opt-in$'
	done
	restarted_once repo-rollout "mode=opt-in .* timeout=10s"
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
	for s in ${ANSIBLE_PARTS:-an_check_mode_fresh an_check_mode_repo a1_rollout a2_idempotent an_check_mode_change a3_bad_values a4_rolling a5_removal an_repo_rollout}; do
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
