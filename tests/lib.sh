# Shared by the shell tests: TAP output, and prerequisites that skip when
# run by hand but fail in CI (CI=true), so CI never passes on a skip.
n=0
failed=0

ok_if() {
	desc=$1
	shift
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}

diag() {
	echo "# $*"
}

done_testing() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# Missing prerequisite: skip the whole script by hand, fail it in CI.
missing() {
	if [ -n "${CI:-}" ]; then
		echo "Bail out! missing prerequisite in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP missing prerequisite: $*"
	exit 0
}

need_cmd() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing "command $c"
	done
}

need_root() {
	[ "$(id -u)" -eq 0 ] || missing "root"
}
