# label: vm
# jobs: 2
# ktb run --keep-on-fail: the first scenario that does not pass keeps its VM
# up, says how to reach it, and the ways it names work while it is kept:
# ktb exec through the guest agent (output and exit status), QMP (ktb has
# let go of the monitor). Then the hold ends by its time (exit 1, the run's
# verdict) or by Ctrl-C (exit 130), and no QEMU is left either way. With
# -j 2 and two failing scenarios, one VM only is kept.
. "$(dirname "$0")/lib.sh"

cat >"$work/kf.yaml" <<'YAML'
name: kf
machine: {cpus: 1, memory: 256M}
steps:
  - run: "false"
YAML
sed 's/^name: kf$/name: kf2/' "$work/kf.yaml" >"$work/kf2.yaml"
# ktb's temporary folder (QEMU's sockets and disks) inside $work, so that
# a QEMU left behind is found by its command line
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

# wait_kept: until ktb says the VM is kept (or it ended)
wait_kept() {
	for _ in $(seq 1 120); do
		grep -q 'its VM is kept' "$out" && return 0
		kill -0 "$kpid" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}

qemus() {
	pgrep -f "qemu-system.*$work" | wc -l
}

# 1. kept for 20 s: reach it, then it ends by itself
"$KTB" run --artifacts "$work/a" --keep-on-fail=20s "$work/kf.yaml" >"$out" 2>&1 </dev/null &
kpid=$!
wait_kept || fail "ktb run --keep-on-fail did not keep the failing scenario's VM"
expect_out 'kf did not pass \(step 1 .*exit: expected 0, got 1\); its VM is kept for 20 s'
sock=$(sed -n 's/.*the guest agent on \([^:]*\): ktb exec .*/\1/p' "$out")
qmp=$(sed -n 's/.*QMP on \([^ ]*\) .*/\1/p' "$out")
if [ ! -S "$sock" ] || [ ! -S "$qmp" ]; then fail "the agent or QMP socket it names is not there ($sock, $qmp)"; fi
rel=$("$KTB" exec "$sock" uname -r 2>&1) || fail "ktb exec through the kept VM's agent failed: $rel"
echo "$rel" | grep -Eq '^[0-9]+\.[0-9]+' || fail "ktb exec uname -r printed '$rel'"
erc=0
"$KTB" exec "$sock" -- 'echo to-stderr >&2; exit 3' 2>"$work/exec.err" || erc=$?
[ "$erc" -eq 3 ] || fail "ktb exec did not pass on the command's exit status 3 (got $erc)"
grep -q to-stderr "$work/exec.err" || fail "ktb exec did not pass on the command's standard error"
status=$(python3 - "$qmp" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "query-status"):
    f.write(json.dumps({"execute": cmd}) + "\n")
    f.flush()
    reply = json.loads(f.readline())
print(reply["return"]["status"])
PY
) || fail "QMP of the kept VM did not answer"
[ "$status" = running ] || fail "the kept VM's status is '$status', not running"
rc=0
wait "$kpid" || rc=$?
expect_rc 1
expect_out "kf's VM: its time passed; stopping it"
[ "$(qemus)" -eq 0 ] || fail "a QEMU outlived the hold"

# 2. Ctrl-C ends the hold at once, and the run: exit 130, no QEMU left
"$KTB" run --artifacts "$work/b" --keep-on-fail=10m "$work/kf.yaml" >"$out" 2>&1 </dev/null &
kpid=$!
wait_kept || fail "the second run did not keep its VM"
t0=$(date +%s)
kill -INT "$kpid"
rc=0
wait "$kpid" || rc=$?
expect_rc 130
[ $(($(date +%s) - t0)) -lt 30 ] || fail "Ctrl-C took more than 30 s to end the hold"
[ "$(qemus)" -eq 0 ] || fail "a QEMU outlived Ctrl-C"

# 3. -j 2, both fail: one VM is kept, the other stopped as usual
"$KTB" run -j 2 --artifacts "$work/c" --keep-on-fail=10s "$work/kf.yaml" "$work/kf2.yaml" \
	>"$out" 2>&1 </dev/null &
kpid=$!
rc=0
wait "$kpid" || rc=$?
expect_rc 1
[ "$(grep -c 'its VM is kept' "$out")" -eq 1 ] || fail "-j 2: not exactly one VM was kept"
[ "$(qemus)" -eq 0 ] || fail "a QEMU outlived the run"
echo "keep-on-fail: reached through ktb exec and QMP; ended by its time (1), by Ctrl-C (130); one of two kept"
