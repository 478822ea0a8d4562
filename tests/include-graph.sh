#!/bin/bash
# The include graph is one-way: run it by hand (tests/include-graph.sh,
# from the top of the tree) to see the libraries' modules in layers.
#
# - The two libraries, src/common (the core the plugin links) and
#   src/libadmin (the admin command's clients): a module is a .c with its
#   .h; module A depends on B when a file of A includes B's header. tsort
#   finds any cycle (hold -> linger -> hold once made the start/stop step
#   impossible to read on its own).
# - One way: src/libadmin may include the core, the core includes nothing
#   of src/libadmin; neither includes a face's header or a Slurm header.
#   The faces (src/spank, src/spank-ebpf) sit on them, never the reverse;
#   neither face includes the other's headers, and the plugin's face
#   includes no admin header.
# Prints the layers, lowest first (a module only uses modules of lower
# layers), as TAP comments.
. "${srcdir:-.}/tests/lib/tap.sh"
src=${srcdir:-.}/src
[ -d "$src/common" ] && [ -d "$src/libadmin" ] || missing "the source tree (srcdir)"
libs="$src/common/*.[ch] $src/libadmin/*.[ch]"

# "A B" lines: module A includes B's header (quoted includes only).
edges() {
	local f m h
	for f in $libs; do
		m=$(basename "${f%.*}")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' "$f" |
			while read -r h; do
				[ "$h" = "$m" ] || echo "$m $h"
			done
	done | sort -u
}

e=$(edges)
is "the libraries: some module includes another (the graph is read at all)" \
	"$([ -n "$e" ] && echo read)" read
# Every module, itself included, so that a module without edges is listed.
nodes=$(for f in $libs; do m=$(basename "${f%.*}"); echo "$m $m"; done | sort -u)
out=$(printf '%s\n%s\n' "$e" "$nodes" | tsort 2>&1 >/dev/null)
is "the libraries: no include cycle (tsort)" "$out" ""
[ -z "$out" ] || diag "edges (A includes B): $(echo "$e" | tr '\n' ';')"

# Each module's layer: 0 for one that includes nothing of the core, else
# one more than the highest layer it includes.
layers=$(printf '%s\n' "$e" | awk -v nodes="$(echo "$nodes" | awk '{ print $1 }' | tr '\n' ' ')" '
	NF == 2 { dep[$1] = dep[$1] " " $2 }
	function layer(m,   n, i, d, l, best) {
		if (m in done) return done[m]
		if (m in busy) return -1000
		busy[m] = 1; best = 0
		n = split(dep[m], d, " ")
		for (i = 1; i <= n; i++) { l = layer(d[i]) + 1; if (l > best) best = l }
		delete busy[m]; done[m] = best; return best
	}
	END {
		n = split(nodes, all, " ")
		for (i = 1; i <= n; i++) { l = layer(all[i]); if (l >= 0) at[l] = at[l] " " all[i] }
		for (l = 0; l in at; l++) printf "layer %d:%s\n", l, at[l]
	}')
# Printed with the admin library's modules marked "admin/".
while IFS= read -r line; do
	out=
	for m in $line; do
		[ -e "$src/libadmin/$m.h" ] && m=admin/$m
		out="$out $m"
	done
	diag "${out# }"
done <<EOF
$layers
EOF

faces() {
	grep -ln "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]$1" $libs 2>/dev/null
}
# The admin library's headers, as an include pattern ("promapi\.h|json\.h|...").
admin_h=$(cd "$src/libadmin" && ls *.h | sed 's/\./\\./' | paste -sd'|')
includes_admin() {
	grep -lE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"($admin_h)\"" "$@" 2>/dev/null
}
is "the admin library's headers listed" "$([ -n "$admin_h" ] && echo listed)" listed
is "the core (src/common) includes nothing of the admin library" "$(includes_admin "$src"/common/*.[ch])" ""
is "the plugin face includes nothing of the admin library" "$(includes_admin "$src"/spank/*.[ch])" ""
is "the libraries include no Slurm header" "$(faces 'slurm/')" ""
is "the libraries include no header of the plugin face (plugin.h)" "$(faces 'plugin\.h')" ""
is "the libraries include no header of the admin command (spank-ebpf.h)" "$(faces 'spank-ebpf\.h')" ""
is "the plugin face includes nothing of the admin command" \
	"$(grep -ln '#[[:space:]]*include[[:space:]]*"spank-ebpf\.h"' "$src"/spank/*.[ch] 2>/dev/null)" ""
is "the admin command includes nothing of the plugin face" \
	"$(grep -ln '#[[:space:]]*include[[:space:]]*\("plugin\.h"\|<slurm/\)' "$src"/spank-ebpf/*.[ch] 2>/dev/null)" ""
done_testing
