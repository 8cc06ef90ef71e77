# label: vm
# jobs: 2
# -j 2: two VMs at once, results in scenario order whatever the finishing
# order, one failure gives exit 1, and SIGTERM stops every worker cleanly.
. "$(dirname "$0")/lib.sh"
cat >"$work/a-slow.yaml" <<'YAML'
name: a-slow
machine: {cpus: 1, memory: 512M}
steps:
  - wait: 4s
YAML
cat >"$work/b-fails.yaml" <<'YAML'
name: b-fails
machine: {cpus: 1, memory: 512M}
steps:
  - run: "false"
YAML
cat >"$work/c-quick.yaml" <<'YAML'
name: c-quick
machine: {cpus: 1, memory: 512M}
steps:
  - run: "true"
YAML
ktb_run run -j 2 --junit "$work/r.xml" --json "$work/r.json" --artifacts "$work/artifacts" \
	"$work/a-slow.yaml" "$work/b-fails.yaml" "$work/c-quick.yaml"
expect_rc 1
order=$(grep -oE '^(PASS|FAIL) +[a-c]-[a-z]+' "$out" | awk '{print $2}' | tr '\n' ' ')
[ "$order" = "a-slow b-fails c-quick " ] || fail "terminal order is '$order'"
junit=$(grep -o '<testcase [^>]*' "$work/r.xml" | grep -oE 'name="[a-c]-[a-z]+"' | tr '\n' ' ')
[ "$junit" = 'name="a-slow" name="b-fails" name="c-quick" ' ] || fail "JUnit order is '$junit'"
grep -q '"fail": 1' "$work/r.json" || fail "the JSON summary does not count one failure"

# SIGTERM to the parent reaches both workers; nothing is left behind
mkdir "$work/tmp"
TMPDIR=$work/tmp "$KTB" run -j 2 --artifacts "$work/artifacts" "$work/a-slow.yaml" \
	"$work/c-quick.yaml" "$work/b-fails.yaml" >"$out" 2>&1 &
pid=$!
wait_qemus 2 "$work/tmp" || fail "two VMs never ran at once"
stop_clean "$pid" "$work/tmp"
exit 0
