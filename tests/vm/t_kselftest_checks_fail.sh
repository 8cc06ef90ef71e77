# label: vm
# jobs: 2
# The kselftest scenario fails, and says where, when what it runs is broken:
# its file with one thing changed (scenario, sed expression, what the
# failure must say). The runner itself exits 0 whatever its tests say, so
# these show that the scenario reads the tests' verdicts, not the runner's.
# And a kernel without what the tests need skips the scenario by name.
. "$(dirname "$0")/lib.sh"
T=$'\t'

# RLIMIT_MSGQUEUE 0: mq_open fails, mqueue-lat says "not ok 3", and the
# step names it; RLIMIT_FSIZE 0: soft-dirty's file case cannot size its
# file (SIGXFSZ ends it, "not ok 2 ... # exit=153"), and the step names it
mutations <<EOF_TABLE
kselftest-timers${T}s|ktap: /usr/lib/kselftest/run_kselftest.sh|ktap: ulimit -q 0; /usr/lib/kselftest/run_kselftest.sh|${T}step 1 .*1 of 3 tests failed: selftests: timers: mqueue-lat$
kselftest-vm${T}s|ktap: /usr/lib/kselftest/run_kselftest.sh|ktap: ulimit -f 0; /usr/lib/kselftest/run_kselftest.sh|${T}step 1 .*1 of 2 tests failed: selftests: vm: soft-dirty$
EOF_TABLE

# kunit-boot's ktap step judges the kernel log since boot (dmesg). The
# image's Debian kernel has no KUnit, so the mutant drops kernel.requires
# (it would skip) and a step writes a failing KTAP document to /dev/kmsg
# as a suite built in would print one: the step must fail naming the case.
mutations <<EOF_TABLE
kunit-boot${T}/^kernel:\$/,/^  requires:/d; /^steps:\$/a\  - run: for l in "KTAP version 1" "1..1" "not ok 1 ktb-injected"; do echo "\$l" > /dev/kmsg; done${T}step 2 .*1 of 1 tests failed:.*ktb-injected
EOF_TABLE

# what the runner prints when it ran no test, and when every test skipped
# (a kselftest that exits 4, KSFT_SKIP): neither is a pass. No test ran is
# a failure; all skipped is a skip naming the reasons, exit 125
must_fail "$(mutate kselftest-timers "s|ktap: /usr/lib/kselftest/run_kselftest.sh.*|ktap: 'printf \"TAP version 13\\\\n1..0\\\\n\"'|")" \
	"step 1 .*no test ran: the KTAP plan is 1..0"
skipped=$(mutate kselftest-timers "s|ktap: /usr/lib/kselftest/run_kselftest.sh.*|ktap: 'printf \"TAP version 13\\\\n1..2\\\\nok 1 selftests: timers: posix_timers # SKIP needs root\\\\nok 2 selftests: timers: nanosleep # SKIP\\\\n\"'|")
# (once more when a loaded machine failed it otherwise: a stall at boot)
for try in 1 2; do
	ktb_run run --artifacts "$(artifacts)" "$skipped"
	[ "$rc" -eq 1 ] && [ "$try" -eq 1 ] && sed 's/^/  | /' "$out" >&2 && continue
	break
done
expect_rc 125
expect_out '^SKIP +kselftest-timers-broken .*all 2 tests skipped: selftests: timers: posix_timers \(needs root\), selftests: timers: nanosleep \(no reason given\)'

# a test the runner does not know: it prints no KTAP at all, which is not a
# pass but the step's error (exit 125), saying so
ktb_run run --artifacts "$(artifacts)" "$(mutate kselftest-timers 's/-t timers:mqueue-lat/-t timers:mqueue-latency/')"
expect_rc 125
expect_out 'step 1 .*malformed KTAP: no "KTAP version 1" or "TAP version 13" line \(the command exited 1\)'

# A kernel without POSIX message queues: the scenario is skipped before
# anything boots, naming the option (kernel.requires), rather than failing
# on mqueue-lat. The image's own kernel as a tree's, its .config so changed
# (and modules built in, as a tree's bzImage-only build would have them).
ktb_run image build
expect_rc 0
img=$(sed -n 's/^image: *//p' "$out")
grep -qx 'CONFIG_POSIX_MQUEUE=y' "$img/config" || fail "the Debian kernel has no POSIX_MQUEUE?"
tree=$work/linux
mkdir -p "$tree/arch/x86/boot"
cp "$(sed -n 's/^bzImage: *//p' "$out")" "$tree/arch/x86/boot/bzImage"
sed -e 's/=m$/=y/' -e 's/^CONFIG_POSIX_MQUEUE=.*/# CONFIG_POSIX_MQUEUE is not set/' \
	"$img/config" >"$tree/.config"
ktb_run run --artifacts "$(artifacts)" --kernel "$tree/arch/x86/boot/bzImage" \
	"$KTB_SRC/scenarios/kselftest-timers.yaml"
expect_rc 125
expect_out "^SKIP +kselftest-timers .*needs: CONFIG_POSIX_MQUEUE is not set: kernel.requires \(kernel"
exit 0
