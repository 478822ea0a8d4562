#!/bin/bash
# The real ebpf_exporter (cloudflare/ebpf_exporter) and a few of its example
# configs, built once and cached as a test dependency. Nothing of the
# exporter's source is part of this project: it comes from the Go module
# proxy at a pinned version.
#
#   tests/exporter/build.sh          (as root, on Debian 12)
#
# Last line of output, on success:
#   ebpf_exporter=<cache>/bin/ebpf_exporter configs=<cache>/configs
# Anything else on stdout is a "# "-prefixed summary line; the full log is
# <cache>/build.log. Errors: a message on stderr and a non-zero exit.
#
# Environment:
#   EXPORTER_VERSION  module version to build (default: the pin in
#                     packaging/ebpf-exporter/VERSION, which the
#                     ebpf-exporter package builds too)
#   EXPORTER_CONFIGS  example configs to compile, space separated (default
#                     below); each must attach here with --config.strict
#   EXPORTER_CACHE    cache directory (default $SYSTEM_CACHE/exporter, that
#                     is /var/cache/slurm-spank-ebpf-tests/exporter)
#   EXPORTER_GO       the go command (default /usr/local/go/bin/go)
#   EXPORTER_REFRESH  set: rebuild even when the cache is good
#   SYSTEM_MIRROR     Debian mirror for the build root (default: the one
#                     apt uses on this host, as tests/lib/rootfs.sh finds it)
#
# How it builds:
# 1. The module and every module it needs are downloaded on the host, by
#    the host's go, into <cache>/gomod (`go mod download`). The go command
#    takes its settings the ordinary way, so whatever the caller's Go is
#    configured with applies, from `env -i` too: environment variables
#    (none are needed), the user's go env file ($GOENV, by default
#    $HOME/.config/go/env, which `go env -w` writes) and $GOROOT/go.env
#    (GOPROXY and GOSUMDB defaults). Nothing here names a proxy.
# 2. The binary is built offline (GOPROXY=off, -mod=readonly, no network)
#    in a Debian trixie root filesystem of its own (<cache>/buildroot,
#    debootstrap once): libbpfgo v0.9.1-libbpf-1.5.1, which v2.5.1 pins,
#    needs libbpf 1.5 (bookworm has 1.1.2, trixie 1.5.0, the version
#    upstream's Makefile.libbpf builds itself). Go is the host's, bind
#    mounted read-only. Linked statically like upstream's build-static
#    target (tags netgo,osusergo, -extldflags -static, libbpf's
#    `pkg-config --static --libs`), so one binary runs on bookworm, trixie
#    and sid alike.
# 3. The example configs are compiled with clang for the bpf target against
#    a vmlinux.h dumped from this kernel's BTF, as upstream's
#    examples/Makefile does (CO-RE: the objects load on other kernels too).
#    The project's fixtures (tests/exporter/fixtures/*.bpf.c, *.yaml) are
#    compiled the same way into the same directory:
#    sse-missing-attach  loads but cannot attach (--config.strict fails)
#    sse-pinned-map      a map pinned by name under /sys/fs/bpf
# 4. Every config is checked on this host with --config.check
#    --config.strict; a config that cannot attach fails the build. As a
#    positive control, sse-missing-attach must fail that check.
# 5. The result goes to <cache>/<version>-r<recipe>.new, is checksummed
#    into its stamp, and only then renamed into place. A cached result is
#    used only when its stamp matches this recipe and its checksums hold:
#    an interrupted build is never used. One build at a time (flock on
#    <cache>/.lock).
#
# Running it (seen with v2.5.1 on this kind of machine):
# - Set OTEL_TRACES_EXPORTER=none: by default its OpenTelemetry span
#   exporter targets localhost:4318, and on SIGTERM it detaches, fails to
#   flush ("Error flushing spans") and exits 1, which systemd records as a
#   failed stop.
# - It opens /proc/kallsyms at start whatever the configs (ksym decoder):
#   ProtectKernelTunables=yes or ProcSubset=pid makes every start fail.
#   Without CAP_SYSLOG (perf_event_paranoid=2) the file shows zero
#   addresses and ksym labels read "unknown_addr:0x...".
# - CAP_BPF and CAP_PERFMON are needed to load these configs; none of
#   them calls perf_event_open (raw_tp, tp_btf).
# - After it exits, the kernel releases its programs asynchronously:
#   poll (some were still loaded up to ~0.3 s after `systemctl stop`).
set -u -o pipefail

