#!/bin/bash
# A node whose Slurm NodeName (e2enode) and NodeHostname (e2ehost) are
# not its host name (slurmd -N, as with several slurmd per host or in
# containers), as the reconcile timer runs the admin command there: no
# --node, no SLURMD_NODENAME, no SPANK_EBPF_NODE. spank-ebpf asks slurmd
# its name (scontrol show slurmd) and heals a leaked hold; asking squeue
# about the host name instead left it "cannot tell" forever.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
need_admin_cmd
export E2E_NODENAME=e2enode E2E_NODEHOSTNAME=e2ehost
e2e_start
CONF=$E2E_DIR/etc/plugstack.conf.d/ebpf.conf
is "the node is e2enode (NodeHostname e2ehost) for Slurm, $(hostname -s) for the host" \
	"$(sinfo -h -N -o '%N %n' | sort -u)" "e2enode e2ehost"

reset_calls
j=$(submit -J s21 --ebpf "$PAYLOAD" s21)
wait_job_done "$j"
is "an --ebpf job ran on e2enode and completed: one start, one stop" \
	"$(job_state "$j"); $(ncalls start) $(ncalls stop)" "COMPLETED; 1 1"

# A hold its epilog left behind (as when it gave up on the lock).
printf '1\n%s\n' "$j" >"$STATE.new" && mv "$STATE.new" "$STATE"
touch "$DBL/active"
out=$(env -u SLURMD_NODENAME -u SPANK_EBPF_NODE "$CMD" -c "$CONF" reconcile 2>"$E2E_DIR/out/admin.err") && rc=0 || rc=$?
err=$(cat "$E2E_DIR/out/admin.err")
is "reconcile as the timer runs it: the leaked hold removed, the unit stopped" "$rc $out" \
	"0 1 held, 1 removed; unit active, stopped"
like "... Slurm's word for the job, on its node" "$err" "removing job $j from the state: Slurm says it is COMPLETED"
is "... state empty" "$(state)" 0

# The setting, where slurmctld cannot tell: used as given.
k=$(submit -J s21k --ebpf "$PAYLOAD" s21k s21k)
wait_started s21k
out=$(env -u SLURMD_NODENAME SPANK_EBPF_NODE=e2enode "$CMD" -c "$CONF" status 2>&1) && rc=0 || rc=$?
is "SPANK_EBPF_NODE=e2enode: status healthy, the running job here" "$rc $(echo "$out" | grep "^job $k:")" "0 job $k: RUNNING"
out=$(env -u SLURMD_NODENAME SPANK_EBPF_NODE=nosuchnode "$CMD" -c "$CONF" status 2>&1) && rc=0 || rc=$?
is "SPANK_EBPF_NODE=nosuchnode: used as given, so Slurm cannot answer: exit 2" "$rc" 2
release s21k
wait_job_done "$k"
cluster_finish
