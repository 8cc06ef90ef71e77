# label: vm
# Through the libvirt backend, the checks of smoke and s3-basic still fail
# when what they guard is broken: fewer CPUs than declared (the machine step
# on the domain), a console marker that never comes (the console file the harness
# follows), a monitor answer that differs (virDomainQemuMonitorCommand), a
# machine without S3 (the domain's <pm>), a kernel panic (and its dump,
# through libvirt's). Plus the clear
# refusals of what the libvirt renderer cannot present.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libvirt_lib.sh"
T=$'\t'
while IFS=$'\t' read -r name expr pattern; do
	[ -n "$name" ] || continue
	f=$(mutate "$name" "$expr")
	ktb_run run --backend libvirt --artifacts "$(artifacts)" "$f"
	[ "$rc" -eq 1 ] || fail "$(basename "$f"): expected exit 1, got $rc"
	expect_out "$pattern"
done <<EOF_MUT
smoke${T}s/ktb.smoke=1"/ktb.smoke=1 maxcpus=1"/${T}step machine .*CPUs online: declared 2, the guest sees 1 \(maxcpus=1 on the command line\?\)
smoke${T}s/echo "ktb smoke marker"/echo "something else"/${T}step 4 .*the console did not show /ktb smoke marker/
smoke${T}s/status: running/status: paused/${T}step 5 .*json status: expected "paused", got "running"
s3-basic${T}${NO_S3}${T}step 2 .*does not offer S3
s3-basic${T}s|echo before-s3 > /run/marker|echo before-s3 > /run/elsewhere|${T}step 3 .*exit: expected 0, got 1.*stdout did not match
EOF_MUT

# a panic is seen on the console file at once; the domain, paused by its
# pvpanic device (on_crash preserve), is dumped through libvirt's own dump
# (--dump on-failure, the default): a whole kdump file in the artifacts
panic_scenario "$work/panic.yaml"
start=$(date +%s)
ktb_run run --backend libvirt --artifacts "$work/pa" "$work/panic.yaml"
expect_rc 1
expect_out 'Kernel panic - not syncing'
[ $(($(date +%s) - start)) -lt 60 ] || fail "the panic was not noticed at once"
expect_out 'dump \(panic\): .*/panic/vmcore, [0-9.]+ MB in [0-9.]+ s'
core=$(jq -r .dump.file "$work"/pa/*/panic/result.json)
[ "$(head -c 8 "$core" 2>/dev/null)" = "KDUMP   " ] || fail "the libvirt dump ($core) is not a kdump file"
find "$work/pa" \( -name '*.flat' -o -name '*.part' \) | grep . && fail "a partial dump was left"

# refused, not approximated: an error (125) that names the field
ktb_run run --backend libvirt --artifacts "$(artifacts)" \
	"$KTB_SRC/scenarios/disk-4kn-nvme.yaml" "$KTB_SRC/scenarios/s4-hibernate.yaml"
expect_rc 125
expect_out "machine.disks\[0\].bus: the libvirt renderer cannot present nvme disks yet"
expect_out "machine.hibernate: S4 on the libvirt backend is not supported yet"
[ -z "$(libvirt_left)" ] || fail "domains left behind: $(libvirt_left)"
exit 0