EXP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The one pin of the exporter's version: the package's (packaging/ebpf-exporter).
EXP_VERSION=${EXPORTER_VERSION:-$(cat "$EXP_TOP/packaging/ebpf-exporter/VERSION" 2>/dev/null)}
# Bump when the recipe of the result changes (flags, build root, layout).
EXP_RECIPE=1
# Bump when the build root's recipe changes.
EXP_ROOT_RECIPE=1
EXP_ROOT_SUITE=trixie
EXP_ROOT_PKGS="bpftool clang gcc libbpf-dev libc6-dev libelf-dev libzstd-dev pkgconf zlib1g-dev"
# From trixie-backports: trixie's libelf.a (elfutils 0.192) cannot be
# linked statically: its elf_begin.o, elf_end.o and elf_getdata_rawchunk.o
# call eu_search_tree_init/fini, eu_tsearch and eu_tdelete, which live in
# elfutils' internal libeu and are in no installed library (elfutils bug
# 32293, fixed in 0.193: libelf.a then carries libeu's objects). The
# backport (0.196) is built for trixie. libbpf stays trixie's 1.5.0.
EXP_ROOT_BACKPORTS="libelf-dev"
# Only raw_tp and tp_btf programs: they need no tracefs, debugfs or bpffs
# and attach on any kernel with BTF. kprobe configs (oomkill,
# tcp-syn-backlog, ...) need CONFIG_KPROBES, which some kernels lack (the
# 6.18 VMs these tests run on), and fentry/fexit ones (cachestat,
# tcp-retransmit, ...) were refused there with EPERM at load.
# biolatency: block I/O latency (raw_tp block_rq_*), moves with
#   `dd oflag=direct`;
# cgroup: task migrations by cgroup path (tp_btf sched_migrate_task, cgroup
#   decoder: the per-job label path), moves with threads on >1 CPU;
# kfree_skb: freed-for-drop packets (tp_btf kfree_skb), moves with a
#   connection attempt to a closed local port;
# syscalls: syscalls by name and errors by errno (tp_btf sys_enter/exit),
#   always moving;
# timers: kernel timer starts by function (tp_btf timer_start, ksym
#   decoder: reads /proc/kallsyms).
EXPORTER_CONFIGS_DEFAULT="biolatency cgroup kfree_skb syscalls timers"
EXP_CONFIGS=${EXPORTER_CONFIGS:-$EXPORTER_CONFIGS_DEFAULT}
EXP_CACHE=${EXPORTER_CACHE:-${SYSTEM_CACHE:-/var/cache/slurm-spank-ebpf-tests}/exporter}
EXP_GO=${EXPORTER_GO:-/usr/local/go/bin/go}
EXP_MODULE=github.com/cloudflare/ebpf_exporter/v2
EXP_FIXTURES=$EXP_TOP/tests/exporter/fixtures
EXP_LOCK_WAIT=${EXPORTER_LOCK_WAIT:-3600}
EXP_PATH=/usr/sbin:/usr/bin:/sbin:/bin

note() {
	echo "# $*"
}

fatal() {
	echo "build.sh: error: $*" >&2
	exit 1
}

# log_tail FILE: its last lines on stderr, indented.
log_tail() {
	[ -f "$1" ] || return 0
	tail -n "${2:-25}" "$1" | sed 's/^/    /' >&2
}

# logged DESC CMD...: CMD with its output appended to the log; on failure, the
# log's tail and an error naming DESC.
logged() {
	local desc=$1
	shift
	echo "+ $*" >>"$LOG"
	if ! "$@" >>"$LOG" 2>&1; then
		log_tail "$LOG"
		fatal "$desc failed (log: $LOG)"
	fi
}

# --- checks ------------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || fatal "must run as root (debootstrap, systemd-nspawn, eBPF)"
for c in debootstrap systemd-nspawn flock sha256sum mktemp; do
	command -v "$c" >/dev/null 2>&1 || fatal "command $c not found (PATH=$PATH)"
