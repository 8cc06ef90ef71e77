# label: vm
# SIGTERM to ktb mid-run leaves no QEMU, socket or temporary file behind.
. "$(dirname "$0")/lib.sh"
mkdir "$work/tmp"
TMPDIR=$work/tmp "$KTB" run --artifacts "$work/artifacts" "$KTB_SRC/scenarios/smoke.yaml" \
	>"$out" 2>&1 &
ktb_pid=$!
wait_qemus 1 "$work/tmp" || fail "QEMU never started"
sleep 1
stop_clean "$ktb_pid" "$work/tmp"
exit 0
