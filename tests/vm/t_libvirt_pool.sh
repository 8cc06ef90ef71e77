# label: vm
# jobs: 2
# A pool of libvirt hosts: two connections to the same daemon with one slot
# each, plus a host that cannot be reached. Scenarios spread over the good
# ones; the bad one is taken out and its scenario runs elsewhere; with no
# host left, scenarios are errors (125); SIGTERM leaves no domain behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libvirt_lib.sh"
bogus="qemu+unix:///system?socket=$work/no-such-daemon.sock"

# the bogus host comes first, so the first scenario is started there
ktb_run run --connect "$bogus" --connect qemu:///system --connect qemu:///system,slots=1 \
	--repeat 3 --json "$work/pool.json" --artifacts "$work/a" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 0
expect_out "ktb run: libvirt host qemu\+unix:///system\?socket=.* taken out: VM did not boot: cannot connect"
expect_out "ktb run: smoke#1 will run on another host"
[ "$(grep -c "taken out" "$out")" -eq 1 ] || fail "the bad host was taken out more than once"
python3 - "$work/pool.json" <<'PY' || fail "not every run passed"
import json, sys
s = json.load(open(sys.argv[1]))["scenarios"]
assert [x["status"] for x in s] == ["pass"] * 3, [x["status"] for x in s]
PY
# the retried run's artifacts name the host that ran it in the end
for n in 1 2 3; do
	grep -qx "uri: qemu:///system" "$work/a"/*/"smoke-$n/libvirt.txt" ||
		fail "smoke#$n did not end on qemu:///system"
done
[ -z "$(libvirt_left)" ] || fail "domains left behind: $(libvirt_left)"

# no host left: every scenario is an error that says why, nothing hangs
ktb_run run --connect "$bogus,slots=2" --artifacts "$work/a" \
	"$KTB_SRC/scenarios/smoke.yaml" "$KTB_SRC/scenarios/s3-basic.yaml"
expect_rc 125
expect_out "ERROR +smoke"
expect_out "ERROR +s3-basic"
expect_out "no libvirt host left \(qemu\+unix:///system\?socket=.*: VM did not boot: cannot connect"

# bad --connect arguments are usage errors
ktb_run run --connect "qemu:///system,slots=0" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "give ,slots=N with N from 1 to 64"
ktb_run run --backend qemu --connect qemu:///system "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "--connect is for --backend libvirt"
ktb_run run --connect qemu:///system --connect qemu+tcp://elsewhere/system \
	"$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "only qemu\+ssh:// remote hosts are supported"
ktb_run run --backend xen "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "use qemu or libvirt"

# SIGTERM mid-run: ktb exits 130, the domain is destroyed, nothing is left
"$KTB" run --backend libvirt --artifacts "$work/a" \
	"$KTB_SRC/scenarios/smoke.yaml" >"$out" 2>&1 &
ktb_pid=$!
trap 'st=$?; kill -TERM "$ktb_pid" 2>/dev/null; wait; lib_exit "$st"' EXIT
wait_qemus 1 "$work/tmp" || fail "QEMU never started under libvirt"
[ -n "$(libvirt_left)" ] || fail "no ktb- domain while QEMU runs"
sleep 1
stop_clean "$ktb_pid" "$work/tmp"
[ -z "$(libvirt_left)" ] || fail "domains left after SIGTERM: $(libvirt_left)"
trap lib_exit EXIT
exit 0
