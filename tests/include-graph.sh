#!/bin/bash
# The include graph is one-way: run it by hand (tests/include-graph.sh,
# from the top of the tree) to see the core's modules in layers.
#
# - src/common: a module is a .c with its .h; module A depends on B when a
#   file of A includes B's header. tsort finds any cycle (hold -> linger ->
#   hold once made the start/stop step impossible to read on its own).
# - The core includes no face's header and no Slurm header: the faces
#   (src/spank, src/spank-ebpf) sit on it, never the reverse, and neither
#   face includes the other's headers.
# Prints the layers, lowest first (a module only uses modules of lower
# layers), as TAP comments.
. "${srcdir:-.}/tests/lib/tap.sh"
src=${srcdir:-.}/src
[ -d "$src/common" ] || missing "the source tree (srcdir)"

# "A B" lines: module A includes B's header (quoted includes only).
edges() {
	local f m h
	for f in "$src"/common/*.[ch]; do
		m=$(basename "${f%.*}")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)\.h".*/\1/p' "$f" |
			while read -r h; do
				[ "$h" = "$m" ] || echo "$m $h"
			done
	done | sort -u
}

e=$(edges)
is "src/common: some module includes another (the graph is read at all)" \
	"$([ -n "$e" ] && echo read)" read
# Every module, itself included, so that a module without edges is listed.
nodes=$(for f in "$src"/common/*.[ch]; do m=$(basename "${f%.*}"); echo "$m $m"; done | sort -u)
out=$(printf '%s\n%s\n' "$e" "$nodes" | tsort 2>&1 >/dev/null)
is "src/common: no include cycle (tsort)" "$out" ""
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
while IFS= read -r line; do diag "$line"; done <<EOF
$layers
EOF

faces() {
	grep -ln "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]$1" "$src"/common/*.[ch] 2>/dev/null
}
is "src/common includes no Slurm header" "$(faces 'slurm/')" ""
is "src/common includes no header of the plugin face (plugin.h)" "$(faces 'plugin\.h')" ""
is "src/common includes no header of the admin command (spank-ebpf.h)" "$(faces 'spank-ebpf\.h')" ""
is "the plugin face includes nothing of the admin command" \
	"$(grep -ln '#[[:space:]]*include[[:space:]]*"spank-ebpf\.h"' "$src"/spank/*.[ch] 2>/dev/null)" ""
is "the admin command includes nothing of the plugin face" \
	"$(grep -ln '#[[:space:]]*include[[:space:]]*\("plugin\.h"\|<slurm/\)' "$src"/spank-ebpf/*.[ch] 2>/dev/null)" ""
done_testing
