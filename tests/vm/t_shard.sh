# label: vm
# CI shards end to end: ktb run --shard 1/2 and 2/2 between them run the
# unsharded selection once, and ktb merge of their run documents gives the
# same JUnit verdicts as the unsharded run; each shard and the merge write a
# KCIDB document.
. "$(dirname "$0")/lib.sh"
for s in a-passes:true b-fails:false c-passes:true; do
	printf 'name: %s\nmachine: {cpus: 1, memory: 512M}\nsteps:\n  - run: "%s"\n' \
		"${s%%:*}" "${s#*:}" >"$work/${s%%:*}.yaml"
done
scenarios=("$work/a-passes.yaml" "$work/b-fails.yaml" "$work/c-passes.yaml")

# verdicts JUNIT: "name verdict" per testcase, sorted
verdicts() {
	awk '/<testcase /{ if (n != "") print n, v; match($0, /name="[^"]*"/);
		n = substr($0, RSTART + 6, RLENGTH - 7); v = "pass" }
	/<failure /{ v = "failure" } /<error /{ v = "error" } /<skipped/{ v = "skipped" }
	END { if (n != "") print n, v }' "$1" | sort
}

ktb_run run --junit "$work/all.xml" --artifacts "$work/artifacts" "${scenarios[@]}"
expect_rc 1
for k in 1 2; do
	ktb_run run --shard "$k/2" --json "$work/s$k.json" --kcidb "$work/k$k.json" \
		--artifacts "$work/artifacts" "${scenarios[@]}"
	[ "$rc" -le 1 ] || fail "shard $k/2 exited $rc"
	"$KTB" run --list --shard "$k/2" "${scenarios[@]}" | awk '{print $1}' >>"$work/union"
done
# each shard's own KCIDB document holds a test for each of its scenarios
for s in a-passes b-fails c-passes; do
	grep -q "\"path\": \"ktestbed.$s\"" "$work/k1.json" "$work/k2.json" ||
		fail "no shard's KCIDB document has $s"
done
[ "$(sort "$work/union" | tr '\n' ' ')" = "a-passes b-fails c-passes " ] ||
	fail "the shards ran $(tr '\n' ' ' <"$work/union")"
ktb_run merge "$work/s1.json" "$work/s2.json" --junit "$work/merged.xml" \
	--kcidb "$work/kcidb.json"
expect_rc 1
verdicts "$work/all.xml" >"$work/v-all"
verdicts "$work/merged.xml" >"$work/v-merged"
[ "$(wc -l <"$work/v-all")" -eq 3 ] || fail "the unsharded JUnit has $(wc -l <"$work/v-all") cases"
cmp -s "$work/v-all" "$work/v-merged" ||
	fail "merged verdicts differ: $(diff "$work/v-all" "$work/v-merged")"
grep -q '"path": "ktestbed.b-fails.run_false"' "$work/kcidb.json" ||
	fail "the KCIDB document lacks b-fails's step"
# KTB_KCIDB_KEEP=FILE keeps the document, to check it against the published schema
[ -z "${KTB_KCIDB_KEEP:-}" ] || cp "$work/kcidb.json" "$KTB_KCIDB_KEEP"
exit 0
