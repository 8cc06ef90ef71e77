# label: cli
# Bad scenario files exit 2 naming file, line and field; nothing is started.
. "$(dirname "$0")/lib.sh"
printf 'name: bad\nsummary: x\nmachine:\n  cpus: 1\n  memroy: 512M\nsteps:\n  - run: "true"\n' >"$work/bad.yaml"
ktb_run run "$work/bad.yaml"
expect_rc 2
expect_out "bad.yaml:5:[0-9]+: .*memroy"
printf 'name: bad2\nsteps:\n  - run: "true"\n    wait: 1s\n' >"$work/bad2.yaml"
ktb_run run "$work/bad2.yaml"
expect_rc 2
expect_out "bad2.yaml:3:"
printf 'name: bad3\nmachine:\n  disks:\n    - {id: d, bus: sata, size: 64M, sector: 4kn}\nsteps:\n  - run: "true"\n' >"$work/bad3.yaml"
ktb_run run "$work/bad3.yaml"
expect_rc 2
expect_out "bad3.yaml:4:.*sector"
ktb_run run "$work/missing.yaml"
expect_rc 2
ktb_run list "$KTB_SRC/scenarios"
expect_rc 0
expect_out '^smoke '
pgrep -f "$work" >/dev/null && fail "a process was started for a bad scenario"
exit 0
