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

# tests/fixtures/scenarios: every error a file holds, and the hints
fx=$KTB_SRC/tests/fixtures/scenarios
# bad FILE PATTERN...: ktb list FILE exits 2 and prints each PATTERN
bad() {
	local f=$fx/$1 p
	shift
	ktb_run list "$f"
	expect_rc 2
	for p in "$@"; do
		expect_out "^ktb: $f:$p"
	done
}
bad many-errors.yaml '4:3: machine: unknown key "memroy"' \
	'5:11: machine.sleep: "s5" is not one of s3, s4' \
	'8:5: steps\[0\]: unknown key "expcet"' '9:5: steps\[1\]: unknown key "wiat"'
[ "$(grep -c '^ktb: ' "$out")" -eq 4 ] || fail "many-errors.yaml: expected 4 errors"
bad many-steps.yaml '3:11: steps\[0\].wait: "bad1" is not a duration' \
	'22:11: steps\[19\].wait: "bad20"' ' and 5 more errors \(the first 20 are shown\)$'
grep -q 'bad21' "$out" && fail "many-steps.yaml: more than 20 errors shown"
bad s3-undeclared.yaml '5:14: steps\[0\].suspend: s3 needs firmware that offers it, .*give the machine sleep: \[s3\]'
bad tab.yaml '3:1: YAML syntax error: .*line 3 holds a tab: YAML indents with spaces only'
bad colon.yaml '3:16: YAML syntax error: .*quote the value: run: "echo a: b" \(the parse stops here'
bad top-list.yaml '2:1: expected a mapping, got a list; .*write steps: on a line above it'
bad fraction.yaml '3:11: machine.memory: "1.5G" is not a size: .*write 1536M'
bad known-before-boot.yaml '6:11: steps\[0\].wait: 60s of pause does not fit in the step.s timeout' \
	'9:27: steps\[1\].expect.json.size_bytes: "gte" is not an operator; did you mean ge:\?' \
	'10:19: steps\[2\].restore_path: no earlier fail_path took path 1 of mp away' \
	'11:10: steps\[3\].qmp: quit ends QEMU'
# every bad file of a run is named, not only the first
F=$KTB_SRC/tests/fixtures/scenarios
ktb_run list "$F/tab.yaml" "$KTB_SRC/scenarios/smoke.yaml" "$F/top-list.yaml"
expect_rc 2
expect_out 'tab.yaml:3:1: '
expect_out 'top-list.yaml:2:1: '
ktb_run list "$KTB_SRC/scenarios"
expect_rc 0
expect_out '^smoke '
pgrep -f "$work" >/dev/null && fail "a process was started for a bad scenario"
exit 0
