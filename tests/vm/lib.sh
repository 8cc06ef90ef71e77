# Shared by the VM test scripts: run ktb, capture its output and exit code,
# and assert on them with messages that say what was expected.
set -uo pipefail
: "${KTB:?set KTB to the ktb binary}" "${KTB_SRC:?set KTB_SRC to the source tree}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ktb-vmtest-XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out.txt
rc=0

fail() {
	echo "FAIL: $*" >&2
	echo "--- ktb output ---" >&2
	cat "$out" >&2 2>/dev/null || true
	exit 1
}

# ktb_run ARGS...: run ktb, keep stdout+stderr in $out and the status in $rc.
ktb_run() {
	rc=0
	"$KTB" "$@" >"$out" 2>&1 || rc=$?
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "expected exit $1, got $rc"
}

expect_out() {
	grep -Eq -- "$1" "$out" || fail "output does not match /$1/"
}

# mutate SRC SED-EXPR: a copy of scenario SRC with one change, in $work.
mutate() {
	local src=$KTB_SRC/scenarios/$1.yaml dst=$work/$1-broken.yaml
	sed -e "$2" -e "s/^name: $1\$/name: $1-broken/" "$src" >"$dst"
	cmp -s "$src" "$dst" && fail "mutation '$2' changed nothing in $src"
	echo "$dst"
}

artifacts() {
	echo "${KTB_TEST_ARTIFACTS:-$work/artifacts}"
}
