# A node installed from the signed repository, as a site installs it (issue
# 42): a clean container of the release (the cached root, none of this
# tree's packages, no provider of ebpf-exporter-binary, no Go), the apt
# repository `make repo` makes (packaging/repo.sh: this tree's packages
# built for the release as tests/system builds them, and the ebpf-exporter
# package tests/exporter/package.sh builds from the vendored tarball),
# signed with a throwaway key and served over HTTP on the container's
# loopback; the site's two steps (the key and the sources line with
# signed-by=, then `apt-get install slurm-spank-ebpf-compute
# slurm-spank-ebpf-probes`), the probe sets file as docs/OPERATING.md
# writes it, and a real `sbatch --ebpf=io` job whose series the io set's
# exporter, the packaged binary, serves. Then apt refuses the repository
# when its Packages file, or its InRelease, is tampered with.
#
# Then upgrades under running jobs, from the repository (repo_upgrade):
# version N (this tree, as installed above) with one job holding the io
# set and another the sched set; N+1 (this tree with a new Debian
# revision, sys_newer_tarball) published in the same repository and
# `apt-get upgrade`d; then `apt-get install` of N again (a downgrade): each
# time both jobs' holds, their filter entries in the exporters' maps and
# the io job's series survive, neither exporter is restarted, and
# `spank-ebpf status` finds nothing wrong; the jobs' epilogs then release
# cleanly. Last, `apt-get remove` of the packages under a running --ebpf
# job: the job runs on and ends, the node is not drained.
#
# Sourced after tests/lib/tap.sh by tests/system/repo-<release>.sh:
#   repo_suite RELEASE
#
# The container has no network but its own loopback: apt reads only the
# repository's list here (a site's node also reaches its Debian mirror,
# from which nothing more is needed: the root has Slurm and systemd).
. "${srcdir:-.}/tests/lib/system.sh"
. "${srcdir:-.}/tests/system/scenarios.sh"
. "${srcdir:-.}/tests/system/pace.sh"
. "${srcdir:-.}/tests/system/real.sh"
. "${srcdir:-.}/tests/system/jobmetrics.sh"

REPO_PORT=18080
REPO_URL=http://127.0.0.1:$REPO_PORT
REPO_KEYRING=/usr/share/keyrings/slurm-spank-ebpf.gpg
REPO_LIST=/etc/apt/sources.list.d/slurm-spank-ebpf.list
REPO_SERVED=/srv/slurm-spank-ebpf

# _repo_exporter_deb: EXPORTER_DEB, the ebpf-exporter package (built and
# cached by tests/exporter/package.sh). Without it a failed point in CI, a
# skipped one by hand; returns 1 either way.
_repo_exporter_deb() {
	local out
	out=$(EXPORTER_CACHE=$SYS_CACHE/exporter "$SYS_TOP/tests/exporter/package.sh" 2>&1)
	EXPORTER_DEB=$(printf '%s\n' "$out" | sed -n 's/^deb=//p' | tail -n 1)
	if [ -n "$EXPORTER_DEB" ] && [ -f "$EXPORTER_DEB" ]; then
		diag "repo: $(printf '%s\n' "$out" | grep '^# ' | tr '\n' ' ')"
		return 0
	fi
	show "$(printf '%s\n' "$out" | tail -n 15)"
	if [ -n "${CI:-}" ]; then
		is "repo: the ebpf-exporter package built (tests/exporter/package.sh)" missing built
	else
		skip_point "repo: the ebpf-exporter package could not be built (tests/exporter/package.sh, as root, with Go)"
	fi
	return 1
}