done
[ -x "$EXP_GO" ] || fatal "no go command at $EXP_GO (set EXPORTER_GO)"
case $EXP_VERSION in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) fatal "EXPORTER_VERSION=$EXP_VERSION: want a module version such as v2.5.1" ;;
esac
for c in $EXP_CONFIGS; do
	case $c in
	*[!A-Za-z0-9_-]* | "") fatal "bad config name '$c' in EXPORTER_CONFIGS" ;;
	esac
done
case $(uname -m) in
x86_64) EXP_ARCH=x86 ;;
aarch64) EXP_ARCH=arm64 ;;
*) fatal "unsupported architecture $(uname -m)" ;;
esac
[ -r /sys/kernel/btf/vmlinux ] || fatal "no kernel BTF (/sys/kernel/btf/vmlinux): cannot generate vmlinux.h"

EXP_OUT=$EXP_CACHE/$EXP_VERSION-r$EXP_RECIPE
EXP_BIN=$EXP_OUT/bin/ebpf_exporter
EXP_CONF=$EXP_OUT/configs

mkdir -p "$EXP_CACHE" || fatal "cannot create $EXP_CACHE"
exec 8>>"$EXP_CACHE/.lock" || fatal "cannot open $EXP_CACHE/.lock"
if ! flock -w "$EXP_LOCK_WAIT" 8; then
	fatal "could not take $EXP_CACHE/.lock within ${EXP_LOCK_WAIT}s (another build.sh?)"
fi

# The fixtures' names and a checksum of their sources.
EXP_FIXTURE_NAMES=$(cd "$EXP_FIXTURES" 2>/dev/null && ls *.bpf.c 2>/dev/null | sed 's/\.bpf\.c$//' | tr '\n' ' ' | sed 's/ $//')
for c in $EXP_FIXTURE_NAMES; do
	[ -f "$EXP_FIXTURES/$c.yaml" ] || fatal "fixture $c.bpf.c has no $c.yaml in $EXP_FIXTURES"
done

# The result's key: what makes it. The configs' list is sorted.
exp_key() {
	printf 'recipe=%s version=%s module=%s arch=%s configs=%s buildroot=%s-r%s fixtures=%s\n' \
		"$EXP_RECIPE" "$EXP_VERSION" "$EXP_MODULE" "$EXP_ARCH" \
		"$(echo $EXP_CONFIGS | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')" \
		"$EXP_ROOT_SUITE" "$EXP_ROOT_RECIPE" \
		"$( (cd "$EXP_FIXTURES" 2>/dev/null && cat $(ls 2>/dev/null | sort)) | sha256sum | cut -c1-16)"
}

# exp_cached: the result in EXP_OUT is complete and made by this recipe: its
# stamp's first line is the key, the rest the checksums of every file.
exp_cached() {
	local stamp=$EXP_OUT/stamp
	[ -z "${EXPORTER_REFRESH:-}" ] || return 1
	[ -f "$stamp" ] && [ -x "$EXP_BIN" ] || return 1
	[ "$(head -n 1 "$stamp")" = "$(exp_key)" ] || return 1
	(cd "$EXP_OUT" && tail -n +2 stamp | sha256sum --quiet --strict -c -) >/dev/null 2>&1
}

if exp_cached; then
	note "ebpf_exporter $EXP_VERSION: cached in $EXP_OUT (configs: $EXP_CONFIGS)"
	echo "ebpf_exporter=$EXP_BIN configs=$EXP_CONF"
	exit 0
fi

# --- build -------------------------------------------------------------------

T0=$(date +%s)
NEW=$EXP_OUT.new
rm -rf "$NEW"
mkdir -p "$NEW/bin" "$NEW/configs" "$NEW/work" || fatal "cannot create $NEW"
LOG=$NEW/build.log
: >"$LOG"
note "building ebpf_exporter $EXP_VERSION (recipe $EXP_RECIPE) in $NEW (log: $LOG)"

# tests/lib/rootfs.sh: sys_mirror (the Debian mirror apt uses here) and
# nspawn_prep. Sourcing it only defines things.
# shellcheck source=../lib/rootfs.sh
. "$EXP_TOP/tests/lib/rootfs.sh"

