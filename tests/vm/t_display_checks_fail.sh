# label: vm
# jobs: 2
# The display checks fail, naming what they saw, when what they guard is
# broken: the machine step when the guest's PCI bus does not show what
# machine.display declares (a QEMU wrapper first in PATH drops the declared
# adapter from display-bochs, or adds one to smoke), and each check of
# s3-display and s4-display under one change to the scenario file
# (scenario, sed expression, what the failure must say).
. "$(dirname "$0")/lib.sh"
S=$KTB_SRC/scenarios
T=$'\t'
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

# display-bochs: 1 the adapter on the PCI bus, 2 S3, 3 the adapter answers
# its configuration after the wake. The machine declaring the standard VGA
# instead shows its class (030000) in step 1; a machine without S3 fails
# step 2; the adapter removed from the bus before step 3 leaves it nothing
# to read.
# s3-display: 1 draw, 2 screen before, 3 suspend (asleep_screen, and
# awake_screen: captures from the wake until the pattern is back), 4 screen
# after (same_as before), 5 ktb-fb check; an inserted step shifts the later
# ones. A display that never comes back fails the suspend step naming
# awake_screen. s4-display: 1 draw, 2 screen before, 3 suspend s4, 4 screen
# restored, 5 ktb-fb info, 6 ktb-fb paint, 7 screen after (same_as before).
# What ktb-fb reports is broken at its cause where one exists: another mode
# (draw --mode 1024x768: xres, yres, stride, the capture's width and
# height), the holder stopped (ktb-fb release: holder null, and the
# fbdev emulation's buffer on the CRTC: same false), the output disabled
# (ktb-fb off: enabled "disabled", dpms "Off"), the connector forced off
# (its sysfs status: connected 0), no repaint after the restore (check for
# paint: same false). driver, bpp and connected in the draw have no cause
# to change: the kernel has one DRM driver for these adapters (bochs-drm),
# ktb-fb draws and reads back only 32 bpp buffers, and draw needs a
# connected connector; their rows expect another value instead, and the
# message shows the value the guest reported.
AFTER='^  - name: the host.s capture is still the pattern'
RESTORED='^  - name: the CRTC scans out the holder.s buffer'
BEFORE='^  - name: the host.s capture shows the pattern'
CHECK='^  - name: mode, connector, scanout and pixels'
PAINT='^  - name: the pattern repainted in place'
DRAW='/^    run: ktb-fb draw$/,/json:/'
SCANOUT='/connectors.card0-Virtual-1.enabled/'
VALUES='s/driver: bochs-drm/driver: simpledrm/; s/bpp: 32/bpp: 16/'
FORCE_OFF='echo off > \/sys\/class\/drm\/card0-Virtual-1\/status \&\& ktb-fb off'
STEP1_VALUES='step 1 .*json driver: expected "simpledrm", got "bochs-drm"; json xres: expected 1280, got 1024; json yres: expected 800, got 768; json bpp: expected 16, got 32; json stride: expected 5120, got 4096; json connected: expected 2, got 1'
RELEASED='json holder: expected >= 2, got null; json same: expected true, got false'
OFF='json connectors.card0-Virtual-1.dpms: expected "On", got "Off"'
FORCED_OFF='json connected: expected 1, got 0; json connectors.card0-Virtual-1.enabled: expected "enabled", got "disabled"; json connectors.card0-Virtual-1.dpms: expected "On", got "Off"'
MODE_VALUES='json driver: expected "simpledrm", got "bochs-drm"; json xres: expected 1280, got 1024; json yres: expected 800, got 768; json bpp: expected 16, got 32; json stride: expected 5120, got 4096'
# NO_S3 (lib.sh) for a scenario whose kernel: key is there already
NO_S3_VGA='s/^kernel:$/&\n  cmdline: acpi=off notsc/; s/^  sleep: \[s3/  unverified: [sleep]\n&/'
mutations <<EOF_TABLE
display-bochs${T}${NO_S3}${T}step 2 .*does not offer S3
s3-display${T}${NO_S3_VGA}${T}step 3 .*does not offer S3
display-bochs${T}s/^  display: bochs-display\$/  display: vga/${T}step 1 .*stdout did not match
display-bochs${T}s|^  - name: the adapter is still there|  - run: for d in /sys/bus/pci/devices/*; do [ "\$(cat \$d/class)" = 0x038000 ] \&\& echo 1 > \$d/remove; done; true\n&|${T}step 4 .*stdout did not match
s3-display${T}${DRAW}{s/ktb-fb draw\$/ktb-fb draw --mode 1024x768/; ${VALUES}; s/connected: 1/connected: 2/}${T}${STEP1_VALUES}
s3-display${T}s/^    run: ktb-fb draw\$/    run: ktb-fb draw >\/dev\/null \&\& ktb-fb release >\/dev\/null \&\& ktb-fb info/${T}step 1 .*${RELEASED}
s3-display${T}s/^    run: ktb-fb draw\$/    run: ktb-fb draw >\/dev\/null \&\& ktb-fb off/${T}step 1 .*${OFF}
s3-display${T}s|${BEFORE}|  - run: ktb-fb draw --mode 1024x768\n&|${T}step 3 .*json width: expected 1280, got 1024; json height: expected 800, got 768
s3-display${T}s/^  display: vga/  display: bochs-display/${T}step 3 .*asleep_screen.black: expected >= 0.99, got 0
s3-display${T}s/^    run: ktb-fb draw\$/    run: ktb-fb draw; ktb-fb release >\/dev\/null/${T}step 2 .*json sha256: expected "2ac64afd[0-9a-f]*", got "76ed5c9c
s3-display${T}s/^    run: ktb-fb draw\$/    run: ktb-fb draw; ktb-fb release >\/dev\/null/; s/, sha256: [0-9a-f]*}/}/${T}step 3 .*awake_screen: "before" is blank \(every pixel black\): nothing was on the screen to compare with
s3-display${T}s|^  - suspend: s3|  - run: echo 0000:00:02.0 >/sys/bus/pci/drivers/bochs-drm/unbind\n&|${T}step 4 .*awake_screen: the screen differs from "before" [0-9.]+ s after the wake: 100.00% of its pixels \(1024000\) \([0-9]+ captures, one every [0-9]+ ms\)
s3-display${T}s|^  - suspend: s3|  - run: ktb-fb off\n&|${T}step 4 .*awake_screen: the screen differs from "before" [0-9.]+ s after the wake: 100.00% of its pixels \(1024000\) \([0-9]+ captures, one every [0-9]+ ms\)
s3-display${T}s|${AFTER}|  - run: ktb-fb release\n&|${T}step 5 .*the screen differs from "before": 100.00% of its pixels \(1024000\) after [0-9]+ captures in 5s
s3-display${T}s|${AFTER}|  - run: ktb-fb draw --mode 1024x768\n&|${T}step 5 .*the screen is 1024x768, "before" was 1280x800 \([0-9]+ captures in 5s\)
s3-display${T}s|^  - name: mode, connector, scanout and pixels|  - run: echo 0000:00:02.0 >/sys/bus/pci/drivers/bochs-drm/unbind\n&|${T}step 6 .*exit: expected 0, got 1; json driver: expected "bochs-drm", got nothing.*json same: expected true, got nothing
s3-display${T}s|${CHECK}|  - run: ktb-fb draw --mode 1024x768\n&|; ${SCANOUT}{${VALUES}}${T}step 6 .*${MODE_VALUES}
s3-display${T}s|${CHECK}|  - run: ktb-fb release\n&|${T}step 6 .*${RELEASED}
s3-display${T}s/^    run: ktb-fb check\$/    run: ${FORCE_OFF}/${T}step 5 .*${FORCED_OFF}
s4-display${T}${DRAW}{s/ktb-fb draw\$/ktb-fb draw --mode 1024x768/; ${VALUES}; s/connected: 1/connected: 2/}${T}${STEP1_VALUES}
s4-display${T}s/^    run: ktb-fb draw\$/    run: ktb-fb draw >\/dev\/null \&\& ktb-fb release >\/dev\/null \&\& ktb-fb info/${T}step 1 .*${RELEASED}
s4-display${T}s/^    run: ktb-fb draw\$/    run: ktb-fb draw >\/dev\/null \&\& ktb-fb off/${T}step 1 .*${OFF}
s4-display${T}s|${BEFORE}|  - run: ktb-fb draw --mode 1024x768\n&|${T}step 3 .*json width: expected 1280, got 1024; json height: expected 800, got 768; json sha256: expected "2ac64afd[0-9a-f]*", got "[0-9a-f]{64}"
s4-display${T}s|${RESTORED}|  - run: ktb-fb release\n&|${T}step 6 .*json holder: expected >= 2, got null
s4-display${T}s|${RESTORED}|  - run: ktb-fb draw --mode 1024x768\n&|; ${SCANOUT}{${VALUES}}${T}step 6 .*${MODE_VALUES}
s4-display${T}s/^    run: ktb-fb info\$/    run: ${FORCE_OFF}/${T}step 5 .*${FORCED_OFF}
s4-display${T}s|${PAINT}|  - run: ktb-fb draw --mode 1024x768\n&|${T}step 7 .*json xres: expected 1280, got 1024; json yres: expected 800, got 768
s4-display${T}s|${PAINT}|  - run: ktb-fb release\n&|; s/^    run: ktb-fb paint\$/    run: ktb-fb check/${T}step 7 .*${RELEASED}
s4-display${T}s|^  - name: the restored kernel sets|  - run: ktb-fb draw --mode 1024x768\n&|${T}step 5 .*json width: expected 1280, got 1024; json height: expected 800, got 768
s4-display${T}s/^    run: ktb-fb paint\$/    run: ktb-fb info/; s/{xres: 1280, yres: 800, holder: {ge: 2}, same: true}/{xres: 1280, yres: 800}/${T}step 7 .*the screen differs from "before": 100.00% of its pixels \(1024000\)
EOF_TABLE

# started again without being told where its image is, the guest boots
# afresh: the S4 step says so
KTB_S4_NO_RESUME=1 must_fail "$S/s4-display.yaml" \
	'step 3 .*the guest booted afresh instead of restoring its hibernation image'
exit 0
