#!/bin/bash
# The installed .debs under a real slurmd (tests/lib/localslurm.sh's
# throwaway cluster, whose plugstack.conf includes the system's
# /etc/slurm/plugstack.conf.d/*.conf): slurmd loads the plugin through the
# package's drop-in; after the admin edits the drop-in and restarts slurmd,
# an `sbatch --ebpf` job runs the prolog and epilog, and two overlapping
# ones give one start and one stop; after `apt remove`,
# slurmd restarts cleanly and jobs still run. Packages purged at the end.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/packaging/pkglib.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"

need_cmd apt-get dpkg dpkg-deb dpkg-query dpkg-architecture flock md5sum
[ -f "$top_builddir/Makefile" ] || missing "a configured build tree"
# The harness wants a built plugin; this test swaps in the installed one.
e2e_setup
. "${srcdir:-.}/tests/packaging/debinst.sh"
# Purge after the cluster is down (cluster_finish), then the harness's exit.
trap 'st=$?; debinst_cleanup; (exit $st); e2e_on_exit' EXIT

apt_ok "apt install the three packages" \
	install "$(deb slurm-spank-ebpf)" "$(deb slurm-spank-ebpf-compute)" "$(deb slurm-spank-ebpf-submit)" ||
	{ echo "Bail out! cannot install the packages"; exit 1; }

# A cluster whose plugstack.conf includes the system's drop-in directory,
# and nothing else; slurmd at debug level shows SPANK's "Loaded plugin".
cluster_start
printf '%s\n%s\n' "$E2E_MARK (run $E2E_RUN)" "include /etc/slurm/plugstack.conf.d/*.conf" \
	>"$E2E_DIR/etc/plugstack.conf.d/ebpf.conf"
sed -i 's/^SlurmdDebug=.*/SlurmdDebug=debug/' "$E2E_CONF"
m=$(log_mark)
restart_slurmd || { echo "Bail out! slurmd did not restart with the installed plugin"; exit 1; }
log=$(log_since "$m")
like "slurmd loads the plugin through the package's drop-in" "$log" \
	"spank: /etc/slurm/plugstack\\.conf\\.d/spank_ebpf\\.conf:[0-9]+: Loaded plugin spank_ebpf\\.so"
like "slurmd: the plugin's version line, shipped defaults" "$log" \
	"spank_ebpf: slurmd: version $VERSION loaded: mode=opt-in unit=ebpf_exporter\\.service state=/run/ebpf_exporter\\.refcount systemctl=/usr/bin/systemctl timeout=10s lock_timeout=60s start=wait linger=0s"
# The only error allowed at this point: /run is not a tmpfs on some test
# machines, which the plugin reports for its default state file.
errs=$(printf '%s\n' "$log" | grep 'error: spank_ebpf' | grep -v 'state directory "/run" is not on tmpfs')
is "slurmd: no plugin error at start (bar a /run not on tmpfs)" "$errs" ""
help=$(e2e_guard; timeout 30 sbatch --help 2>&1)
like "sbatch --help lists --ebpf" "$help" '^ +--ebpf +Enable eBPF observability'

# The admin points the drop-in at this cluster's state and systemctl (the
# test double) and restarts slurmd, as spank_ebpf(8) says.
sed -i "s|^optional \\([^ ]*\\) mode=opt-in\$|optional \\1 mode=opt-in systemctl=$SYSTEMCTL state=$STATE|" "$CONF"
like "drop-in edited" "$(active_lines "$CONF")" "systemctl=$SYSTEMCTL state=$STATE\$"
m=$(log_mark)
restart_slurmd || { echo "Bail out! slurmd did not restart after the edit"; exit 1; }
like "after the restart slurmd runs the edited line" "$(log_since "$m")" \
	"spank_ebpf: slurmd: version $VERSION loaded: mode=opt-in .* state=$STATE systemctl=$SYSTEMCTL "
m=$(log_mark)
j=$(submit -J pkg-ebpf --ebpf "$PAYLOAD" pkg-ebpf)
like "sbatch --ebpf accepted" "$j" '^[0-9]+$'
wait_job_done "$j" 60
is "the job completed" "$(job_state "$j")" "COMPLETED"
plog=$(plugin_log_since "$m")
like "prolog took a hold and started the exporter" "$plog" "spank_ebpf: prolog job $j"
like "the exporter was started" "$plog" "spank_ebpf: prolog job $j: starting ebpf_exporter"
like "epilog released it and stopped the exporter" "$plog" "spank_ebpf: epilog job $j: stopping ebpf_exporter"
is "refcounts seen: 1 then 0" "$(refcounts_since "$m")" "1 0"

# Two overlapping --ebpf jobs with the installed plugin: 0->1->2->1->0,
# one start, one stop (the end-to-end suite's scenario 4).
. "${srcdir:-.}/tests/e2e/scenarios.sh"
scn_overlapping pkg-overlap

# apt remove: slurmd restarts without the plugin and jobs run.
apt_ok "apt remove the three packages" remove $PKGS
m=$(log_mark)
restart_slurmd
is "slurmd restarts after apt remove" "$?" "0"
log=$(log_since "$m")
# The checks of absence below read this start's log: it must be there.
like "slurmd logged that start" "$log" 'slurmd (version [^ ]+ )?started'
unlike "no spank error at that start" "$log" 'spank.*([Ff]ailed|error)|error: spank'
unlike "the plugin is not loaded any more" "$log" 'spank_ebpf'
j=$(submit -J pkg-plain "$PAYLOAD" pkg-plain)
wait_job_done "$j" 60
is "a job runs after apt remove" "$(job_state "$j")" "COMPLETED"
help=$(e2e_guard; timeout 30 sbatch --help 2>&1)
unlike "sbatch --help: no --ebpf, no error" "$help" '--ebpf|: error:'

# The tmpfs notice above is the only plugin error this run may have logged.
E2E_PLUGIN_ERRORS=expected
is "no other plugin error in the whole slurmd log" \
	"$(grep 'error: spank_ebpf' "$SLURMD_LOG" | grep -v 'state directory "/run" is not on tmpfs')" ""
cluster_finish