GOROOT_HOST=$("$EXP_GO" env GOROOT 2>>"$LOG") && [ -d "$GOROOT_HOST" ] ||
	fatal "$EXP_GO env GOROOT failed: $(tail -n 3 "$LOG")"

# The build root: trixie with the C side of the build.
exp_buildroot() {
	local dir=$EXP_CACHE/buildroot key mirror new t0
	EXP_ROOT=$dir/root
	key="recipe=$EXP_ROOT_RECIPE suite=$EXP_ROOT_SUITE packages=$EXP_ROOT_PKGS backports=$EXP_ROOT_BACKPORTS"
	if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$key" ] &&
		[ -x "$EXP_ROOT/usr/bin/clang" ]; then
		echo "build root: $EXP_ROOT (cached)" >>"$LOG"
		return 0
	fi
	t0=$(date +%s)
	mirror=$(sys_mirror) || true
	[ -n "$mirror" ] || fatal "no Debian mirror found in /etc/apt/sources.list* (set SYSTEM_MIRROR)"
	note "building the $EXP_ROOT_SUITE build root in $dir (debootstrap, then apt-get)"
	new=$dir.new
	rm -rf "$new"
	mkdir -p "$new"
	logged "debootstrap $EXP_ROOT_SUITE" debootstrap --variant=minbase "$EXP_ROOT_SUITE" "$new/root" "$mirror"
	printf 'deb %s %s main\ndeb %s %s-backports main\n' "$mirror" "$EXP_ROOT_SUITE" \
		"$mirror" "$EXP_ROOT_SUITE" >"$new/root/etc/apt/sources.list"
	nspawn_prep
	logged "apt-get install in the build root" systemd-nspawn -q -D "$new/root" --register=no --keep-unit --pipe \
		-E DEBIAN_FRONTEND=noninteractive -E LANG=C.UTF-8 -E PATH="$EXP_PATH" \
		/bin/sh -c "apt-get -q -o Acquire::Check-Valid-Until=false update &&
			apt-get -q install -y --no-install-recommends $EXP_ROOT_PKGS &&
			apt-get -q install -y --no-install-recommends -t $EXP_ROOT_SUITE-backports $EXP_ROOT_BACKPORTS &&
			apt-get clean" </dev/null
	echo "$key" >"$new/stamp"
	rm -rf "$dir"
	mv "$new" "$dir"
	note "build root ready in $(($(date +%s) - t0)) s ($(du -sh "$EXP_ROOT" | cut -f1))"
}

# 1. The module and its dependencies, on the host, into the module cache
# (first: a refused version fails in a second, before any debootstrap).
GOMOD=$EXP_CACHE/gomod
mkdir -p "$GOMOD"
exp_go() {
	GOMODCACHE=$GOMOD GOCACHE=$EXP_CACHE/gocache-host GOTOOLCHAIN=local "$EXP_GO" "$@"
}
{
	echo "+ go env (host) GOPROXY GOFLAGS GONOSUMDB GONOSUMCHECK GOSUMDB GOENV GOROOT:"
	exp_go env GOPROXY GOFLAGS GONOSUMDB GONOSUMCHECK GOSUMDB GOENV GOROOT 2>&1 | sed 's/^/  /'
} >>"$LOG"
t0=$(date +%s)
cmd="go mod download -json $EXP_MODULE@$EXP_VERSION"
echo "+ $cmd" >>"$LOG"
json=$(cd "$NEW/work" && exp_go mod download -json "$EXP_MODULE@$EXP_VERSION" 2>&1)
rc=$?
echo "$json" >>"$LOG"
if [ "$rc" -ne 0 ] || printf '%s\n' "$json" | grep -q '"Error"'; then
	{
		echo "build.sh: error: \`$cmd\` failed (exit $rc):"
		printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' |
			sed 's/\\n\\t/\n    /g; s/\\n/\n    /g; s/^/    /'
		printf '%s\n' "$json" | grep -q '"Error"' || printf '%s\n' "$json" | tail -n 10 | sed 's/^/    /'
		echo "(log: $LOG)"
	} >&2
	exit 1
