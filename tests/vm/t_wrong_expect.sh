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
