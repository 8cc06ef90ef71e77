# label: cli
# One vocabulary for reports, nothing booted: run, merge and bisect take
# each report as OPTION FILE, with - for standard output (then standard
# output carries that report alone, the table and the summary going to
# standard error); the bare --tap of old and merge's --out are refused with
# what to write instead; a FILE that is an option, a scenario or a folder,
# and one FILE (or -) for two reports, are bad input before anything runs.
. "$(dirname "$0")/lib.sh"

printf 'name: only\nsteps:\n  - run: "true"\n' >"$work/only.yaml"
cp "$work/only.yaml" "$work/only.orig"

# the same report options in every command that writes reports
for cmd in run merge; do
	ktb_run help "$cmd"
	for opt in json junit tap html kcidb; do
		expect_out "^  --$opt FILE "
	done
done
ktb_run help bisect
expect_out "^  --json FILE "

# ktb run --tap FILE: an empty share writes its reports without a boot
split run --shard 2/2 --tap "$work/r.tap" --artifacts "$work/art" "$work/only.yaml"
expect_rc 0
[ "$(cat "$work/r.tap")" = "$(printf 'TAP version 13\n1..0')" ] || fail "--tap FILE: $(cat "$work/r.tap")"
grep -q '^summary: 0 passed' "$so" || fail "--tap FILE moved the summary off standard output"
# --tap -: standard output is the TAP and nothing else
split run --shard 2/2 --tap - --json "$work/r.json" --artifacts "$work/art" "$work/only.yaml"
expect_rc 0
[ "$(cat "$so")" = "$(printf 'TAP version 13\n1..0')" ] || fail "--tap -: standard output: $(cat "$so")"
grep -q '^summary: 0 passed' "$se" || fail "--tap -: no summary on standard error"
jq -e '.summary.total == 0' "$work/r.json" >/dev/null || fail "--tap - with --json FILE: $(cat "$work/r.json")"
split run --shard 2/2 --json - --artifacts "$work/art" "$work/only.yaml"
expect_rc 0
jq -e '.summary.total == 0' "$so" >/dev/null || fail "--json -: standard output is not the document"

# what was spelled differently: exit 2, saying what to write, nothing run
ktb_run run --list --tap
expect_rc 2
expect_out "^ktb run: option '--tap' requires an argument"
expect_out "^ktb run: --tap takes a file now: --tap FILE, or --tap - for TAP on standard output"
ktb_run run --tap "$work/only.yaml"
expect_rc 2
expect_out "^ktb run: --tap $work/only.yaml: that names a scenario file"
cmp -s "$work/only.yaml" "$work/only.orig" || fail "--tap SCENARIO changed the scenario"
ktb_run run --tap -j 2 "$work/only.yaml"
expect_rc 2
expect_out "^ktb run: --tap -j: a file name cannot start with '-'"
ktb_run run --json - --tap - "$work/only.yaml"
expect_rc 2
expect_out "^ktb run: --tap -: --json writes standard output already"
ktb_run run --json "$work/x.json" --junit "$work/x.json" "$work/only.yaml"
expect_rc 2
expect_out "^ktb run: --junit $work/x.json: --json writes that file already"
ktb_run run --html "$work" "$work/only.yaml"
expect_rc 2
expect_out "^ktb run: --html $work: that is a folder"

# ktb merge: --json FILE is the merged run document; --out is no more
doc() { # FILE: a run document of one passed scenario
	printf '{"run_id": "r", "started": "2026-12-04T10:00:00Z", "duration_ms": 5000,
	"summary": {}, "interrupted": false, "schema_version": 2, "scenarios": [{"name": "one",
	"file": "one.yaml", "summary": null, "tags": [], "status": "pass", "message": null,
	"duration_ms": 1000, "started": "2026-12-04T10:00:01Z", "kernel": "k", "accel": "tcg",
	"metrics": {}, "artifacts": null, "console_tail": null, "attempt": null,
	"missing_config": [], "steps": []}]}\n' >"$1"
}
doc "$work/one.json"
ktb_run merge "$work/one.json" --out "$work/m.json"
expect_rc 2
expect_out "^ktb merge: --out is now --json FILE"
[ ! -e "$work/m.json" ] || fail "merge --out wrote a file"
ktb_run merge "$work/one.json" --json "$work/m.json"
expect_rc 0
jq -e '.scenarios[0].name == "one"' "$work/m.json" >/dev/null || fail "merge --json FILE"
split merge "$work/one.json" --tap -
expect_rc 0
grep -q '^ok 1 - one' "$so" || fail "merge --tap -: standard output: $(cat "$so")"
grep -q '^summary' "$so" && fail "merge --tap -: the summary is on standard output"
grep -q '^summary: 1 passed' "$se" || fail "merge --tap -: no summary on standard error"

# ktb bisect checks its --json FILE the same way, before anything builds
ktb_run bisect --kernels 6.1.0-47,6.1.0-57 --json "$work/only.yaml" "$work/only.yaml"
expect_rc 2
expect_out "^ktb bisect: --json $work/only.yaml: that names a scenario file"
exit 0
