# label: vm
# A scenario whose expectation is wrong fails with exit 1, naming the step.
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
