# label: cli
# ktb findings, nothing booted: hand-written run documents with findings
# (a WARNING failing in one run, failing again in a repeat attempt on
# another kernel and expected in a scenario that passed, an OOM kill
# tolerated) are grouped by signature, most frequent first, with verdict
# counts, runs, scenarios without #N and kernels; --failing keeps the
# failing ones; --json FILE and --json - write the groups; ktb merge keeps
# them; a run without findings says so (exit 0); bad input is exit 2 with
# one message naming the file, nothing printed or written.
. "$(dirname "$0")/lib.sh"

# finding KIND TITLE SIG VERDICT STEP: one finding's JSON
finding() {
	printf '{"kind": "%s", "title": "%s", "signature": "%s", "verdict": "%s",
	"reason": null, "step": %s, "console_line": 412, "panicked": false,
	"frames": [{"func": "nvme_setup_io_queues.cold", "off": "0x1a/0x2b", "module": "nvme",
	"reliable": true}], "text": "%s\\n"}' "$1" "$2" "$3" "$4" "$5" "$2"
}
# scenario NAME ATTEMPT KERNEL STATUS FINDINGS: one scenario's JSON
scenario() {
	printf '{"name": "%s", "file": "s.yaml", "summary": null, "tags": [], "status": "%s",
	"message": null, "duration_ms": 1000, "started": "2026-12-04T10:00:01Z", "kernel": "%s",
	"accel": "tcg", "metrics": {}, "artifacts": null, "console_tail": null, "attempt": %s,
	"missing_config": [], "steps": [{"name": "run: probe", "status": "%s", "message": null,
	"start_ms": 0, "duration_ms": 10, "exit_code": 0, "stdout": null, "stderr": null,
	"data": null, "line": 6, "subtests": []}], "findings": [%s], "findings_dropped": 0}' \
		"$1" "$4" "$3" "$2" "$4" "$5"
}
# rundoc FILE ID SCENARIOS: a run document
rundoc() {
	printf '{"run_id": "%s", "started": "2026-12-04T10:00:00Z", "duration_ms": 5000,
	"summary": {}, "interrupted": false, "schema_version": 2, "scenarios": [%s]}\n' \
		"$2" "$3" >"$1"
}
warn() { finding warning "WARNING in nvme_setup_io_queues" 3f2a9c "$1" 0; }
rundoc "$work/a.json" a "$(scenario disk-nvme null 6.1.0-57-amd64 fail \
	"$(warn fail), $(finding 'oom kill' 'OOM kill: stress' 77ab tolerated null)")"
rundoc "$work/b.json" b "$(scenario 'disk-nvme#2' 2 6.1.0-47-amd64 fail "$(warn fail)"),
	$(scenario smoke null 6.1.0-47-amd64 pass "$(warn expected)")"
rundoc "$work/none.json" c "$(scenario smoke null 6.1.0-57-amd64 pass "")"

split findings "$work/a.json" "$work/b.json"
expect_rc 0
[ ! -s "$se" ] || fail "ktb findings wrote to standard error: $(cat "$se")"
want="3x warning: WARNING in nvme_setup_io_queues
   signature: 3f2a9c
   verdicts: 2 fail, 1 expected
   runs: 2 of 2
   scenarios: disk-nvme, smoke
   kernels: 6.1.0-57-amd64, 6.1.0-47-amd64
1x oom kill: OOM kill: stress
   signature: 77ab
   verdicts: 1 tolerated
   runs: 1 of 2
   scenarios: disk-nvme
   kernels: 6.1.0-57-amd64
findings: 4 with 2 signatures in 2 runs"
[ "$(cat "$so")" = "$want" ] || fail "ktb findings: $(diff <(echo "$want") "$so")"

# --failing: the expected and tolerated ones go
ktb_run findings --failing "$work/a.json" "$work/b.json"
expect_rc 0
expect_out "^2x warning: WARNING in nvme_setup_io_queues$"
expect_out "^   scenarios: disk-nvme$"
expect_out "^failing findings: 2 with 1 signature in 2 runs$"
grep -q "oom kill" "$out" && fail "--failing listed the tolerated OOM kill"

# --json FILE, and --json - (the listing then on standard error)
ktb_run findings --json "$work/f.json" "$work/a.json" "$work/b.json"
expect_rc 0
expect_out "^findings: 4 with 2 signatures in 2 runs$"
jq -e '.runs == 2 and .findings == 4 and (.signatures | length) == 2 and
	.signatures[0].count == 3 and .signatures[0].verdicts == {"fail": 2, "expected": 1, "tolerated": 0} and
	.signatures[0].scenarios == ["disk-nvme", "smoke"] and
	.signatures[0].frames == ["nvme_setup_io_queues.cold+0x1a/0x2b [nvme]"] and
	.signatures[1].title == "OOM kill: stress"' "$work/f.json" >/dev/null ||
	fail "--json FILE: $(cat "$work/f.json")"
split findings --json - "$work/a.json"
expect_rc 0
# equal counts: by title
jq -e '.runs == 1 and [.signatures[].signature] == ["77ab", "3f2a9c"]' "$so" >/dev/null ||
	fail "--json -: standard output is not the groups: $(cat "$so")"
grep -q '^findings: 2 with 2 signatures in 1 run$' "$se" || fail "--json -: no listing on standard error"

# ktb merge keeps them: the merged document groups the same way
ktb_run merge "$work/a.json" "$work/b.json" --json "$work/m.json"
expect_rc 1
jq -e '[.scenarios[].findings | length] == [2, 1, 1] and
	.scenarios[0].findings[0].frames[0].module == "nvme"' "$work/m.json" >/dev/null ||
	fail "merge lost findings: $(cat "$work/m.json")"
ktb_run findings "$work/m.json"
expect_rc 0
expect_out "^3x warning: WARNING in nvme_setup_io_queues$"
expect_out "^findings: 4 with 2 signatures in 1 run$"

# none at all is a plain answer
ktb_run findings "$work/none.json"
expect_rc 0
[ "$(cat "$out")" = "no findings in 1 run" ] || fail "no findings: $(cat "$out")"

# bad input: exit 2, one message naming the file, nothing else
printf '{"run_id": ' >"$work/bad.json"
scenario one null k pass "" >"$work/result.json"
sed 's/"schema_version": 2/"schema_version": 1/' "$work/a.json" >"$work/old.json"
for bad in bad.json missing.json result.json old.json; do
	split findings --json "$work/g.json" "$work/a.json" "$work/$bad"
	expect_rc 2
	[ ! -s "$so" ] || fail "findings $bad: printed $(cat "$so")"
	[ "$(wc -l <"$se")" -eq 1 ] || fail "findings $bad: not one message: $(cat "$se")"
	grep -q "^ktb findings: $work/$bad: " "$se" || fail "findings $bad: the message does not name it"
	[ ! -e "$work/g.json" ] || fail "findings $bad: wrote --json"
done
expect_out "schema version 1"
ktb_run findings "$work/bad.json"
expect_out "not a JSON file"
ktb_run findings
expect_rc 2
expect_out "^ktb findings: give at least one run document"
ktb_run findings --json "$work/s.yaml" "$work/a.json"
expect_rc 2
expect_out "that names a scenario file"
exit 0
