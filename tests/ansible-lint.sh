#!/bin/bash
# ansible-lint (Debian's package) over the Ansible role and the example
# playbook (contrib/ansible): clean under its strictest (production)
# profile; every exception is a `# noqa:` with its reason beside it in the
# role. The role's run against real hosts: tests/cluster/ansible.sh.
. "${srcdir:-.}/tests/lib/tap.sh"
need_cmd ansible-lint
top=${srcdir:-.}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# --offline: no collection or version look-ups; its caches in the scratch
# directory, not in the caller's home.
out=$(cd "$top/contrib/ansible" && HOME=$tmp XDG_CACHE_HOME=$tmp ANSIBLE_HOME=$tmp \
	ANSIBLE_ROLES_PATH=roles NO_COLOR=1 \
	ansible-lint --offline --nocolor -p site.yml roles/slurm_spank_ebpf 2>&1)
rc=$?
is "ansible-lint: the role and site.yml pass (exit $rc)" "$rc" 0 || show "$out"
like "ansible-lint: under the production profile" "$out" 'Passed with production profile'
noqa=$(grep -rn --include='*.yml' 'noqa' "$top/contrib/ansible" | grep -v '^[^:]*:[0-9]*:[[:space:]]*#')
n_noqa=$(printf '%s\n' "$noqa" | grep -c noqa)
# Each exception has a comment just above it saying why.
why=0
while IFS=: read -r f l _; do
	[ -n "$f" ] || continue
	sed -n "$((l - 1))p" "$f" | grep -q '^[[:space:]]*#' && why=$((why + 1))
done <<<"$noqa"
is "ansible-lint: each of the $n_noqa exceptions justified on the line above" "$why" "$n_noqa"
done_testing