# _repo_make: the signed repository of this release's packages in
# $RUN/repo, with a throwaway key (RSA: EL 8's rpm verifies no EdDSA, and
# one key serves both kinds of repository).
_repo_make() {
	local g=$RUN/gnupg
	mkdir -m 0700 "$g" "$RUN/repo-debs" 2>/dev/null
	GNUPGHOME=$g gpg --batch --quiet --passphrase '' --quick-gen-key \
		'slurm-spank-ebpf test repository <repo@invalid>' rsa3072 sign never >"$RUN/log/gpg.log" 2>&1 &&
		GNUPGHOME=$g gpg --batch --armor --pinentry-mode loopback --passphrase '' \
			--export-secret-keys >"$RUN/repo.key" 2>>"$RUN/log/gpg.log" ||
		{ show "$(tail -n 5 "$RUN/log/gpg.log")"; bail "repo: could not make a throwaway key"; }
	cp "$RUN/debs"/*.deb "$EXPORTER_DEB" "$RUN/repo-debs/"
	if ! "$SYS_TOP/packaging/repo.sh" --key "$RUN/repo.key" --out "$RUN/repo" \
		--apt "$SUITE=$RUN/repo-debs" >"$RUN/log/repo.log" 2>&1; then
		show "$(cat "$RUN/log/repo.log")"
		bail "repo: packaging/repo.sh failed"
	fi
	diag "repo: $(cat "$RUN/log/repo.log")"
}

# _repo_apt ARGS...: apt-get in the container, reading the repository's
# list only; output in $RUN/log/repo-apt.log, the last lines in REPO_OUT.
_repo_apt() {
	local st
	ct env DEBIAN_FRONTEND=noninteractive apt-get -q \
		-o Dir::Etc::sourcelist="$REPO_LIST" -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 \
		"$@" >"$RUN/log/repo-apt.last" 2>&1
	st=$?
	cat "$RUN/log/repo-apt.last" >>"$RUN/log/repo-apt.log"
	REPO_OUT=$(tail -n 8 "$RUN/log/repo-apt.last")
	return "$st"
}

# _repo_serving: the repository answers over HTTP in the container.
_repo_serving() {
	ct python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5).read()' \
		"$REPO_URL/apt/dists/$SUITE/InRelease" >/dev/null 2>&1
}

# _repo_series JOB: the io set's exporter serves a series of JOB.
_repo_series() {
	SYS_STANDIN_PORT=941 metrics | grep -q "^ebpf_exporter_spank_io_[a-z_]*{.*jobid=\"$1\""
}

# _repo_refused: apt-get update's exit status and its first line saying
# why the repository is refused (a hash or a signature), on one line.
_repo_refused() {
	local st
	ct sh -c 'rm -rf /var/lib/apt/lists/*127.0.0.1*'
	_repo_apt update
	st=$?
	echo "exit=$st $(grep -E -m 1 'Hash Sum mismatch|unexpected size|BADSIG|signatures were invalid|is not signed|NO_PUBKEY' \
		"$RUN/log/repo-apt.last")"
}

repo_suite() {
	local v a st pid idx
	sys_setup "$1"
	sys_cache
	sys_tarball
	# A clean node: no provider of ebpf-exporter-binary (packages.sh).
	SYS_BARE=1 sys_boot
	diag "$SUITE: clean container booted after $(sys_elapsed) s"
	SLURM_VERSION=$(ct dpkg-query -W -f='${Version}' slurmd 2>/dev/null)
	# This tree's packages for the release, built in the container (as
	# tests/system builds them, cached) and not installed.
	sys_build_debs || bail "the tarball has no packaging/debian"
	diag "$SUITE: packages $(ls "$RUN/debs" | tr '\n' ' ')($SYS_DEBS_FROM)"
	_repo_exporter_deb || { sys_finish; return; }
	# lintian of this host, once (the same package serves every release).
	if [ "$SUITE" = bookworm ]; then
		need_cmd lintian
		is "repo: lintian on the ebpf-exporter package: no error, no warning (overrides say why)" \
			"$(lintian "$EXPORTER_DEB" 2>&1 | grep -E '^[EW]: ')" ""
	fi
	_repo_make
	is "repo: the node has none of the packages, no ebpf_exporter, no Go" \
		"$(ct sh -c 'dpkg-query -W -f="\${db:Status-Status} \${Package}\n" "slurm-spank-ebpf*" "ebpf-exporter*" 2>/dev/null | grep "^installed"; command -v ebpf_exporter go; ls /usr/local/bin/ebpf_exporter /usr/local/go 2>/dev/null')" ""

	# Served as a site serves it: over HTTP, from the repository's root.
	mkdir -p "$NODE_ROOT$REPO_SERVED"
	cp -a "$RUN/repo/." "$NODE_ROOT$REPO_SERVED/"
	ct systemd-run --unit=sse-repo-http --quiet python3 -m http.server "$REPO_PORT" \
		--bind 127.0.0.1 --directory "$REPO_SERVED" || bail "repo: could not start the HTTP server"
	wait_until 30 "the repository served on $REPO_URL" _repo_serving || bail "repo: not served"

	# The site's two steps (README, "Install"): the key and the
	# repository, then the two packages.
	ok_if "repo: the key fetched into $REPO_KEYRING, the sources line with signed-by=" ct sh -c \
		"python3 -c 'import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())' \
			$REPO_URL/slurm-spank-ebpf.gpg >$REPO_KEYRING &&
		echo 'deb [signed-by=$REPO_KEYRING] $REPO_URL/apt $SUITE main' >$REPO_LIST"
	_repo_apt update
	is "repo: apt-get update accepts the signed repository" "exit=$?" "exit=0"
	_repo_apt install -y slurm-spank-ebpf-compute slurm-spank-ebpf-probes
	st=$?
	[ "$st" -eq 0 ] || show "$REPO_OUT"
	is "repo: apt-get install slurm-spank-ebpf-compute slurm-spank-ebpf-probes" "exit=$st" "exit=0"
	v=$(dpkg-deb -f "$(ls "$RUN/debs"/slurm-spank-ebpf_*.deb | head -n 1)" Version)
	is "repo: installed: the plugin, its roles, the probes and ebpf-exporter (pulled in by -probes)" \
		"$(ct dpkg-query -W -f='${db:Status-Status} ${Package} ${Version}\n' slurm-spank-ebpf slurm-spank-ebpf-compute \
			slurm-spank-ebpf-probes slurm-spank-ebpf-submit ebpf-exporter 2>/dev/null | grep '^installed' | sort)" \
		"installed ebpf-exporter $(dpkg-deb -f "$EXPORTER_DEB" Version)
installed slurm-spank-ebpf $v
installed slurm-spank-ebpf-compute $v
installed slurm-spank-ebpf-probes $v"
	like "repo: ebpf-exporter came from the repository" \
		"$(ct apt-cache policy ebpf-exporter 2>&1 | grep -A1 '^ \*\*\*' | tail -n 1)" "$REPO_URL/apt $SUITE/main"
	is "repo: /usr/bin/ebpf_exporter is the package's, at the pinned version; still no Go" \
		"$(ct dpkg -S /usr/bin/ebpf_exporter 2>&1); $(ct /usr/bin/ebpf_exporter --version 2>&1 | sed -n 's/^ebpf_exporter, version \(v[^ ]*\).*/\1/p'); $(ct sh -c 'command -v go || echo no go')" \
		"ebpf-exporter: /usr/bin/ebpf_exporter; $(cat "$SYS_TOP/packaging/ebpf-exporter/VERSION"); no go"

	# The node as docs/OPERATING.md sets it up: the sets file, the
	# plugin's line naming it, Slurm started.
	ct useradd -m -s /bin/sh "$SYS_USER" || bail "useradd failed"
	install -m 0755 "$SYS_FILES/work-payload" "$NODE_ROOT/usr/local/bin/sse-work"
	_real_sets_file >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	like "repo: spank-ebpf check-config accepts the sets file; exporter /usr/bin/ebpf_exporter" \
		"$(ct "$SYS_ADMIN_CMD" check-config --sets "$SYS_SETS_FILE" 2>&1)" 'exporter /usr/bin/ebpf_exporter'
	sys_cluster_start
	a=$(submit_work repo-a --ebpf=io) || { is "repo: sbatch --ebpf=io accepted" no yes; sys_finish; return; }
	wait_started repo-a
	ok_if "repo: job $a's payload moved into job_$a (cgroup made by the test, Slurm's layout)" jm_place "$a" repo-a
	is "repo: job $a runs, the io set's instance active" "$(job_state "$a"); $(inst_states)" \
		"RUNNING; io=active sched=inactive"
	pid=$(unit_main_pid spank-ebpf-exporter@io.service)
	is "repo: the instance runs the packaged exporter" \
		"$(ct readlink "/proc/$pid/exe" 2>&1)" /usr/bin/ebpf_exporter
	ok_if "repo: the io set's exporter serves job $a's series (jobid=\"$a\")" \
		wait_until 60 "job $a's series" _repo_series "$a"
	diag "repo: $(SYS_STANDIN_PORT=941 metrics | grep "jobid=\"$a\"" | head -n 3 | tr '\n' '|')"
	release repo-a
	wait_job_done "$a"
	jm_unplace
	is "repo: job $a completed; the io set stopped; no hold left" \
		"$(job_state "$a"); $(inst_states); holds: $(_repo_holds)" \
		"COMPLETED; io=inactive sched=inactive; holds: "
	like "repo: spank-ebpf status finds nothing wrong" "$(ct "$SYS_ADMIN_CMD" status 2>&1)" '^health: healthy$'

	# Tampered with, refused: the Packages index (its hashes no longer
	# those InRelease signs), then InRelease itself (its signature no
	# longer holds). Each is put back after.
	idx=$NODE_ROOT$REPO_SERVED/apt/dists/$SUITE/main/binary-amd64
	cp -a "$idx" "$RUN/index.orig"
	sed -i 's/^Version: \(.*\)$/Version: \1+evil/' "$idx/Packages"
	xz -k -f "$idx/Packages"
	like "repo: a tampered Packages file: apt-get update refuses it" "$(_repo_refused)" \
		'^exit=100 .*(Hash Sum mismatch|unexpected size)'
	rm -rf "$idx" && cp -a "$RUN/index.orig" "$idx"
	cp "$NODE_ROOT$REPO_SERVED/apt/dists/$SUITE/InRelease" "$RUN/InRelease.orig"
	sed -i 's/^Label: .*/Label: evil/' "$NODE_ROOT$REPO_SERVED/apt/dists/$SUITE/InRelease"
	like "repo: a tampered InRelease: apt-get update refuses it (bad signature)" "$(_repo_refused)" \
		'^exit=100 .*(BADSIG|signatures were invalid|is not signed)'
	cp "$RUN/InRelease.orig" "$NODE_ROOT$REPO_SERVED/apt/dists/$SUITE/InRelease"
	ct sh -c 'rm -rf /var/lib/apt/lists/*127.0.0.1*'
	_repo_apt update
	is "repo: put back, the repository is accepted again (the refusals were the tampering's)" "exit=$?" "exit=0"
	repo_upgrade
	ct systemctl stop sse-repo-http
	sys_finish
}

