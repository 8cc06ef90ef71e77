# label: own-kernel
# jobs: 2
# The kernel's own reports, provoked on the debug kernel (tinyconfig, the
# minimal base for the report scenario's machine and its options: symbols,
# DWARF, LKDTM, KASAN, KFENCE, UBSAN, lockdep, the hung-task and
# soft-lockup detectors; built once and cached as a tree): each provoked report is one
# finding of the right kind and title, expected by the step that provoked
# it, with the same signature in two runs; its stack is decoded against the
# tree's vmlinux to the source line that raised it; and the same report
# unexpected fails the scenario, naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/minimal_kernel.sh"
reports=$KTB_SRC/tests/vm/reports

tree=$(debug_kernel "$KTB" "$reports") || fail "could not build the debug kernel"
echo "debug kernel: $tree (built in $(cat "$tree/../build_s") s)"

# 1. every report expected, twice (two VMs at once)
ktb_run run -j 2 --repeat 2 --dump never --artifacts "$(artifacts)" --json "$work/run.json" \
	--kernel "$tree" "$reports/reports.yaml"
expect_rc 0
# kind and title of each provoked report, in step order (the last step's
# spinning CPU gives two: the soft lockup, then RCU's stall)
want='lockdep|lockdep: lock held when returning to user space
hung task|INFO: task hung in direct_entry
warning|WARNING in lkdtm_WARNING
ubsan|UBSAN: array-index-out-of-bounds in lkdtm_ARRAY_BOUNDS
kasan|KASAN: use-after-free Read in lkdtm_READ_AFTER_FREE
kfence|KFENCE: use-after-free read in lkdtm_READ_AFTER_FREE
oops|kernel BUG in lkdtm_BUG
oops|BUG: kernel NULL pointer dereference in lkdtm_EXCEPTION
soft lockup|BUG: soft lockup in lkdtm_SOFTLOCKUP
rcu stall|INFO: rcu detected stall in lkdtm_SOFTLOCKUP'
for a in 0 1; do
	while IFS='|' read -r kind title; do
		n=$(jq --arg k "$kind" --arg t "$title" --argjson a "$a" \
			'[.scenarios[$a].findings[] | select(.kind == $k and .title == $t and .verdict == "expected")] | length' \
			"$work/run.json")
		[ "$n" -ge 1 ] || fail "run $((a + 1)): no expected $kind finding titled '$title'; the findings: $(jq -c --argjson a "$a" '[.scenarios[$a].findings[] | [.kind, .title, .verdict]]' "$work/run.json")"
	done <<<"$want"
	# nothing else failed: every finding expected or tolerated
	bad=$(jq --argjson a "$a" '[.scenarios[$a].findings[] | select(.verdict == "fail")] | length' "$work/run.json")
	[ "$bad" -eq 0 ] || fail "run $((a + 1)) has findings that fail: $(jq -c --argjson a "$a" '[.scenarios[$a].findings[] | select(.verdict == "fail") | .title]' "$work/run.json")"
done
# the same report in the two runs: the same signature
while IFS='|' read -r kind title; do
	sigs=$(jq -r --arg t "$title" '[.scenarios[].findings[] | select(.title == $t) | .signature] | unique | .[]' "$work/run.json")
	[ "$(echo "$sigs" | wc -l)" -eq 1 ] || fail "'$title' has more than one signature over the two runs: $sigs"
done <<<"$want"

# 2. the WARNING's stack in file:line: its first decoded frame is
# lkdtm_WARNING in drivers/misc/lkdtm/bugs.c, at the line with the WARN_ON
loc=$(jq -r '[.scenarios[0].findings[] | select(.title == "WARNING in lkdtm_WARNING")][0].frames[]
	| select(.func == "lkdtm_WARNING") | .locs[-1] | "\(.file):\(.line)"' "$work/run.json" | head -1)
case $loc in
*drivers/misc/lkdtm/bugs.c:[0-9]*) ;;
*) fail "the WARNING's lkdtm_WARNING frame is not decoded to drivers/misc/lkdtm/bugs.c (got '$loc'; undecoded: $(jq -r '[.scenarios[0].findings[] | select(.kind == "warning")][0].undecoded' "$work/run.json"))" ;;
esac
line=${loc##*:}
src=$(sed -n "${line}p" "$tree/drivers/misc/lkdtm/bugs.c")
echo "$src" | grep -q 'WARN_ON' || fail "bugs.c:$line is not the WARN_ON: '$src'"

# 3. the same WARNING, not expected: the scenario fails, naming it
cat >"$work/unexpected.yaml" <<'YAML'
name: unexpected-warning
machine: {cpus: 1, memory: 512M, sleep: [s3]}
steps:
  - run: echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT
YAML
ktb_run run --dump never --artifacts "$(artifacts)" --kernel "$tree" "$work/unexpected.yaml"
expect_rc 1
# (a scenario that expects no report ends at the report's first line)
expect_out 'step 1 \(run: echo WARNING .*\): kernel warning on the console: .*lkdtm_WARNING'
expect_out 'finding: warning: WARNING in lkdtm_WARNING \(step 1, console line [0-9]+\) \[fail\]'
exit 0
