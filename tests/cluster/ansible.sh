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
#   an_check_mode_repo    the same from a signed package repository of the
#                         run's .debs (packaging/repo.sh) the hosts have
#                         (package_source=repo)
#   a1_rollout            fresh rollout, then --ebpf jobs from ctl on both
#                         nodes
#   a2_idempotent         a second run changes nothing, restarts nothing
#   an_sets               probe sets as the role's variables: the sets file
#                         on every host, sets= on the line (slurmd restarted
#                         one node at a time), --ebpf=SET checked on ctl
#                         and held on the node; then no sets again
#   an_check_mode_change  --check --diff of a new timeout: the diff of the
#                         line, no restart and no wait for one
#   a3_bad_values         bad values are refused by check-config on the
#                         host, nothing changes
#   a4_rolling            a new timeout and a newer package under a running
#                         --ebpf job: slurmd restarted one node at a time,
#                         the job's hold untouched
#   a5_removal            state=absent: packages and declaration gone,
#                         slurmd running; an edited spank_ebpf.conf kept by
#                         remove, gone with purge
#   an_repo_rollout       a real rollout from that repository, which the
#                         role adds (slurm_spank_ebpf_repo_url, _repo_key)
# ANSIBLE_PARTS="NAME..." runs only those parts, in the order given; each
# expects what the parts before it in the list above leave (a2,
# an_check_mode_change, a3, a4 and a5 a rollout; the check-mode parts
# before a1 and an_repo_rollout hosts without the packages).
# ansible-lint over the role is tests/ansible-lint.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/ansible-play.sh"

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

# an_sets: two probe sets as the role's variables (its README's example),
# then none again. The sets file goes to every host (ctl checks --ebpf's
# values against it), validated by check-config; sets= on the line
# restarts slurmd one node at a time; a job asking --ebpf=io holds the io
# set on its node (the state's job record; no exporter binary here, so
# its instance fails to start and the job runs all the same); an unknown
# set is refused on ctl. Emptying the list takes sets= off the line, then
# the file.
an_sets() {
	local h j rec
	cat >"$AN/sets.json" <<'EOT'
{"slurm_spank_ebpf_probe_sets": [
  {"name": "io", "description": "Block I/O latency and bytes of the job", "configs": ["spank-io"], "listen": "127.0.0.1:941", "linger": 0},
  {"name": "sched", "description": "Run-queue latency of the job's threads", "configs": ["spank-sched"], "listen": "127.0.0.1:942"}],
 "slurm_spank_ebpf_probe_sets_default": ["io"],
 "slurm_spank_ebpf_probe_sets_settings": {"textfile": "none"}}
EOT
	cl_mark
	play sets -e "@$AN/sets.json"
	is "sets: the rollout with probe sets succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		like "sets: $h: the plugin's line names the sets file" "$(on "$h" plugin_line)" \
			'^optional /usr/lib/[^/]+/slurm-wlm/spank_ebpf\.so mode=opt-in sets=/etc/slurm/spank_ebpf_sets\.conf$'
		like "sets: $h: the sets file, accepted by check-config" \
			"$(on "$h" ct spank-ebpf check-config --sets /etc/slurm/spank_ebpf_sets.conf 2>&1)" 'probe sets: io, sched'
	done
	restarted_once sets "mode=opt-in .* sets=/etc/slurm/spank_ebpf_sets\.conf"
	for h in $CL_NODES; do
		like "sets: $h: the new slurmd read the sets" "$(on "$h" slurmd_log_since "${CL_MARK[$h]}")" \
			'spank_ebpf: slurmd: probe sets: io, sched \(template spank-ebpf-exporter@\.service\)'
	done
	like "sets: ctl: sbatch --ebpf=iox refused, the allowed sets named" \
		"$(sb an-sets-bad --ebpf=iox --wrap true 2>&1; cat "$SUBMIT_ERR")" 'unknown probe set "iox"; allowed: io, sched'
	j=$(sb an-sets --ebpf=io -w node1 /usr/local/bin/cl-payload an-sets) ||
		{ is "sets: sbatch --ebpf=io accepted" no yes; return; }
	wait_started_on an-sets node1
	rec=$(on node1 ct cat /run/ebpf_exporter.refcount.jobs 2>&1)
	like "sets: node1: the state records job $j holding io" "$rec" "^$j [^ ]+ [^ ]+ io( |\$)"
	release_all an-sets
	wait_done "$j"
	is "sets: the job completed" "$(jstate "$j")" COMPLETED
	cl_mark
	play no-sets
	is "sets: the rollout without sets succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		like "sets: no sets: $h: the line without sets=" "$(on "$h" plugin_line)" \
			'^optional /usr/lib/[^/]+/slurm-wlm/spank_ebpf\.so mode=opt-in$'
		is "sets: no sets: $h: the sets file gone" "$(on "$h" ct test -e /etc/slurm/spank_ebpf_sets.conf && echo there || echo gone)" gone
	done
	restarted_once no-sets "mode=opt-in "
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
# of what it would write, and change nothing on any host (helpers:
# tests/lib/ansible-check.sh).

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
	# No wait for a restart that did not happen: the wait task skipped on
	# each node (an_check_handler) and never retried (no "FAILED -
	# RETRYING" line: an_check_nothing_changed). Not the play's duration,
	# which on a loaded CI machine passed the wait's 120 s all the same.
	for h in $CL_HOSTS; do
		an_check_line check-change "$h" "${line[$h]}" "${line[$h]} timeout=13"
	done
	an_check_handler check-change
}