fi
MODDIR=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
REVISION=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Hash": "\([0-9a-f]*\)",\{0,1\}$/\1/p' | head -n 1)
[ -n "$MODDIR" ] && [ -f "$MODDIR/go.mod" ] || fatal "go mod download gave no module directory (log: $LOG)"
SRC=$NEW/work/src
cp -r "$MODDIR" "$SRC" && chmod -R u+w "$SRC" || fatal "cannot copy $MODDIR to $SRC"
LIBBPFGO=$(sed -n 's/^[[:space:]]*github.com\/aquasecurity\/libbpfgo \(v[^ ]*\).*/\1/p' "$SRC/go.mod")
echo "+ (cd $SRC && go mod download)" >>"$LOG"
if ! (cd "$SRC" && exp_go mod download -x) >>"$LOG" 2>&1; then
	log_tail "$LOG"
	fatal "\`go mod download\` of $EXP_MODULE@$EXP_VERSION's dependencies failed (log: $LOG)"
fi
note "module $EXP_MODULE@$EXP_VERSION (revision ${REVISION:-?}, libbpfgo ${LIBBPFGO:-?}) and its dependencies downloaded in $(($(date +%s) - t0)) s"

# 2. Build and compile inside the build root, offline.
exp_buildroot
mkdir -p "$EXP_CACHE/gocache"
cat >"$NEW/work/inside.sh" <<'INSIDE'
#!/bin/sh
# Runs in the build root: /work is the result's work directory, /gomod the
# module cache (read-only), Go at its host path (read-only).
set -eu
cd /work/src
echo "libbpf-dev $(dpkg-query -W -f='${Version}' libbpf-dev), libelf-dev $(dpkg-query -W -f='${Version}' libelf-dev), clang $(dpkg-query -W -f='${Version}' clang), $(go version)"
ldflags=$(pkg-config --static --libs libbpf)
echo "pkg-config --static --libs libbpf: $ldflags"
export CGO_ENABLED=1 CGO_LDFLAGS="$ldflags"
v=github.com/prometheus/common/version
set -x
go build -tags netgo,osusergo -o /work/out/bin/ebpf_exporter -v \
	-ldflags="-extldflags \"-static\" -X $v.Version=$EXP_VERSION -X $v.Branch=module -X $v.Revision=$EXP_REVISION -X $v.BuildUser=slurm-spank-ebpf-tests -X $v.BuildDate=$EXP_DATE" \
	./cmd/ebpf_exporter
readelf -lW /work/out/bin/ebpf_exporter >/work/readelf.txt
if grep -q 'INTERP\|DYNAMIC' /work/readelf.txt; then
	echo "not a static binary:"
	cat /work/readelf.txt
	exit 1
