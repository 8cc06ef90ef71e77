# label: vm
# The machine step's display check fails, naming what it saw, when the
# guest's PCI bus does not show what machine.display declares: a QEMU
# wrapper first in PATH drops the declared adapter (display-bochs), or adds
# one to a machine that declares none (smoke); and s3-display fails when
# the guest loses its display across the suspend (the DRM driver unbound
# after the wake).
. "$(dirname "$0")/lib.sh"
S=$KTB_SRC/scenarios
real_qemu=$(command -v qemu-system-x86_64) || fail "qemu-system-x86_64 not found"

# wrapper NAME FILTER: a qemu-system-x86_64 in $work/NAME whose bash code
# FILTER, run for each argument $a, appends to args
wrapper() {
	mkdir -p "$work/$1"
	cat >"$work/$1/qemu-system-x86_64" <<EOF_WRAPPER
#!/bin/bash
args=()
dev=
for a in "\$@"; do
	$2
done
exec "$real_qemu" "\${args[@]}"
EOF_WRAPPER
	chmod +x "$work/$1/qemu-system-x86_64"
}

# drop "-device bochs-display"
# shellcheck disable=SC2016 # expanded by the wrapper
wrapper drop 'if [ "$dev" ]; then dev=; [ "$a" = bochs-display ] || args+=(-device "$a"); elif [ "$a" = -device ]; then dev=1; else args+=("$a"); fi'
PATH=$work/drop:$PATH ktb_run run --artifacts "$(artifacts)" "$S/display-bochs.yaml"
expect_rc 1
expect_out 'step machine .*display adapters \(PCI vendor:device class\): declared \["1234:1111 038000"\], the guest sees \[\]'

# add a VGA to a machine without display:
# shellcheck disable=SC2016 # expanded by the wrapper
wrapper add '[ "$a" = -nodefaults ] && args+=(-device VGA); args+=("$a")'
PATH=$work/add:$PATH ktb_run run --artifacts "$(artifacts)" "$S/smoke.yaml"
expect_rc 1
expect_out 'step machine .*display adapters \(PCI vendor:device class\): declared \[\], the guest sees \["1234:1111 030000"\]'

# s3-display with the DRM driver unbound after the wake: ktb-fb check
# finds no framebuffer
sed 's|^  - name: the host still sees the adapter.s 1280x800 mode|  - run: echo 0000:00:02.0 >/sys/bus/pci/drivers/bochs-drm/unbind\n&|' \
	"$S/s3-display.yaml" >"$work/s3-display-unbound.yaml"
ktb_run run --artifacts "$(artifacts)" "$work/s3-display-unbound.yaml"
expect_rc 1
expect_out 'step 6 .*mode, connector and pixels are the same in the guest.*exit: expected 0, got 1; json driver: expected "bochs-drm", got nothing'
# comparing with a capture that shows nothing is not a check: the screen
# step refuses it (the bochs fbdev's pixels never reach the scanout, so
# "before" is black)
sed 's|^    screen: after|&\n    same_as: before|' "$S/s3-display.yaml" >"$work/s3-display-blank.yaml"
grep -q 'same_as: before' "$work/s3-display-blank.yaml" || fail "the same_as edit changed nothing"
ktb_run run --artifacts "$(artifacts)" "$work/s3-display-blank.yaml"
expect_rc 1
expect_out 'step 4 .*"before" is blank \(every pixel black\): nothing was on the screen to compare with'
exit 0