# _repo_publish FILE...: the repository made again of those packages
# (every version given: apt offers the newest and keeps the others
# installable) and served in place of the old.
_repo_publish() {
	rm -rf "$RUN/repo-debs" && mkdir -p "$RUN/repo-debs"
	cp "$@" "$RUN/repo-debs/"
	"$SYS_TOP/packaging/repo.sh" --key "$RUN/repo.key" --out "$RUN/repo" \
		--apt "$SUITE=$RUN/repo-debs" >>"$RUN/log/repo.log" 2>&1 ||
		{ show "$(tail -n 5 "$RUN/log/repo.log")"; bail "repo: packaging/repo.sh failed"; }
	rm -rf "$NODE_ROOT$REPO_SERVED/apt"
	cp -a "$RUN/repo/." "$NODE_ROOT$REPO_SERVED/"
}

# _repo_versions: each package's installed version, "-" without.
_repo_versions() {
	sys_pkg_versions slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-probes ebpf-exporter
}

# _repo_holds: the holds in the state file (its second form, with probe
# sets: "<jobid> <set>[,<set>...]" after its first line), sorted; nothing
# without a hold (or a file).
_repo_holds() {
	state | grep -E '^[0-9]+ ' | sort -n
}

# _repo_held WHAT IO SCHED: what must hold across WHAT (an upgrade, a
# downgrade): job IO on the io set and job SCHED on the sched set still
# held and in their filters, the same exporter processes (REPO_PIO,
# REPO_PSCHED) as before, IO's series served, status healthy.
_repo_held() {
	local what=$1 a=$2 b=$3
	is "$what: both instances active, the same processes (no exporter restarted)" \
		"$(inst_states); $(unit_main_pid spank-ebpf-exporter@io.service) $(unit_main_pid spank-ebpf-exporter@sched.service)" \
		"io=active sched=active; $REPO_PIO $REPO_PSCHED"
	is "$what: job $a in io's filter, job $b in sched's" \
		"$(_jm_filter_jobs "$REPO_PIO"); $(_jm_filter_jobs "$REPO_PSCHED")" "$a; $b"
	is "$what: the state holds both jobs, each for its set" "$(_repo_holds)" "$a io
$b sched"
	ok_if "$what: job $a's series still served" _repo_series "$a"
	like "$what: spank-ebpf status finds nothing wrong" "$(ct "$SYS_ADMIN_CMD" status 2>&1)" '^health: healthy$'
}

