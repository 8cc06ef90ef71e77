# label: cli
# --shard K/N and ktb merge, nothing booted: every library scenario in
# exactly one shard for N = 1..6, run --list agrees with list, bad K/N is
# exit 2; a shard's run document says what it was cut from (selection,
# shard, run id); merge of hand-made run documents writes every report with
# the run's exit code, and refuses a file it cannot read (naming it, exit 2,
# one message, nothing written; the first input too) and a set of shards
# that is not one whole run: a shard missing, one twice, a shard of another
# selection, kernel or run.
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
scn() { # NAME STATUS [KERNEL]: one scenario's result document
	printf '{"name": "%s", "file": "scenarios/%s.yaml", "summary": null, "tags": [],
	"status": "%s", "message": null, "duration_ms": 1000, "started": "2026-12-04T10:00:01Z",
	"kernel": "%s", "accel": "tcg", "metrics": {}, "artifacts": null,
	"console_tail": null, "attempt": null, "missing_config": [],
	"steps": [{"name": "run: true", "status": "%s", "message": null, "start_ms": 10,
	"duration_ms": 5, "exit_code": 0, "stdout": null, "stderr": null, "data": null,
	"line": 3, "subtests": [{"name": "s.c", "status": "%s", "reason": null,
	"duration_ms": 1, "diag": null}]}]}' "$1" "$1" "$2" "${3:-6.1.0-57-amd64}" "$2" "$2"
}
doc() { # FILE START INTERRUPTED SCENARIO-JSON...
	local f=$1 start=$2 intr=$3
	shift 3
	printf '{"run_id": "r-%s", "started": "%s", "duration_ms": 5000, "summary": {},
	"interrupted": %s, "scenarios": [%s], "schema_version": 2}\n' \
		"${f##*/}" "$start" "$intr" "$(IFS=,; echo "$*")" >"$f"
}
doc "$work/a.json" 2026-12-04T10:00:00Z false "$(scn alpha pass)" "$(scn beta fail)"
doc "$work/b.json" 2026-12-04T10:00:10Z false "$(scn gamma pass)"
doc "$work/c.json" 2026-12-04T10:00:20Z false "$(scn delta pass)"
doc "$work/i.json" 2026-12-04T10:00:20Z true "$(scn eps skip)"
doc "$work/e.json" 2026-12-04T10:00:20Z false "$(scn zeta error)"

ktb_run merge "$work/a.json" "$work/b.json" --json "$work/m.json" --junit "$work/m.xml" \
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
ktb_run merge "$work/m.json" "$work/c.json" --json "$work/m2.json"
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
sed 's/"schema_version": 2/"schema_version": 1/' "$work/c.json" >"$work/v1.json"
printf '%s\n' "$(scn lone pass)" >"$work/result.json"
echo old >"$work/keep.xml"
for bad in broken v1 result missing; do
	ktb_run merge "$work/b.json" "$work/$bad.json" --json "$work/no.json" --junit "$work/keep.xml"
	expect_rc 2
	expect_out "ktb merge: $work/$bad.json: "
	[ ! -e "$work/no.json" ] || fail "merge of $bad.json wrote --json"
	[ "$(cat "$work/keep.xml")" = old ] || fail "merge of $bad.json replaced --junit"
done
ktb_run merge "$work/b.json" "$work/v1.json"
expect_out 'schema version 1; this ktb reads version 2'
ktb_run merge "$work/b.json" "$work/result.json"
expect_out "a scenario's result.json"
ktb_run merge "$work/a.json" "$work/a.json" --json "$work/no.json"
expect_rc 2
expect_out 'scenario alpha is in an earlier input too'
ktb_run merge
expect_rc 2
# a bad FIRST input: one message, exit 2 (no crash after it)
echo notjson >"$work/notjson.json"
for args in "$work/missing.json" "$work/notjson.json $work/b.json" "$work/result.json $work/b.json"; do
	# shellcheck disable=SC2086 # two paths in one word
	ktb_run merge $args
	expect_rc 2
	[ "$(wc -l <"$out")" -eq 1 ] || fail "merge $args: not one message"
	expect_out "^ktb merge: ${args%% *}: "
done

# --- the shards of one run ---
# a real shard's document: its shard, its selection, a run id derived from
# them (the same in every job), or --run-id's
ktb_run run --shard 2/2 -x own-kernel --json "$work/real.json" --artifacts "$work/artifacts" \
	"$work/only.yaml"
expect_rc 0
jq -e '.shard == {"k": 2, "n": 2} and .selection.scenarios == ["only"] and
	.selection.exclude_tags == ["own-kernel"] and (.selection.hash | test("^[0-9a-f]{64}$")) and
	(.run_id | test("^sel-[0-9a-f]{16}$")) and .schema_version == 2' "$work/real.json" >/dev/null ||
	fail "a shard's run document: $(jq -c '{run_id, shard, selection}' "$work/real.json")"
id=$(jq -r .run_id "$work/real.json")
ktb_run run --shard 2/2 -x own-kernel --json "$work/real2.json" --artifacts "$work/artifacts" \
	"$work/only.yaml"
[ "$(jq -r .run_id "$work/real2.json")" = "$id" ] || fail "two jobs of one selection derived two run ids"
ktb_run run --shard 2/2 --run-id ci-42 --json "$work/real3.json" --artifacts "$work/artifacts" \
	"$work/only.yaml"
