# What the plugin and its admin command print and serve, as the tests
# expect it: its log lines, the refcounts in them, its Prometheus text,
# the admin command's JSON. Definitions only; no other library needed.

# The plugin's lines for one job alone on the node, from prolog to epilog
# (durations as "N"; pipe the log through plugin_cycle_normalize first).
plugin_cycle_log() {
	printf "spank_ebpf: prolog job $1: %s\n" "--ebpf: taking a hold on ebpf_exporter" \
		"refcount now 1" "starting ebpf_exporter" "ebpf_exporter started in N ms"
	printf "spank_ebpf: epilog job $1: %s\n" "releasing its hold on ebpf_exporter" \
		"refcount now 0" "stopping ebpf_exporter" "ebpf_exporter stopped in N ms"
}

plugin_cycle_normalize() {
	sed 's/ in [0-9][0-9]* ms$/ in N ms/'
}

# The first line of a prolog that takes a job's hold, and of an epilog
# that releases it (EREs; JOB: a job ID, or [0-9]+).
hold_taken_re() {
	echo "spank_ebpf: prolog job ${1:-[0-9]+}: (--ebpf|mode=always): taking a hold on "
}

hold_released_re() {
	echo "spank_ebpf: epilog job ${1:-[0-9]+}: releasing its hold on "
}

# "refcount now N" lines as N N N (any context: prolog, epilog, reconcile).
refcounts_of() {
	sed -n 's/.*spank_ebpf: [^:]*: refcount now \([0-9]*\)$/\1/p' | tr '\n' ' ' | sed 's/ $//'
}

# json EXPR: the Python expression EXPR over the JSON document in $out
# (the admin command's `status --json`), parsed as d; python3's answer or
# its error.
json() {
	printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1" 2>&1
}

# prom_structure < TEXT: what is wrong with Prometheus text beyond what
# promtool checks (it accepts a family without # TYPE): every sample's
# family has one # HELP and one # TYPE, both before its first sample, and
# a family's samples are together. Prints one line per problem, nothing
# when the text is sound. Histogram and summary samples (_bucket, _sum,
# _count) belong to their family's TYPE.
prom_structure() {
	awk '
		function family(name,   base) {
			base = name
			sub(/_(bucket|sum|count)$/, "", base)
			if (base != name && (type[base] == "histogram" || type[base] == "summary")) return base
			return name
		}
		/^# HELP / { if (help[$3]++) print "line " NR ": a second # HELP for " $3; next }
		/^# TYPE / {
			if ($3 in type) print "line " NR ": a second # TYPE for " $3
			if ($3 in sampled) print "line " NR ": # TYPE for " $3 " after its samples"
			type[$3] = $4; next
		}
		/^#/ || /^[[:space:]]*$/ { next }
		{
			name = $1; sub(/\{.*/, "", name); f = family(name)
			if (!(f in type)) print "line " NR ": sample of " f " without # TYPE before it"
			if (!(f in help)) print "line " NR ": sample of " f " without # HELP before it"
			if ((f in sampled) && last != f) print "line " NR ": samples of " f " not together"
			sampled[f] = 1; last = f
		}'
}

# The three built faces a direct test runs, in $face (the SPANK stub host,
# tests/face), $so (the plugin) and $cmd (spank-ebpf); $top is the source
# tree. A face not built is a missing prerequisite.
plugin_built_faces() {
	face=${SPANK_FACE:-${top_builddir:-.}/tests/face/spank-face}
	so=${SPANK_EBPF_SO:-${top_builddir:-.}/src/spank/.libs/spank_ebpf.so}
	cmd=${SPANK_EBPF_CMD:-${top_builddir:-.}/src/spank-ebpf/spank-ebpf}
	for f in "$face" "$so" "$cmd"; do
		[ -e "$f" ] || missing "built $f (run make first)"
	done
	top=${srcdir:-.}
}

# standin_tls DIR: a throwaway CA (DIR/ca.pem) and a certificate for
# 127.0.0.1 signed by it (DIR/server.pem, DIR/server.key), for the
# stand-in Prometheus' https: prometheus= on this host at a port any
# user may bind is refused without a CA. Bails out when openssl cannot.
standin_tls() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=test-ca \
		-keyout "$1/ca.key" -out "$1/ca.pem" 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
		-keyout "$1/server.key" -out "$1/server.csr" 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1\n' >"$1/san.ext" &&
	openssl x509 -req -in "$1/server.csr" -CA "$1/ca.pem" -CAkey "$1/ca.key" -CAcreateserial -days 2 \
		-extfile "$1/san.ext" -out "$1/server.pem" 2>/dev/null || bail "openssl cannot make the stand-in's certificate"
}
