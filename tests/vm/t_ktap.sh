# label: vm
# The ktap step in a real guest: kselftest-style TAP and nested KTAP from a
# command, and KTAP the kernel logged (written to /dev/kmsg at KERN_INFO, as
# KUnit prints it, so the console at loglevel=5 does not show it; read back
# from the kernel log with its timestamps). Each passes; a failing case
# fails the step naming it (exit 1), so does a document where no test ran
# (1..0, a kernel log without KTAP); every test skipped is a skip (exit
# 125) naming the reasons; malformed KTAP is an error naming the line;
# every case is a subtest in result.json and in JUnit.
. "$(dirname "$0")/lib.sh"
cat >"$work/ktap-guest.yaml" <<'YAML'
name: ktap-guest
summary: KTAP from guest commands and from the kernel log
machine: {cpus: 1, memory: 256M}
steps:
  - name: kselftest TAP with a skip
    ktap: 'printf "TAP version 13\n1..2\nok 1 first\nok 2 # SKIP not here\n"'
  - name: nested KTAP
    ktap: {run: 'printf "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: suite\n    1..2\n    ok 1 a\n    ok 2 b\nok 1 suite\n"'}
  - name: KTAP into the kernel log
    run: |
      for l in 'KTAP version 1' '1..1' '    # Subtest: kmsg' '    1..1' '    ok 1 case' 'ok 1 kmsg'; do echo "<6>$l" > /dev/kmsg; done
  - ktap: {console: true}
YAML
ktb_run run --artifacts "$(artifacts)" --junit "$work/junit.xml" "$work/ktap-guest.yaml"
cat "$out"
expect_rc 0
res=$(result_of ktap-guest)
names=$(jq -r '[.steps[].subtests[]? | "\(.name)=\(.status)"] | join(" ")' "$res")
[ "$names" = "first=pass 2=skip suite=pass suite.a=pass suite.b=pass kmsg=pass kmsg.case=pass" ] ||
	fail "subtests in result.json: $names"
grep -q '<testcase classname="ktb.ktap-guest" name="suite.b"' "$work/junit.xml" ||
	fail "no JUnit test case for suite.b"
grep -q '<skipped message="not here"/>' "$work/junit.xml" || fail "no JUnit skip for test 2"

# a failing case fails the step, naming it: from a command and from the kernel log
sed -e 's/^name: ktap-guest/name: ktap-fail/' -e 's/    ok 2 b/    not ok 2 b/' -e 's/nok 1 suite/nnot ok 1 suite/' \
	"$work/ktap-guest.yaml" >"$work/fail.yaml"
must_fail "$work/fail.yaml" "1 of 1 tests failed: suite.b"
expect_out "step 2 fail: nested KTAP"
expect_out "^ +fail suite.b$"
sed -e 's/^name: ktap-guest/name: ktap-kmsg-fail/' -e "s/'    ok 1 case' 'ok 1 kmsg'/'    not ok 1 case' 'not ok 1 kmsg'/" \
	"$work/ktap-guest.yaml" >"$work/kmsg.yaml"
must_fail "$work/kmsg.yaml" "1 of 1 tests failed: kmsg.case"

# no test ran: a plan of 1..0 from a command, and a kernel log without any
# KTAP (the Debian kernel has no KUnit), each a failure, not a pass
cat >"$work/ktap-none.yaml" <<'YAML'
name: ktap-none
machine: {cpus: 1, memory: 256M}
steps:
  - ktap: 'printf "KTAP version 1\n1..0\n"'
YAML
cat >"$work/ktap-no-kunit.yaml" <<'YAML'
name: ktap-no-kunit
machine: {cpus: 1, memory: 256M}
steps:
  - ktap: {console: true}
YAML
must_fail "$work/ktap-none.yaml" "step 1 .*: no test ran: the KTAP plan is 1..0"
must_fail "$work/ktap-no-kunit.yaml" "step 1 .*: no test ran: the kernel log since boot holds no KTAP"

# every test skipped: the scenario is a skip naming each with its reason,
# the step after it still runs, and the run exits 125 (nothing was tested)
cat >"$work/ktap-skipped.yaml" <<'YAML'
name: ktap-skipped
machine: {cpus: 1, memory: 256M}
steps:
  - ktap: 'printf "KTAP version 1\n1..1\n    # Subtest: suite\n    1..2\n    ok 1 a # SKIP no device\n    ok 2 b # SKIP needs root\nok 1 suite # SKIP\n"'
  - run: "true"
YAML
# (once more when a loaded machine failed it otherwise: a stall at boot)
for try in 1 2; do
	ktb_run run --artifacts "$(artifacts)" "$work/ktap-skipped.yaml"
	[ "$rc" -eq 1 ] && [ "$try" -eq 1 ] && sed 's/^/  | /' "$out" >&2 && continue
	break
done
cat "$out"
expect_rc 125
expect_out "^SKIP +ktap-skipped .*all 2 tests skipped: suite.a \(no device\), suite.b \(needs root\)"
res=$(result_of ktap-skipped)
[ "$(jq -r '[.status] + [.steps[].status] | join(" ")' "$res")" = "skip pass skip pass" ] ||
	fail "statuses in result.json: $(jq -c '[.status] + [.steps[].status]' "$res")"

# malformed: the plan promises a test that never comes; an error, exit 125
sed -e 's/^name: ktap-guest/name: ktap-malformed/' -e 's/1..2\\nok 1 first/1..3\\nok 1 first/' \
	"$work/ktap-guest.yaml" >"$work/bad.yaml"
ktb_run run --artifacts "$(artifacts)" "$work/bad.yaml"
expect_rc 125
expect_out "malformed KTAP, line 4: the output ended after 2 of the 3 planned tests"
exit 0