fi
/work/out/bin/ebpf_exporter --version
mkdir -p /work/include
bpftool btf dump file /sys/kernel/btf/vmlinux format c >/work/include/vmlinux.h
sys_includes=$(clang -v -E - </dev/null 2>&1 |
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
cd /work/src/examples
for c in $EXP_CONFIGS; do
	clang -mcpu=v3 -g -O2 -Wall -Werror -D__TARGET_ARCH_$EXP_ARCH $sys_includes \
		-I/work/include -c -target bpf "$c.bpf.c" -o "/work/out/configs/$c.bpf.o"
	cp "$c.yaml" "/work/out/configs/$c.yaml"
done
cd /work/fixtures
for c in $EXP_FIXTURE_NAMES; do
	clang -mcpu=v3 -g -O2 -Wall -Werror -D__TARGET_ARCH_$EXP_ARCH $sys_includes \
		-I/work/include -I/work/src/examples -c -target bpf "$c.bpf.c" -o "/work/out/configs/$c.bpf.o"
	cp "$c.yaml" "/work/out/configs/$c.yaml"
done
INSIDE
mkdir -p "$NEW/work/out" "$NEW/work/fixtures"
[ -z "$EXP_FIXTURE_NAMES" ] || cp "$EXP_FIXTURES"/* "$NEW/work/fixtures/"
mv "$NEW/bin" "$NEW/configs" "$NEW/work/out/"
t0=$(date +%s)
nspawn_prep
if ! systemd-nspawn -q -D "$EXP_ROOT" --register=no --keep-unit --pipe --private-network \
	--volatile=overlay \
	--bind-ro="$GOROOT_HOST" --bind-ro="$GOMOD:/gomod" --bind="$EXP_CACHE/gocache:/gocache" \
	--bind="$NEW/work:/work" \
	-E PATH="$GOROOT_HOST/bin:$EXP_PATH" -E HOME=/root -E LANG=C.UTF-8 \
	-E GOMODCACHE=/gomod -E GOCACHE=/gocache -E GOPROXY=off -E GOSUMDB=off \
	-E GOFLAGS="-mod=readonly -buildvcs=false -trimpath" -E GOTOOLCHAIN=local -E GOENV=off \
	-E EXP_VERSION="$EXP_VERSION" -E EXP_REVISION="${REVISION:-unknown}" \
	-E EXP_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -E EXP_ARCH="$EXP_ARCH" -E EXP_CONFIGS="$EXP_CONFIGS" \
	-E EXP_FIXTURE_NAMES="$EXP_FIXTURE_NAMES" \
	/bin/sh /work/inside.sh </dev/null >>"$LOG" 2>&1; then
	log_tail "$LOG" 30
	fatal "building in the $EXP_ROOT_SUITE build root failed (log: $LOG)"
fi
mv "$NEW/work/out/bin" "$NEW/work/out/configs" "$NEW/"
cp "$NEW/work/include/vmlinux.h" "$NEW/vmlinux.h"
note "built with $(grep -m 1 '^libbpf-dev' "$LOG") in $(($(date +%s) - t0)) s: static binary ($(du -h "$NEW/bin/ebpf_exporter" | cut -f1)), configs $EXP_CONFIGS, fixtures $EXP_FIXTURE_NAMES"

# 3. Every config attaches here: --config.check --config.strict, one at a
# time (so that the error names the config), capabilities dropped after
# attaching as the tests run it.
t0=$(date +%s)
for c in $EXP_CONFIGS; do
	cmd="ebpf_exporter --config.check --config.strict --capabilities.keep=none --config.dir=$NEW/configs --config.names=$c"
	echo "+ $cmd" >>"$LOG"
	if ! env -u NOTIFY_SOCKET timeout 60 "$NEW/bin/ebpf_exporter" --config.check --config.strict \
		--capabilities.keep=none --config.dir="$NEW/configs" --config.names="$c" >>"$LOG" 2>&1; then
		log_tail "$LOG" 10
		fatal "config $c does not attach on this kernel ($(uname -r)): \`$cmd\` failed (log: $LOG)"
	fi
done
# The positive control: a config that cannot attach fails the same check.
case " $EXP_FIXTURE_NAMES " in
*" sse-missing-attach "*)
	c=sse-missing-attach
	echo "+ ebpf_exporter --config.check --config.strict ... --config.names=$c (must fail)" >>"$LOG"
	out=$(env -u NOTIFY_SOCKET timeout 60 "$NEW/bin/ebpf_exporter" --config.check --config.strict \
		--capabilities.keep=none --config.dir="$NEW/configs" --config.names="$c" 2>&1)
	rc=$?
	printf '%s\n' "$out" >>"$LOG"
	if [ "$rc" -eq 0 ] || ! printf '%s\n' "$out" | grep -q "Missed attachments (module:prog): $c:"; then
		log_tail "$LOG" 10
		fatal "the $c fixture passed --config.check --config.strict (exit $rc): the check proves nothing (log: $LOG)"
	fi
	;;
esac
note "configs checked on this kernel ($(uname -r)) with --config.strict in $(($(date +%s) - t0)) s"

# 4. Stamp (key, then checksums of every file it vouches for) and rename.
rm -rf "$NEW/work"
{
	exp_key
	(cd "$NEW" && find bin configs vmlinux.h -type f | sort | xargs sha256sum)
} >"$NEW/stamp.new" && mv "$NEW/stamp.new" "$NEW/stamp" || fatal "cannot write $NEW/stamp"
rm -rf "$EXP_OUT"
mv "$NEW" "$EXP_OUT" || fatal "cannot rename $NEW to $EXP_OUT"
note "ebpf_exporter $EXP_VERSION built and cached in $EXP_OUT in $(($(date +%s) - T0)) s (log: $EXP_OUT/build.log)"
echo "ebpf_exporter=$EXP_BIN configs=$EXP_CONF"
