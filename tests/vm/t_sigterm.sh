# label: vm
# SIGTERM to ktb mid-run leaves no QEMU, socket or temporary file behind.
. "$(dirname "$0")/lib.sh"
mkdir "$work/tmp"
TMPDIR=$work/tmp "$KTB" run --artifacts "$work/artifacts" "$KTB_SRC/scenarios/smoke.yaml" \
	>"$out" 2>&1 &
ktb_pid=$!
for _ in $(seq 1 300); do
	pgrep -f "qemu-system.*$work/tmp" >/dev/null && break
	sleep 0.1
done
pgrep -f "qemu-system.*$work/tmp" >/dev/null || fail "QEMU never started"
sleep 1
kill -TERM "$ktb_pid"
rc=0
wait "$ktb_pid" || rc=$?
expect_rc 130
sleep 0.5
pgrep -f "qemu-system.*$work/tmp" >/dev/null && fail "QEMU still running after SIGTERM"
left=$(find "$work/tmp" -mindepth 1 | head -5)
[ -z "$left" ] || fail "left behind: $left"
exit 0
