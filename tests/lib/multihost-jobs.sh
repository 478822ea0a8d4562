# Jobs on the three-host cluster of tests/lib/multihost.sh (which sources
# this file) and what each host shows of them: the helpers of the cluster
# scenarios (tests/cluster/scenarios.sh) and of the Ansible suite
# (tests/cluster/ansible.sh). Jobs are submitted on ctl; their payloads
# run on the nodes.

# The view of a node with nothing to do: no hold, exporter inactive, no
# program.
IDLE='held={} active=inactive progs=0'

# A job with a step of one task on each of both nodes (the payload NAME),
# after a first step on both that only runs true.
N2_STEPS='srun -N2 --ntasks-per-node=1 /bin/true && srun -N2 --ntasks-per-node=1 /usr/local/bin/cl-payload'

# --- what a host shows ------------------------------------------------------------

# cl_mark: a journal cursor on every host (CL_MARK[HOST]).
cl_mark() {
	local h
	for h in $CL_HOSTS; do
		CL_MARK[$h]=$(on "$h" journal_mark)
	done
}

# held HOST: the jobs in HOST's state file, as {id,id}; {} when absent or
# empty; "bad: ..." when the count line does not match the IDs.
held() {
	on "$1" state | awk '
		NR == 1 { first = $0; next }
		{ ids = ids (n++ ? "," : "") $0 }
		END {
			if (first == "missing" || (first == "0" && n == 0)) print "{}"
			else if (first == n) print "{" ids "}"
			else print "bad: count " first ", ids " ids
		}'
}

# view HOST: the node as the scenarios assert it, once its exporter has
# settled (exporter_settle): what its state file holds, what its systemd
# says of the unit, the eBPF programs the unit's process holds.
view() {
	on "$1" exporter_settle
	printf 'held=%s active=%s progs=%s' "$(held "$1")" "$(on "$1" is_active)" "$(on "$1" unit_progs)"
}

# held_while HOST IDS...: the view of a node that holds the exporter for
# those jobs.
held_while() {
	shift
	echo "held=$(ids "$@") active=active progs=2"
}

# ids ID...: {id,id} sorted, as held prints them.
ids() {
	echo "{$(printf '%s\n' "$@" | sort -n | tr '\n' , | sed 's/,$//')}"
}

# Every node idle: no hold, exporter inactive, no program.
all_idle() {
	local h
	for h in $CL_NODES; do
		[ "$(view "$h")" = "$IDLE" ] || return 1
	done
}

# The unit's main PID on HOST.
unit_pid() {
	on "$1" unit_main_pid
}

# Since the last cl_mark, on HOST: the unit's start/stop jobs, the plugin's
# lines.
unit_jobs() {
	on "$1" unit_jobs_since "${CL_MARK[$1]}"
}

plugin_lines() {
	on "$1" plugin_log_since "${CL_MARK[$1]}"
}

# The state Slurm gives a node, and whether it takes jobs (asked on ctl).
nstate() {
	on ctl node_state "$1"
}

usable() {
	on ctl node_usability "$1"
}

# munge's and slurmctld's PIDs and restart counts on ctl.
ctl_daemons() {
	local u
	for u in munge slurmctld; do
		printf '%s pid=%s restarts=%s\n' "$u" \
			"$(on ctl ct systemctl show -p MainPID --value "$u")" \
			"$(on ctl ct systemctl show -p NRestarts --value "$u")"
	done
}

# ctl_submit_pkg on|off: the submit role on ctl, or no plugin there.
ctl_submit_pkg() {
	case $1 in
	on)
		[ "$(cl_installed ctl)" = "slurm-spank-ebpf slurm-spank-ebpf-submit" ] && return 0
		cl_install ctl slurm-spank-ebpf slurm-spank-ebpf-submit || bail "installing the submit package on ctl failed"
		;;
	off)
		[ -z "$(cl_installed ctl)" ] && return 0
		cl_remove ctl slurm-spank-ebpf-submit slurm-spank-ebpf || bail "removing the plugin from ctl failed"
		;;
	esac
}

# --- jobs ---------------------------------------------------------------------------

# The task of a cluster job: cl-payload NAME (tests/cluster/files) records
# what its node's systemd says of the unit as the task starts, then runs
# the system tests' payload (waits for NAME.gate on its own node).
cl_install_payload() {
	local h
	for h in $CL_HOSTS; do
		install -m 0755 "$SYS_TOP/tests/cluster/files/cl-payload" "${CL_ROOT[$h]}/usr/local/bin/cl-payload"
	done
}

# sb NAME SBATCH-ARGS...: sbatch on ctl as the test user, the job named
# NAME; prints the job ID, or fails with sbatch's words in a diagnostic.
sb() {
	local name=$1
	shift
	on ctl submit -J "$name" -o "$JOB_MARKS/$name-%j.out" "$@"
}

# started_on NAME HOST...: the payload NAME runs on every HOST.
started_on() {
	local name=$1 h
	shift
	for h in "$@"; do
		on "$h" started "$name" || return 1
	done
}

wait_started_on() {
	local name=$1
	shift
	wait_until 60 "payload $name started on $*" started_on "$name" "$@"
}

# What the unit was as the payload NAME started on HOST.
unit_at_start() {
	cat "${CL_ROOT[$1]}$JOB_MARKS/$2.unit" 2>/dev/null || echo "no record"
}

# release_all NAME: the gate, on every running host.
release_all() {
	local h
	for h in $CL_HOSTS; do
		[ -n "${CL_INIT[$h]:-}" ] && on "$h" release "$1"
	done
	return 0
}

jstate() {
	on ctl job_state "$1"
}

wait_done() {
	on ctl wait_job_done "$@"
}

# n2_job TAG WHAT SBATCH-ARGS...: a job on both nodes (N2_STEPS), asserted
# on both while it runs (holds it, exporter active as the payload started)
# and after (idle; one start and one stop in the unit's journal). Sets J.
n2_job() {
	local tag=$1 what=$2 h
	shift 2
	cl_mark
	J=$(sb "$tag" -N2 "$@" --wrap "$N2_STEPS $tag") || { is "$tag: sbatch -N2 $* accepted" no yes; return 1; }
	wait_started_on "$tag" node1 node2
	for h in $CL_NODES; do
		is "$tag: $what, job $J running: $h holds the exporter once" "$(view "$h")" "$(held_while "$h" "$J")"
		is "$tag: $h: exporter active as the payload started" "$(unit_at_start "$h" "$tag")" active
	done
	release_all "$tag"
	wait_done "$J"
	is "$tag: job completed" "$(jstate "$J")" COMPLETED
	for h in $CL_NODES; do
		is "$tag: after the job: $h idle; one start, one stop" "$(view "$h"); $(unit_jobs "$h")" "$IDLE; start stop"
	done
}
