# A package upgrade under a running job (issue 20, item 4), sourced after
# scenarios.sh: from the release before probe sets to this tree's
# packages. The old release is built from this clone's history
# (UPG_FROM: git archive, ./autogen.sh, make dist on this machine, make
# deb in the container), with a Debian revision below this tree's so that
# apt sees an upgrade. It writes the state in its only form (a count and
# the job IDs); the new release must read it: the job's hold survives the
# upgrade, a job started after it joins the same exporter, and the last
# of the two to end stops it.

# The last commit before probe sets: the release sites run.
UPG_FROM=0b57a39
UPG_FROM_REVISION=0~presets
UPG_PKGS="slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-submit slurm-spank-ebpf-probes"

# _upg_old_debs: builds the old release's packages into UPG_OLD_DEBS
# (paths in the container). Returns 1 after a failed (CI) or skipped (by
# hand) point when this clone lacks UPG_FROM (a shallow clone).
_upg_old_debs() {
	local src name=slurm-spank-ebpf-0.1.0 new_debs=$SYS_DEBS
	[ -z "${UPG_OLD_DEBS:-}" ] || return 0 # built earlier in this run
	if ! git -C "$SYS_TOP" rev-parse -q --verify "$UPG_FROM^{commit}" >/dev/null 2>&1; then
		if [ -n "${CI:-}" ]; then
			is "upgrade: the release before probe sets ($UPG_FROM) in this clone's history (a clone without --depth)" \
				missing present
		else
			skip_point "upgrade: $UPG_FROM not in this clone's history (a shallow clone?)"
		fi
		return 1
	fi
	src=$RUN/old/$name
	mkdir -p "$RUN/old"
	git -C "$SYS_TOP" archive --prefix="$name/" "$UPG_FROM" | tar -C "$RUN/old" -x ||
		bail "upgrade: git archive $UPG_FROM failed"
	sed -i "1s/^\([^ ]* ([^-]*\)-[^)]*)/\1-$UPG_FROM_REVISION)/" "$src/packaging/debian/changelog"
	if ! (cd "$src" && ./autogen.sh && ./configure -q && make -s dist) >"$RUN/log/upgrade-dist.log" 2>&1; then
		show "$(tail -n 30 "$RUN/log/upgrade-dist.log")"
		bail "upgrade: make dist of $UPG_FROM failed"
	fi
	# Its own build directory in the container and its own $RUN/debs:
	# the old tree unpacks to the same name as this one.
	mv "$RUN/debs" "$RUN/debs-new"
	TARBALL=$src/$name.tar.xz SYS_BUILD_DIR=$SYS_CDIR/build-old sys_build_debs ||
		bail "upgrade: no packaging/debian in the old release"
	UPG_OLD_DEBS=$SYS_DEBS
	SYS_DEBS=$new_debs
	mv "$RUN/debs" "$RUN/debs-old"
	mv "$RUN/debs-new" "$RUN/debs"
}

# _upg_apt ARGS...: apt-get as an admin's upgrade runs it (the test's
# edits of the plugin's line kept); its output in $RUN/log/upgrade-apt.log.
_upg_apt() {
	ct apt-get -y --no-install-recommends -o Dpkg::Options::=--force-confold "$@" \
		>>"$RUN/log/upgrade-apt.log" 2>&1
}

# _upg_versions: each plugin package's version, "-" when not installed.
_upg_versions() {
	sys_pkg_versions $UPG_PKGS
}

scn_upgrade() {
	local c a b t0 new_v st
	t0=$(date +%s)
	_upg_old_debs || return 0
	diag "upgrade: the old release ($UPG_FROM) built in $(($(date +%s) - t0)) s: $(ls "$RUN/debs-old" | tr '\n' ' ')"
	new_v=$(ct dpkg-query -W -f='${Version}' slurm-spank-ebpf)

	# A node running the old release: this tree's packages purged, the
	# old ones installed, slurmd restarted.
	_upg_apt purge $UPG_PKGS && _upg_apt install $UPG_OLD_DEBS ||
		{ show "$(tail -n 20 "$RUN/log/upgrade-apt.log")"; bail "upgrade: installing the old release failed"; }
	sys_restart_slurmd || bail "upgrade: slurmd did not restart under the old release"
	is "upgrade: the old release installed (no probes package then)" "$(_upg_versions)" \
		"slurm-spank-ebpf 0.1.0-$UPG_FROM_REVISION
slurm-spank-ebpf-compute 0.1.0-$UPG_FROM_REVISION
slurm-spank-ebpf-submit 0.1.0-$UPG_FROM_REVISION
slurm-spank-ebpf-probes -"

	c=$(journal_mark)
	a=$(submit_payload upg_a --ebpf) || { is "upgrade: sbatch --ebpf accepted (old release)" no yes; return; }
	wait_started upg_a
	is "upgrade: job $a under the old release: the state holds it, the exporter active" \
		"$(state); $(is_active)" "$(state_of "$a"); active"

	# The upgrade, under the running job, then slurmd restarted as the
	# Ansible role does.
	_upg_apt install $SYS_DEBS || { show "$(tail -n 20 "$RUN/log/upgrade-apt.log")"; bail "upgrade: apt-get install of this tree's packages failed"; }
	is "upgrade: this tree's packages installed over it" "$(_upg_versions)" \
		"slurm-spank-ebpf $new_v
slurm-spank-ebpf-compute $new_v
slurm-spank-ebpf-submit $new_v
slurm-spank-ebpf-probes $new_v"
	sys_restart_slurmd || bail "upgrade: slurmd did not restart after the upgrade"
	is "upgrade: after it: the state still holds job $a, the exporter still active" \
		"$(state); $(is_active)" "$(state_of "$a"); active"
	st=$(ct spank-ebpf status 2>&1)
	like "upgrade: the new spank-ebpf status reads the old state: job $a" "$st" "^state $STATE: 1 job \($a\)\$"
	like "upgrade: ... and finds nothing wrong" "$st" '^health: healthy$'

	b=$(submit_payload upg_b --ebpf) || { is "upgrade: sbatch --ebpf accepted (new release)" no yes; return; }
	wait_started upg_b
	is "upgrade: job $b joined under the new release: the state holds both" \
		"$(state); $(is_active)" "$(state_of "$a" "$b"); active"
	release upg_a
	wait_job_done "$a"
	is "upgrade: job $a ended under the new release: its hold released, job $b's kept, the exporter active" \
		"$(state); $(is_active)" "$(state_of "$b"); active"
	release upg_b
	wait_job_done "$b"
	is "upgrade: both jobs completed" "$(job_state "$a") $(job_state "$b")" "COMPLETED COMPLETED"
	is "upgrade: after both: state, unit, programs, endpoint" "$(observe)" \
		"count=0 active=inactive progs=0 metrics=down"
	is "upgrade: one start (old release) and one stop (new), none in between (unit journal)" \
		"$(unit_jobs_since "$c")" "start stop"
	is "upgrade: the holds in the slurmd journal: 1 (old), 2, 1, 0 (new)" "$(refcounts_since "$c")" "1 2 1 0"
}
