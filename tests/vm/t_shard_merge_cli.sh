# label: cli
# --shard K/N and ktb merge, nothing booted: every library scenario in
# exactly one shard for N = 1..6, run --list agrees with list, bad K/N is
# exit 2; merge of hand-made run documents writes every report with the
# run's exit code, and refuses a file it cannot read (naming it, exit 2,
# nothing written).
. "$(dirname "$0")/lib.sh"

"$KTB" list | awk '{print $1}' | sort >"$work/all" || fail "ktb list failed"
[ -s "$work/all" ] || fail "ktb list printed nothing"
for n in 1 2 3 4 5 6; do
	: >"$work/union"
	for k in $(seq 1 "$n"); do
		ktb_run list --shard "$k/$n"
		expect_rc 0
		awk '{print $1}' "$out" >>"$work/union"
		ktb_run run --list --shard "$k/$n"
		expect_rc 0
		[ "$(awk '{print $1}' "$out")" = "$(tail -n "$(wc -l <"$out")" "$work/union")" ] ||
			fail "run --list --shard $k/$n differs from list --shard $k/$n"
	done
	sort "$work/union" | cmp -s - "$work/all" || fail "the shards of $n are not the library once"
done
# balanced: with as many scenarios as the library, 3 shards differ by a few
counts=$(for k in 1 2 3; do "$KTB" list --shard "$k/3" | wc -l; done | sort -n | tr '\n' ' ')
read -r fewest _ most <<<"$counts"
[ $((most - fewest)) -le 3 ] || fail "shard sizes $counts are not balanced"

for bad in 3/2 0/2 1/0 x/y 1/2/3 ""; do
	for cmd in list run; do
		ktb_run "$cmd" --shard "$bad"
		expect_rc 2
		expect_out "ktb $cmd: --shard $bad: "
	done
done

# a share with nothing in it passes and writes empty reports, without a boot
printf 'name: only\nsteps:\n  - run: "true"\n' >"$work/only.yaml"
ktb_run run --shard 2/2 --json "$work/empty.json" --kcidb "$work/empty-kcidb.json" \
	--artifacts "$work/artifacts" "$work/only.yaml"
expect_rc 0
grep -q '"total": 0' "$work/empty.json" || fail "the empty share's JSON does not say total 0"
grep -q '"tests": \[\]' "$work/empty-kcidb.json" || fail "the empty share's KCIDB has tests"

# --- ktb merge ---
scn() { # NAME STATUS: one scenario's result document
	printf '{"name": "%s", "file": "scenarios/%s.yaml", "summary": null, "tags": [],
	"status": "%s", "message": null, "duration_ms": 1000, "started": "2026-12-04T10:00:01Z",
	"kernel": "6.1.0-57-amd64", "accel": "tcg", "metrics": {}, "artifacts": null,
	"console_tail": null, "attempt": null, "missing_config": [],
	"steps": [{"name": "run: true", "status": "%s", "message": null, "start_ms": 10,
	"duration_ms": 5, "exit_code": 0, "stdout": null, "stderr": null, "data": null,
	"line": 3, "subtests": [{"name": "s.c", "status": "%s", "reason": null,
	"duration_ms": 1, "diag": null}]}]}' "$1" "$1" "$2" "$2" "$2"
}
doc() { # FILE START INTERRUPTED SCENARIO-JSON...
	local f=$1 start=$2 intr=$3
	shift 3
	printf '{"run_id": "r-%s", "started": "%s", "duration_ms": 5000, "summary": {},
	"interrupted": %s, "scenarios": [%s], "schema_version": 1}\n' \
		"${f##*/}" "$start" "$intr" "$(IFS=,; echo "$*")" >"$f"
}
doc "$work/a.json" 2026-12-04T10:00:00Z false "$(scn alpha pass)" "$(scn beta fail)"
doc "$work/b.json" 2026-12-04T10:00:10Z false "$(scn gamma pass)"
doc "$work/c.json" 2026-12-04T10:00:20Z false "$(scn delta pass)"
doc "$work/i.json" 2026-12-04T10:00:20Z true "$(scn eps skip)"
doc "$work/e.json" 2026-12-04T10:00:20Z false "$(scn zeta error)"

ktb_run merge "$work/a.json" "$work/b.json" --out "$work/m.json" --junit "$work/m.xml" \
	--tap "$work/m.tap" --html "$work/m.html" --kcidb "$work/m-kcidb.json"
expect_rc 1
expect_out 'summary: 2 passed, 1 failed'
grep -q '"total": 3' "$work/m.json" || fail "merged JSON does not hold 3 scenarios"
grep -q '"started": "2026-12-04T10:00:00Z"' "$work/m.json" || fail "merged start is not the first"
grep -q '"duration_ms": 15000' "$work/m.json" || fail "merged span is not 10:00:00 to 10:00:15"
[ "$(grep -o '<testcase [^>]*name="[a-z]*"' "$work/m.xml" | grep -oE 'name="[a-z]+"' |
	tr '\n' ' ')" = 'name="alpha" name="beta" name="gamma" ' ] || fail "JUnit order is wrong"
grep -q '^1\.\.3$' "$work/m.tap" || fail "TAP plan is not 1..3"
grep -q '<html' "$work/m.html" || fail "no HTML page"
grep -q '"path": "ktestbed.beta.run_true.s.c"' "$work/m-kcidb.json" ||
	fail "KCIDB has no subtest path below beta's step"
grep -q '"status": "FAIL"' "$work/m-kcidb.json" || fail "KCIDB has no FAIL"
# the merged run's document merges again
ktb_run merge "$work/m.json" "$work/c.json" --out "$work/m2.json"
expect_rc 1
grep -q '"total": 4' "$work/m2.json" || fail "a merged document does not merge again"
ktb_run merge "$work/b.json" "$work/c.json"
expect_rc 0
ktb_run merge "$work/b.json" "$work/e.json"
expect_rc 125
ktb_run merge "$work/b.json" "$work/i.json"
expect_rc 130

# bad inputs: exit 2, the file named, nothing written and nothing replaced
echo '{"scenarios": ' >"$work/broken.json"
sed 's/"schema_version": 1/"schema_version": 2/' "$work/c.json" >"$work/v2.json"
printf '%s\n' "$(scn lone pass)" >"$work/result.json"
echo old >"$work/keep.xml"
for bad in broken v2 result missing; do
	ktb_run merge "$work/b.json" "$work/$bad.json" --out "$work/no.json" --junit "$work/keep.xml"
	expect_rc 2
	expect_out "ktb merge: $work/$bad.json: "
	[ ! -e "$work/no.json" ] || fail "merge of $bad.json wrote --out"
	[ "$(cat "$work/keep.xml")" = old ] || fail "merge of $bad.json replaced --junit"
done
ktb_run merge "$work/b.json" "$work/v2.json"
expect_out 'schema version 2'
ktb_run merge "$work/b.json" "$work/result.json"
expect_out "a scenario's result.json"
ktb_run merge "$work/a.json" "$work/a.json" --out "$work/no.json"
expect_rc 2
expect_out 'scenario alpha is in an earlier input too'
ktb_run merge
expect_rc 2
# a report that cannot be written: 125, and no other report is written either
ktb_run merge "$work/b.json" --out "$work/no.json" --junit "$work/no-such-dir/j.xml"
expect_rc 125
expect_out "cannot write $work/no-such-dir/j.xml"
[ ! -e "$work/no.json" ] || fail "--out was written though --junit could not be"
ls "$work"/*.tmp-* >/dev/null 2>&1 && fail "a temporary report file was left behind"
exit 0
