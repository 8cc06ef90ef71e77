# label: vm
# The kselftest scenario fails, and says where, when what it runs is broken:
# its file with one thing changed (scenario, sed expression, what the
# failure must say). The runner itself exits 0 whatever its tests say, so
# these show that the scenario reads the tests' verdicts, not the runner's.
. "$(dirname "$0")/lib.sh"
T=$'\t'

# RLIMIT_MSGQUEUE 0: mq_open fails, mqueue-lat says "not ok 3"; a test the
# runner does not know: it prints no plan and runs nothing
mutations <<EOF_TABLE
kselftest-timers${T}s|^      /usr/lib/kselftest/run_kselftest.sh|      ulimit -q 0; /usr/lib/kselftest/run_kselftest.sh|${T}step 1 .*exit: expected 0, got 1
kselftest-timers${T}s/-t timers:mqueue-lat/-t timers:mqueue-latency/${T}step 1 .*stdout did not match
EOF_TABLE
exit 0
