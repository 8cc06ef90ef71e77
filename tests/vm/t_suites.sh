# label: vm
# The junit and blktests steps on small suites written for the purpose (the
# real fstests and blktests cannot be fetched in CI): a suite whose checks
# hold passes with every test a subtest in result.json; each way a suite's
# results can be bad is seen and named: a test that fails, no test at all
# (a failure: nothing was checked), every test skipped (a skip, with the
# reasons, blktests' taken from check's own output), a command that fails
# though its results are clean, results that are not there.
. "$(dirname "$0")/lib.sh"

# scenario NAME JUNIT_TESTS BLKTESTS_TESTS [JUNIT_EXIT]: the suites' tests
# as "name:command" words, '+' for a space in the command; a command that
# fails is a failed test; "name:SKIP=reason" a test that skips itself (as a
# test of either suite that finds no device it needs), the reason said.
scenario() {
	cat >"$work/$1.yaml" <<YAML
name: $1
timeout: 60s
steps:
  - name: a JUnit suite
    junit: |
      mkdir -p /tmp/ju && cd /tmp/ju
      { echo '<?xml version="1.0"?>'; echo '<testsuite name="mini">'
        for t in $2; do n=\${t%%:*}; c=\$(echo "\${t#*:}" | tr + ' ')
          case \$c in SKIP=*) out=\${c#SKIP=}; rc=77 ;; *) out=\$(sh -c "\$c" 2>&1); rc=\$? ;; esac
          if [ \$rc = 77 ]; then echo "<testcase name=\"\$n\"><skipped message=\"\$out\"/></testcase>"
          elif [ \$rc != 0 ]; then echo "<testcase name=\"\$n\"><failure message=\"exit \$rc\">\$out</failure></testcase>"
          else echo "<testcase name=\"\$n\" time=\"0.01\"/>"; fi
        done; echo '</testsuite>'; } > result.xml
      exit ${4:-0}
    file: result.xml
  - name: a blktests-like suite
    blktests: |
      rm -rf /tmp/bt && mkdir -p /tmp/bt && cd /tmp/bt
      for t in $3; do n=\${t%%:*}; c=\$(echo "\${t#*:}" | tr + ' '); mkdir -p results/nodev/\${n%/*}
        case \$c in SKIP=*) out=\${c#SKIP=}; rc=77 ;; *) out=\$(sh -c "\$c" 2>&1); rc=\$? ;; esac
        if [ \$rc = 77 ]; then s="not run"; printf '%s [not run]\n    %s\n' "\$n" "\$out"
        elif [ \$rc != 0 ]; then s=fail; else s=pass; fi
        printf 'status\t%s\nruntime\t0.020s\nexit_status\t%s\n' "\$s" "\$rc" > results/nodev/\$n
      done
YAML
}

ok_ju='io/4k:dd+if=/dev/zero+of=/tmp/f+bs=4096+count=4 proc/cpus:test+-r+/proc/cpuinfo'
ok_bt='block/001:test+-d+/sys/block block/002:true'
scenario suites-ok "$ok_ju" "$ok_bt"
ktb_run run --artifacts "$(artifacts)" --json "$work/r.json" "$work/suites-ok.yaml"
expect_rc 0
python3 - "$work/r.json" <<'PY' || fail "the subtests are not what the suites ran"
import json, sys
steps = json.load(open(sys.argv[1]))["scenarios"][0]["steps"]
got = [[(t["name"], t["status"]) for t in s["subtests"]] for s in steps[1:]]
want = [[("io/4k", "pass"), ("proc/cpus", "pass")], [("block/001", "pass"), ("block/002", "pass")]]
assert got == want, got
assert steps[2]["subtests"][0]["duration_ms"] == 20, steps[2]["subtests"][0]
PY

# the mutants, in one run
scenario suites-ju-fail "$ok_ju io/missing:test\+-e\+/ktb-nowhere" "$ok_bt"
scenario suites-ju-none "" "$ok_bt"
scenario suites-ju-exit "$ok_ju" "$ok_bt" 3
scenario suites-bt-fail "$ok_ju" "$ok_bt block/003:false"
scenario suites-bt-none "$ok_ju" ""
scenario suites-bt-skip "$ok_ju" 'nvme/001:SKIP=no+nvme+disk'
scenario suites-ju-skip 'a/1:SKIP=needs+xfs' "$ok_bt"
ktb_run run -j 2 --artifacts "$(artifacts)" "$work"/suites-{ju,bt}-*.yaml
# each account: the scenario's line, then the failing step's message
failed() {
	expect_out "^FAIL +$1 "
	expect_out "^ +step $2 \\(a [a-zA-Z-]+ suite, line [0-9]+\\): $3\$"
}
failed suites-ju-fail 1 '1 of 3 tests failed: io/missing'
failed suites-ju-none 1 'no test ran: the JUnit XML holds no <testcase>'
failed suites-ju-exit 1 'the command exited 3, yet its results show no failure'
failed suites-bt-fail 2 '1 of 3 tests failed: block/003'
failed suites-bt-none 2 "no test ran: no results in results: .*can't cd to results.*"
expect_out '^SKIP +suites-bt-skip .*step 2 .*all 1 tests skipped: nvme/001 \(no nvme disk\)'
expect_out '^SKIP +suites-ju-skip .*step 1 .*all 1 tests skipped: a/1 \(needs xfs\)'
exit 0
