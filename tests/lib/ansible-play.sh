# The Ansible suite's (tests/cluster/ansible.sh) way to the hosts and what
# it reads back: the role run by ansible-playbook on this machine, inside
# the cluster's network namespace, over real SSH into the three hosts of
# tests/lib/multihost.sh (sourced here, with the check-mode helpers of
# tests/lib/ansible-check.sh); slurmd's restarts and identity, files and
# package versions on each host; the newer build of the rolling upgrade.
. "${BASH_SOURCE[0]%/*}/multihost.sh"
. "${BASH_SOURCE[0]%/*}/ansible-check.sh"


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
# ident_msgs_since in tests/lib/journal.sh: -u with --after-cursor can lose
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

# an_newer_debs: the same tree with a new Debian revision
# (sys_newer_tarball, packages.sh), built in node1 like the first.
an_newer_debs() {
	local t0
	sys_newer_tarball "rebuilt by tests/cluster/ansible.sh: the newer build of the rolling upgrade"
	mv "$RUN/debs" "$RUN/debs-1"
	t0=$(date +%s)
	TARBALL=$SYS_NEWER_TARBALL on node1 sys_build_debs || bail "the newer build failed"
	mv "$RUN/debs" "$RUN/debs-2"
	AN_V1=$SYS_NEWER_FROM AN_V2=$SYS_NEWER_V
	diag "newer build $AN_V2 in $(($(date +%s) - t0)) s ($SYS_DEBS_FROM): $(ls "$RUN/debs-2" | tr '\n' ' ')"
}