# repo-rollout: a real run from the repository (an_repo), on hosts
# without the packages (after a5's purge).
an_repo_rollout() {
	local h cand
	an_repo
	an_repo_undeclare
	for h in $CL_HOSTS; do
		# apt-cache policy prints no Candidate line for a package no list
		# names: "(none)" either way.
		cand=$(on "$h" ct apt-cache policy slurm-spank-ebpf 2>&1 | sed -n 's/^ *Candidate: //p')
		is "repo-rollout: $h: no plugin package before, none offered (no repository declared)" \
			"$(cl_installed "$h"); ${cand:-(none)}" "; (none)"
	done
	cl_mark
	# The role adds the signed repository (URL and key, as `make repo`
	# lays it out), then installs from it.
	play repo-rollout -e slurm_spank_ebpf_package_source=repo -e "slurm_spank_ebpf_repo_url=file://$AN_REPO" \
		-e "slurm_spank_ebpf_repo_key=$RUN/an-repo/slurm-spank-ebpf.asc"
	is "repo-rollout: the rollout from the repository succeeded" "$AN_RC" 0
	for h in $CL_HOSTS; do
		is "repo-rollout: $h: the role's source, signed-by the key it put in /usr/share/keyrings" \
			"$(cat "${CL_ROOT[$h]}/etc/apt/sources.list.d/slurm-spank-ebpf.list" 2>&1 | grep -v '^#'); $(cmp "$RUN/an-repo/slurm-spank-ebpf.asc" "${CL_ROOT[$h]}/usr/share/keyrings/slurm-spank-ebpf.asc" 2>&1 && echo same key)" \
			"deb [signed-by=/usr/share/keyrings/slurm-spank-ebpf.asc] file://$AN_REPO/apt $SUITE main; same key"
		like "repo-rollout: $h: apt installed it from there" \
			"$(on "$h" ct apt-cache policy slurm-spank-ebpf 2>&1 | grep -A1 '^ \*\*\*' | tail -n 1)" "file:$AN_REPO/apt $SUITE/main"
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
	for s in ${ANSIBLE_PARTS:-an_check_mode_fresh an_check_mode_repo a1_rollout a2_idempotent an_sets an_check_mode_change a3_bad_values a4_rolling a5_removal an_repo_rollout}; do
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
