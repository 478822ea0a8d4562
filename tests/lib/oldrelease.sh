# The release before probe sets (0b57a39, the release sites run), built
# from this clone's history for the tests that hold this tree against it:
# its SPANK plugin, compiled on this machine once per source tree and
# cached. Definitions only; needs tap.sh (bail, missing, show, diag).

OLD_RELEASE=0b57a39

# old_release_plugin SCRATCH: the old release's spank_ebpf.so in $old_so,
# built under SCRATCH the first time and kept under
# $SYSTEM_CACHE/old-plugin/<its tree's hash> (a lock keeps two runs from
# building it at once); without a writable cache, built for this run.
# $top: the source tree (a git clone: a shallow one, or a release
# tarball, lacks the commit: a missing prerequisite).
old_release_plugin() {
	local scratch=$1 cache=${SYSTEM_CACHE:-/var/cache/slurm-spank-ebpf-tests}/old-plugin tree b
	tree=$(git -C "$top" rev-parse -q --verify "$OLD_RELEASE^{tree}" 2>/dev/null) ||
		missing "the release before probe sets ($OLD_RELEASE) in this clone's history (a clone without --depth)"
	{ mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; } || cache=$scratch/cache
	mkdir -p "$cache"
	old_so=$cache/$tree/spank_ebpf.so
	exec 7>>"$cache/lock" && flock -w 900 7 || bail "could not lock $cache/lock"
	if [ ! -s "$old_so" ]; then
		b=$scratch/old-src
		mkdir -p "$b"
		git -C "$top" archive "$OLD_RELEASE" | tar -C "$b" -x || bail "git archive $OLD_RELEASE failed"
		if ! (cd "$b" && ./autogen.sh && ./configure -q && make -s src/spank/spank_ebpf.la) >"$scratch/old-build.log" 2>&1; then
			show "$(tail -n 30 "$scratch/old-build.log")"
			bail "building the plugin of $OLD_RELEASE failed"
		fi
		mkdir -p "${old_so%/*}"
		cp "$b/src/spank/.libs/spank_ebpf.so" "$old_so.tmp" && mv "$old_so.tmp" "$old_so"
		diag "built the plugin of $OLD_RELEASE into $old_so"
	fi
	exec 7>&-
}