[ "$(jq -r .run_id "$work/real3.json")" = ci-42 ] || fail "--run-id was not the run id"
ktb_run run --run-id ../up --list "$work/only.yaml"
expect_rc 2
expect_out 'ktb run: --run-id ../up: '
ktb_run merge "$work/real.json"
expect_rc 2
expect_out "^ktb merge: shard 1 of 2 of run $id is missing"

sel() { # HASH FIRST-SCENARIOS...: a selection of alpha..delta (or others)
	local h=$1
	shift
	printf '{"hash": "%s", "scenarios": [%s], "tags": [], "exclude_tags": ["own-kernel"],
	"names": [], "repeat": 1, "kernel": null, "recipe": null}' "$h" "$(printf '"%s",' "$@" | sed 's/,$//')"
}
h1=$(printf 'a%.0s' $(seq 64))
h2=$(printf 'b%.0s' $(seq 64))
shard() { # FILE K RUN-ID SELECTION SCENARIO-JSON
	printf '{"run_id": "%s", "started": "2026-12-04T10:00:0%sZ", "duration_ms": 5000,
	"summary": {}, "interrupted": false, "scenarios": [%s], "selection": %s,
	"shard": {"k": %s, "n": 4}, "schema_version": 2}\n' "$3" "$2" "$5" "$4" "$2" >"$1"
}
S=$(sel "$h1" alpha beta delta gamma)
shard "$work/s1.json" 1 ci-7 "$S" "$(scn alpha pass)"
shard "$work/s2.json" 2 ci-7 "$S" "$(scn beta pass)"
shard "$work/s3.json" 3 ci-7 "$S" "$(scn gamma pass)"
shard "$work/s4.json" 4 ci-7 "$S" "$(scn delta pass)"
shard "$work/x4.json" 4 ci-7 "$(sel "$h2" alpha beta epsilon gamma)" "$(scn epsilon pass)"
shard "$work/k4.json" 4 ci-7 "$S" "$(scn delta pass 6.1.0-47-amd64)"
shard "$work/r4.json" 4 ci-8 "$S" "$(scn delta pass)"
# all four, in any order: one whole run, in shard order, with the shards' id
ktb_run merge "$work/s4.json" "$work/s2.json" "$work/s1.json" "$work/s3.json" \
	--json "$work/whole.json" --junit "$work/whole.xml"
expect_rc 0
expect_out 'summary: 4 passed, 0 failed'
jq -e '.run_id == "ci-7" and .shard == null and .selection.hash == "'"$h1"'" and
	([.scenarios[].name] == ["alpha", "beta", "gamma", "delta"])' "$work/whole.json" >/dev/null ||
	fail "the merged shards: $(jq -c '{run_id, shard, selection, n: [.scenarios[].name]}' "$work/whole.json")"
ktb_run merge "$work/whole.json"
expect_rc 0
# a partial or mixed set: exit 2, one message naming what is wrong, nothing written
check_refused() { # PATTERN FILE...
	local pat=$1
	shift
	rm -f "$work/no.xml"
	ktb_run merge "$@" --junit "$work/no.xml" --kcidb "$work/no-kcidb.json"
	expect_rc 2
	[ "$(wc -l <"$out")" -eq 1 ] || fail "merge $*: not one message"
	expect_out "$pat"
	if [ -e "$work/no.xml" ] || [ -e "$work/no-kcidb.json" ]; then fail "merge $*: wrote a report"; fi
}
check_refused "^ktb merge: shard 4 of 4 of run ci-7 is missing \\(the inputs hold shards 1, 2, 3\\)" \
	"$work/s1.json" "$work/s2.json" "$work/s3.json"
check_refused "^ktb merge: shards 2, 4 of 4 of run ci-7 are missing" "$work/s1.json" "$work/s3.json"
check_refused "^ktb merge: $work/s2.json: shard 2 of 4 again \\($work/s2.json is that shard\\)" \
	"$work/s1.json" "$work/s2.json" "$work/s2.json" "$work/s3.json" "$work/s4.json"
check_refused "^ktb merge: $work/x4.json: shard 4 of 4 of another selection than $work/s1.json \\(scenario epsilon is in its selection, not in" \
	"$work/s1.json" "$work/s2.json" "$work/s3.json" "$work/x4.json"
check_refused "^ktb merge: $work/k4.json: shard 4 of 4 of another kernel \\(6.1.0-47-amd64\\) than $work/s1.json \\(6.1.0-57-amd64\\)" \
	"$work/s1.json" "$work/s2.json" "$work/s3.json" "$work/k4.json"
check_refused "^ktb merge: $work/r4.json: shard 4 of 4 of run ci-8, but $work/s1.json is of run ci-7" \
	"$work/s1.json" "$work/s2.json" "$work/s3.json" "$work/r4.json"
check_refused "^ktb merge: $work/b.json: a whole run \\(no --shard\\), but $work/s1.json is shard 1 of 4" \
	"$work/s1.json" "$work/s2.json" "$work/s3.json" "$work/s4.json" "$work/b.json"
# a report that cannot be written: 125, and no other report is written either
ktb_run merge "$work/b.json" --json "$work/no.json" --junit "$work/no-such-dir/j.xml"
expect_rc 125
expect_out "^ktb merge: cannot write --junit $work/no-such-dir/j.xml"
[ ! -e "$work/no.json" ] || fail "--json was written though --junit could not be"
ls "$work"/*.tmp-* >/dev/null 2>&1 && fail "a temporary report file was left behind"
exit 0
