# Slurm's accounting with real parts (sourced after jobmetrics.sh, whose
# second user it borrows): slurmdbd on MariaDB (tests/lib/dbd.sh), turned
# on for this scenario only. What the project reads from it: a job's
# record in sacct as its user, the AdminComment root sets on it, and
# PrivateData=jobs keeping it from another user; then dbd_stop leaves the
# container as it found it (sacct refused again, slurm.conf the same).
#
# Slurm 22.05 as seen here: slurmctld sends a running job's AdminComment
# to slurmdbd only with the job's end record, and refuses to change it
# once the job has ended ("Job has already finished"); sacctmgr modify
# job still can, but stores it lowercased. sacct hides other users' jobs
# by slurmdbd.conf's PrivateData, not by slurm.conf's.

# A job summary as an admin's tool would leave it: spaces inside, one
# argument.
DBD_COMMENT='SE1:abc reviewed by admin JS1:H4sIAAAAAAAAA+3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAIC3AYbSVKsAQAAA'

# _dbd_sacct RUN JOB FIELDS: sacct's line for JOB (allocation only,
# parsable, no header) run by RUN (ct: root, ctu: the test user).
_dbd_sacct() {
	"$1" timeout 20 sacct -X -n -P -j "$2" -o "$3" 2>&1
}

# _dbd_before: what the container shows of accounting outside dbd_start:
# sacct's answer and exit, the units, slurmctld's storage and state files
# (but the .old copies and job script directories that every restart and
# job leave), slurm.conf.
_dbd_before() {
	local out rc=0
	out=$(ct timeout 20 sacct -X -n -j 1 2>&1) || rc=$?
	printf 'sacct: %s (exit %s)\n' "$out" "$rc"
	echo "units: $(ct systemctl is-active mariadb.socket mariadb.service slurmdbd.service 2>&1 | tr '\n' ' ')"
	echo "slurmctld: $(ct scontrol show config 2>&1 | grep -E '^AccountingStorage(Type|Host|Port) ' | tr -s ' ' | tr '\n' ' ')"
	echo "state: $(ls "$NODE_ROOT$(_dbd_ctld_state)" | grep -v -e '\.old$' -e '^hash\.' | tr '\n' ' ')"
	echo "slurm.conf: $(sha256sum "$NODE_ROOT/etc/slurm/slurm.conf" | cut -d' ' -f1)"
}

# _dbd_slurm_private on|off: PrivateData=jobs in slurm.conf, as
# jm_report_ended turns it on and off.
_dbd_slurm_private() {
	local f=$NODE_ROOT/etc/slurm/slurm.conf
	sed -i '/^PrivateData=jobs$/d' "$f"
	[ "$1" = off ] || echo "PrivateData=jobs" >>"$f"
	ct scontrol reconfigure >/dev/null 2>&1
}

# The job's record, its AdminComment, PrivateData: each as the user sees
# it through sacct.
scn_dbd() {
	local before j t0 ms out
	ct id "$JM_OTHER" >/dev/null 2>&1 || ct useradd -m -s /bin/sh "$JM_OTHER"
	before=$(_dbd_before)
	diag "accounting: before: $(echo "$before" | tr '\n' '|')"
	dbd_start "$SYS_USER" "$JM_OTHER"
	like "accounting: slurmctld stores through slurmdbd" \
		"$(ct scontrol show config 2>&1)" '^AccountingStorageType += accounting_storage/slurmdbd$'

	j=$(submit_payload dbd-a) || { is "accounting: sbatch accepted" no yes; dbd_stop; return; }
	wait_started dbd-a
	out=$(ct timeout 20 scontrol update JobId="$j" AdminComment="$DBD_COMMENT" 2>&1)
	is "accounting: root sets running job $j's AdminComment (scontrol update, one argument with spaces)" "$out" ""
	release dbd-a
	wait_job_done "$j"
	t0=$(date +%s%N)
	ok_if "accounting: job $j's record reaches $SYS_USER's sacct, COMPLETED, within 30 s of its end" \
		wait_for 30 "job $j COMPLETED in sacct" "$j|COMPLETED|$NODE" _dbd_sacct ctu "$j" JobIDRaw,State,NodeList
	ms=$((($(date +%s%N) - t0) / 1000000))
	diag "accounting: job $j's record in sacct $ms ms after squeue lost it"
	is "accounting: sacct as $SYS_USER: job $j, COMPLETED, on $NODE" \
		"$(_dbd_sacct ctu "$j" JobIDRaw,State,NodeList)" "$j|COMPLETED|$NODE"
	is "accounting: sacct -o AdminComment as root: the exact text" "$(_dbd_sacct ct "$j" AdminComment)" "$DBD_COMMENT"
	is "accounting: ... and as $SYS_USER, the job's user" "$(_dbd_sacct ctu "$j" AdminComment)" "$DBD_COMMENT"
	like "accounting: after the job's end scontrol no longer changes it" \
		"$(ct timeout 20 scontrol update JobId="$j" AdminComment="late" 2>&1)" 'Job has already finished'

	is "accounting: without PrivateData, $JM_OTHER sees job $j in sacct" \
		"$(SYS_USER=$JM_OTHER _dbd_sacct ctu "$j" JobIDRaw)" "$j"
	_dbd_slurm_private on
	is "accounting: with PrivateData=jobs in slurm.conf only, $JM_OTHER still does (slurmdbd has its own)" \
		"$(SYS_USER=$JM_OTHER _dbd_sacct ctu "$j" JobIDRaw)" "$j"
	dbd_private_data jobs
	is "accounting: with PrivateData=jobs in slurmdbd.conf too, $JM_OTHER gets no line for job $j" \
		"$(SYS_USER=$JM_OTHER _dbd_sacct ctu "$j" JobIDRaw)" ""
	is "accounting: ... while $SYS_USER still gets it" "$(_dbd_sacct ctu "$j" JobIDRaw,State)" "$j|COMPLETED"
	dbd_private_data
	_dbd_slurm_private off

	dbd_stop
	is "accounting: after dbd_stop, as before: sacct's answer, the units, slurmctld's storage and state, slurm.conf" \
		"$(_dbd_before)" "$before"
}
