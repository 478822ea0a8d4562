# Check mode for the Ansible suite (tests/cluster/ansible.sh, issue 22,
# item 10): ansible-playbook --check --diff, how an admin previews a
# change. The play must complete, show the diff of what it would write,
# and change nothing on any host. Uses play, recap, restarts,
# slurmd_ids, ctl_daemons and pkg_version of tests/lib/ansible-play.sh
# (which sources this file).

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

# Set aside: logs, Ansible's own files, slurmctld's state save, and the
# compute package's metrics timer (spank-ebpf metrics, every minute, into
# node_exporter's textfile directory where node_exporter is installed),
# with the parents overlayfs copies up on a first write below them
# (/var/lib/prometheus when the timer's first run falls in the window);
# and the stamps systemd itself writes when one of the OS's persistent
# timers elapses (e2scrub_all, apt-daily...).
an_written_else() {
	printf '%s\n' "$AN_WRITTEN" | grep -Ev \
		-e '^[^ ]+ . (/var/log|/root/\.ansible)(/|$)' -e '^ctl . /var/lib/slurm/slurmctld(/|$)' \
		-e '^node[12] [df] /var/lib/prometheus(/node-exporter(/spank_ebpf\.prom)?)?$' \
		-e '^[^ ]+ [df] /var/lib/systemd/timers(/stamp-[^/ ]+\.timer)?$' \
		-e '^[^ ]+ d (/|/root|/var|/var/lib|/var/lib/slurm|/var/lib/systemd)$' -e '^$'
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
	is "$tag: nothing else written on any host (overlays; logs, Ansible's temporary directory, slurmctld's state save and the metrics timer's textfile aside)" \
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

# an_repo: the run's first build (debs-1) as `make repo` publishes it
# (packaging/repo.sh, signed with a throwaway key: $RUN/an-repo), copied
# to $AN_REPO on every host and declared there by hand, signed-by its key,
# in /etc/apt/$AN_REPO_LIST (the check-mode part: "a repository the host
# already has"); apt-get update reads that source only (the hosts have no
# way to a Debian mirror; the lists of the others stay). Once per run.
# an_repo_undeclare takes the declaration back: the rollout lets the role
# add the repository (slurm_spank_ebpf_repo_url, _key).
AN_REPO_KEY=/usr/share/keyrings/slurm-spank-ebpf-tests.gpg
an_repo() {
	local h g=$RUN/an-gnupg
	[ -z "${AN_REPO_DONE:-}" ] || return 0
	mkdir -m 0700 "$g" && mkdir -p "$RUN/an-repo-debs"
	GNUPGHOME=$g gpg --batch --quiet --passphrase '' --quick-gen-key \
		'slurm-spank-ebpf test repository <repo@invalid>' rsa3072 sign never >"$RUN/log/an-gpg.log" 2>&1 &&
		GNUPGHOME=$g gpg --batch --armor --pinentry-mode loopback --passphrase '' \
			--export-secret-keys >"$RUN/an-repo.key" 2>>"$RUN/log/an-gpg.log" ||
		bail "could not make a throwaway key (log: $RUN/log/an-gpg.log)"
	cp "$RUN"/debs-1/*.deb "$RUN/an-repo-debs/"
	"$SYS_TOP/packaging/repo.sh" --key "$RUN/an-repo.key" --out "$RUN/an-repo" \
		--apt "$SUITE=$RUN/an-repo-debs" >"$RUN/log/an-repo.log" 2>&1 ||
		bail "packaging/repo.sh failed: $(tail -n 3 "$RUN/log/an-repo.log")"
	for h in $CL_HOSTS; do
		mkdir -p "${CL_ROOT[$h]}$AN_REPO"
		cp -a "$RUN/an-repo/." "${CL_ROOT[$h]}$AN_REPO/"
		install -m 0644 "$RUN/an-repo/slurm-spank-ebpf.gpg" "${CL_ROOT[$h]}$AN_REPO_KEY"
		echo "deb [signed-by=$AN_REPO_KEY] file:$AN_REPO/apt $SUITE main" >"${CL_ROOT[$h]}/etc/apt/$AN_REPO_LIST"
		on "$h" ct apt-get update -q -o Dir::Etc::sourcelist="$AN_REPO_LIST" -o Dir::Etc::sourceparts=- \
			-o APT::Get::List-Cleanup=0 >>"$RUN/log/repo-$h.log" 2>&1 ||
			bail "apt-get update of the test repository failed on $h (log: $RUN/log/repo-$h.log)"
	done
	AN_REPO_DONE=1
}

an_repo_undeclare() {
	local h
	for h in $CL_HOSTS; do
		rm -f "${CL_ROOT[$h]}/etc/apt/$AN_REPO_LIST" "${CL_ROOT[$h]}$AN_REPO_KEY"
		on "$h" ct sh -c 'rm -f /var/lib/apt/lists/_srv_slurm-spank-ebpf-repo_*'
	done
}

# The role's packages for HOST, as cl_installed prints them.
an_role_pkgs() {
	case $1 in
	ctl) echo "slurm-spank-ebpf slurm-spank-ebpf-submit" ;;
	*) echo "slurm-spank-ebpf slurm-spank-ebpf-compute" ;;
	esac
}
