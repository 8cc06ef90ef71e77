# label: vm
# jobs: 2
# --repeat: each scenario N times, a pass rate for each, and a scenario that
# neither always passes nor always fails is marked flaky (exit 1).
. "$(dirname "$0")/lib.sh"
cat >"$work/flaky.yaml" <<'YAML'
name: flaky
summary: fails on its second run only
machine: {cpus: 1, memory: 512M}
steps:
  - run: test "$KTB_ATTEMPT" != 2
YAML
cat >"$work/steady.yaml" <<'YAML'
name: steady
machine: {cpus: 1, memory: 512M}
steps:
  - run: "true"
YAML
ktb_run run -j 2 --repeat 3 --json "$work/r.json" --artifacts "$work/artifacts" \
	"$work/flaky.yaml" "$work/steady.yaml"
expect_rc 1
expect_out '^FAIL +flaky#2 '
expect_out '^pass rate: flaky 2/3 flaky$'
expect_out '^pass rate: steady 3/3$'
tr -d ' \n' <"$work/r.json" | grep -q '"flaky":{"runs":3,"pass":2,"rate":0.6[0-9]*,"flaky":true}' ||
	fail "the JSON pass rates do not mark flaky as flaky"
exit 0
