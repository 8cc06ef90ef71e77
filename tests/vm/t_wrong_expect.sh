# label: vm
# A scenario whose expectation is wrong fails with exit 1, naming the step;
# a command that runs out of time leaves its guest-side account.
. "$(dirname "$0")/lib.sh"
cat >"$work/wrong.yaml" <<'YAML'
name: wrong-expectation
summary: expects three CPUs on a two-CPU machine
machine: {cpus: 2, memory: 512M}
steps:
  - run: "true"
  - run: ktb-probe cpus
    expect:
      json: {online: 3}
YAML
ktb_run run --artifacts "$(artifacts)" "$work/wrong.yaml"
expect_rc 1
expect_out 'step 2'
expect_out 'online: expected 3, got 2'
expect_out '^summary: 0 passed, 1 failed'

# a guest command that runs out of its step's time leaves the guest's
# account of it (state, wait channel, kernel stack) in the artifacts
cat >"$work/stuck.yaml" <<'YAML'
name: stuck-command
summary: a step that runs out of time
machine: {cpus: 1, memory: 256M}
steps:
  - run: sh -c 'sleep 30; true'
    timeout: 3s
YAML
ktb_run run --artifacts "$work/art" "$work/stuck.yaml"
expect_rc 1
expect_out 'step did not finish within 3s'
stuck=$(find "$work/art" -name stuck-line-5.txt)
[ -n "$stuck" ] || fail "no stuck-line-5.txt in the artifacts"
grep -q '^== pid [0-9]*: sleep 30' "$stuck" || fail "the stuck command's child is not named"
grep -q '^wchan: hrtimer_nanosleep' "$stuck" || fail "no wait channel for the sleeping child"
grep -q '^== /proc/meminfo' "$stuck" || fail "no meminfo"

# a run step's metrics: a number is kept under its path's name; a field
# that is not a number fails the step, and no metric stands in for it
cat >"$work/metrics.yaml" <<'YAML'
name: metrics-from-output
summary: one metric that is there, one that is null
machine: {cpus: 1, memory: 256M}
steps:
  - run: echo '{"a":{"b":7}}'
    metrics: [a.b]
  - run: echo '{"c":null}'
    metrics: [c]
YAML
ktb_run run --artifacts "$work/art" "$work/metrics.yaml"
expect_rc 1
expect_out 'step 2 .*metrics: c is not a number in the output \(got null\)'
r=$(find "$work/art" -path '*/metrics-from-output/result.json' | head -1)
[ -n "$r" ] || fail "no result.json for metrics-from-output"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
sys.exit(0 if m.get("a_b") == 7 and "c" not in m else 1)' "$r" ||
	fail "metrics should hold a_b 7 and no c: $(grep -o '"metrics": {[^}]*}' "$r")"
