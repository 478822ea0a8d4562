# Slurm as the tests see it, the same for the localhost cluster
# (localslurm.sh) and for the containers (system.sh, multihost.sh): jobs,
# their payloads, the plugin's state file, the node, the plugin's log.
# Written over what the backend that sources this file defines:
#
#   CT_RUN        the name of a function, CMD... -> CMD run on the node
#                 under test, as root: inside the container, or here with
#                 the localhost cluster's configuration (ct, below)
#   CTU_RUN       the same as the test user (the localhost cluster has no
#                 test user: root) (ctu, below)
#   NODE          the node's Slurm name (node_state's default)
#   NODE_ROOT     the node's root directory as seen from here ('' for the
#                 localhost cluster)
#   STATE         the plugin's state file, a path on the node
#   JOB_MARKS     the payloads' marker directory on the node: NAME.started
#                 once payload NAME runs, GATE.gate lets the payloads
#                 waiting for GATE end (a container's payload waits for its
#                 own NAME.gate)
#   SUBMIT_OPTS   sbatch options every submit adds (an array)
#   SUBMIT_ERR    the file, here, that keeps sbatch's stderr
#   PLUGIN_LOG    the name of a function, MARK -> the plugin's lines that
#                 slurmd logged since MARK (its log file here, the journal
#                 in a container), as that backend's checks expect them
#
# Needs tests/lib/tap.sh (diag, wait_until); sources plugin.sh
# (refcounts_of).

. "${BASH_SOURCE[0]%/*}/plugin.sh"

# ct CMD... / ctu CMD...: CMD on the node under test, as root / as the
# test user.
ct() {
	"$CT_RUN" "$@"
}

ctu() {
	"$CTU_RUN" "$@"
}

# --- jobs --------------------------------------------------------------------

# submit SBATCH-ARGS...: sbatch as the test user; prints the job ID, or
# fails with sbatch's words in a diagnostic.
submit() {
	local out
	out=$(ctu timeout 60 sbatch --parsable "${SUBMIT_OPTS[@]}" "$@" 2>"$SUBMIT_ERR") || {
		diag "sbatch $* failed: $(cat "$SUBMIT_ERR")"
		return 1
	}
	echo "${out%%;*}"
}

job_state() {
	ct scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}

# job_field ID FIELD: one field of `scontrol show job`.
job_field() {
	ct scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# job_gone ID: gone from squeue, so finished, epilog included (a job, or
# every task of an array). A squeue that fails says nothing about the job
# (slurmctld busy, say): only "Invalid job id" (the record already purged)
# counts as gone, never an error taken for "empty".
job_gone() {
	local out
	if ! out=$(ct squeue -h -j "$1" -o %T 2>&1); then
		case $out in *"Invalid job id specified"*) return 0 ;; esac
		return 1
	fi
	[ -z "$out" ]
}

# wait_job_done ID [SECONDS]: until job_gone, 90 s at the most.
wait_job_done() {
	wait_until "${2:-90}" "job $1 finished, epilog included (now $(job_state "$1"))" job_gone "$1"
}

# queue_empty: squeue answers, and lists no job at all.
queue_empty() {
	local out
	out=$(ct squeue -h -o %A 2>&1) && [ -z "$out" ]
}

# --- payloads ----------------------------------------------------------------

# submit_payload NAME [SBATCH ARGS...]: as the test user, the payload NAME
# (tests/system/files/payload, /usr/local/bin/sse-payload on a container's
# or a VM's node: waits for NAME.gate); prints the job ID.
submit_payload() {
	local name=$1
	shift
	submit -J "$name" -o "$JOB_MARKS/$name-%j.out" "$@" /usr/local/bin/sse-payload "$name"
}

# started NAME: payload NAME has begun (and, here, taken its snapshot).
started() {
	test -e "$NODE_ROOT$JOB_MARKS/$1.started"
}

wait_started() {
	wait_until "${2:-60}" "payload $1 started" started "$1"
}

# release GATE: the payloads waiting for GATE end.
release() {
	touch "$NODE_ROOT$JOB_MARKS/$1.gate"
}

# --- the state file ---------------------------------------------------------

state() {
	ct sh -c 'cat "$1" 2>/dev/null || echo missing' sh "$STATE"
}

# state_count: its count line (0 when absent).
state_count() {
	local c
	c=$(ct sh -c 'head -n 1 "$1" 2>/dev/null' sh "$STATE")
	echo "${c:-0}"
}

# state_of ID...: what the state file holds for that set of jobs.
state_of() {
	local j
	echo $#
	for j in "$@"; do echo "$j"; done | sort -n
}

# --- the node ----------------------------------------------------------------

# node_state [NODE], node_reason [NODE]: as Slurm sees it.
node_state() {
	ct sinfo -h -n "${1:-$NODE}" -o %T 2>/dev/null
}

node_reason() {
	ct scontrol -o show node "${1:-$NODE}" 2>/dev/null | grep -o ' Reason=.*' |
		sed 's/^ Reason=//; s/ [A-Z][A-Za-z]*=.*//'
}

# node_usable [NODE]: Slurm gives it jobs; node_usability [NODE] prints
# "usable" or the state it is in instead.
node_usable() {
	case $(node_state "${1:-}") in
	idle | mixed | allocated) return 0 ;;
	*) return 1 ;;
	esac
}

node_usability() {
	if node_usable "${1:-}"; then echo usable; else node_state "${1:-}"; fi
}

# --- configuration -----------------------------------------------------------

# slurm_conf_common: the slurm.conf lines every test cluster has: process
# tracking without cgroups, scheduling by core (memory is not scheduled),
# no accounting, a node back in service once it answers, and a short
# KillWait.
slurm_conf_common() {
	cat <<CONF
ProctrackType=proctrack/linuxproc
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
KillWait=5
CONF
}

# --- the plugin's log --------------------------------------------------------

plugin_log_since() {
	"$PLUGIN_LOG" "$1"
}

# wait_logged CURSOR ERE [SECONDS]: waits (default 20 s) until the
# plugin's lines since CURSOR have one matching ERE. A job can run before
# its prolog's last lines are in the log: journald reads slurmd's stream
# in its own time. Fails (after saying so) when none comes.
wait_logged() {
	wait_until "${3:-20}" "a plugin line matching: $2" _slurm_logged "$1" "$2"
}

_slurm_logged() {
	plugin_log_since "$1" | grep -Eq -- "$2"
}

refcounts_since() {
	plugin_log_since "$1" | refcounts_of
}