repo_upgrade() {
	local v1 v2 a b c d st
	v1=$(ct dpkg-query -W -f='${Version}' slurm-spank-ebpf)
	# N+1, built in the container as N was, published beside N.
	sys_newer_tarball "rebuilt by tests/system/repo.sh: version N+1 of the upgrade"
	v2=$SYS_NEWER_V
	mv "$RUN/debs" "$RUN/debs-n"
	TARBALL=$SYS_NEWER_TARBALL SYS_BUILD_DIR=$SYS_CDIR/build-n1 sys_build_debs || bail "upgrade: the N+1 build failed"
	mv "$RUN/debs" "$RUN/debs-n1"
	diag "upgrade: N $v1, N+1 $v2 ($SYS_DEBS_FROM)"
	_repo_publish "$RUN"/debs-n/*.deb "$RUN"/debs-n1/*.deb "$EXPORTER_DEB"

	c=$(journal_mark)
	a=$(submit_work repo-io --ebpf=io) || { is "upgrade: sbatch --ebpf=io accepted" no yes; return; }
	b=$(submit_work repo-sched --ebpf=sched) || { is "upgrade: sbatch --ebpf=sched accepted" no yes; return; }
	wait_started repo-io
	wait_started repo-sched
	jm_place "$a" repo-io
	REPO_PIO=$(unit_main_pid spank-ebpf-exporter@io.service)
	REPO_PSCHED=$(unit_main_pid spank-ebpf-exporter@sched.service)
	ok_if "upgrade: job $a's series served before" wait_until 60 "job $a's series" _repo_series "$a"
	_repo_held "upgrade: under N" "$a" "$b"

	# N+1 from the repository: apt-get update, apt-get upgrade (the
	# site's edit of the plugin's line kept); slurmd restarted after, as
	# the README says (no package script does).
	_repo_apt update && _repo_apt upgrade -y -o Dpkg::Options::=--force-confold
	st=$?
	[ "$st" -eq 0 ] || show "$REPO_OUT"
	is "upgrade: apt-get upgrade from the repository" "exit=$st" "exit=0"
	is "upgrade: N+1 installed, ebpf-exporter unchanged" "$(_repo_versions)" \
		"slurm-spank-ebpf $v2
slurm-spank-ebpf-compute $v2
slurm-spank-ebpf-probes $v2
ebpf-exporter $(dpkg-deb -f "$EXPORTER_DEB" Version)"
	sys_restart_slurmd || bail "upgrade: slurmd did not restart after the upgrade"
	_repo_held "upgrade: after apt-get upgrade to N+1" "$a" "$b"

	# Back to N: apt-get install of the older version.
	_repo_apt install -y --allow-downgrades -o Dpkg::Options::=--force-confold \
		"slurm-spank-ebpf=$v1" "slurm-spank-ebpf-compute=$v1" "slurm-spank-ebpf-probes=$v1"
	st=$?
	[ "$st" -eq 0 ] || show "$REPO_OUT"
	is "downgrade: apt-get install of N" "exit=$st" "exit=0"
	is "downgrade: N installed again" "$(_repo_versions | head -n 3)" \
		"slurm-spank-ebpf $v1
slurm-spank-ebpf-compute $v1
slurm-spank-ebpf-probes $v1"
	sys_restart_slurmd || bail "downgrade: slurmd did not restart after the downgrade"
	_repo_held "downgrade: after apt-get install of N" "$a" "$b"

	release repo-io
	release repo-sched
	wait_job_done "$a"
	wait_job_done "$b"
	is "upgrade: both jobs completed, both sets stopped, no hold left" \
		"$(job_state "$a") $(job_state "$b"); $(inst_states); holds: $(_repo_holds)" \
		"COMPLETED COMPLETED; io=inactive sched=inactive; holds: "
	is "upgrade: each set started once and stopped once across both package changes" \
		"$(unit_jobs_since "$c" spank-ebpf-exporter@io.service); $(unit_jobs_since "$c" spank-ebpf-exporter@sched.service)" \
		"start stop; start stop"
	like "upgrade: spank-ebpf status finds nothing wrong after" "$(ct "$SYS_ADMIN_CMD" status 2>&1)" '^health: healthy$'
	diag "upgrade: plugin lines: $(plugin_log_since "$c" | tr '\n' '|')"
	jm_unplace

	# apt-get remove under a running --ebpf job.
	c=$(journal_mark)
	d=$(submit_work repo-rm --ebpf=io) || { is "remove: sbatch --ebpf=io accepted" no yes; return; }
	wait_started repo-rm
	_repo_apt remove -y slurm-spank-ebpf-compute slurm-spank-ebpf-probes slurm-spank-ebpf
	st=$?
	[ "$st" -eq 0 ] || show "$REPO_OUT"
	is "remove: apt-get remove of the packages under job $d" "exit=$st" "exit=0"
	is "remove: job $d still running" "$(job_state "$d")" RUNNING
	release repo-rm
	wait_job_done "$d"
	is "remove: job $d completed; the node usable, not drained" \
		"$(job_state "$d"); $(node_usable && echo usable) $(ct sinfo -h -N -o %T 2>&1 | grep -c drain)" \
		"COMPLETED; usable 0"
	diag "remove: plugin lines after the removal: $(plugin_log_since "$c" | tr '\n' '|')"
}
