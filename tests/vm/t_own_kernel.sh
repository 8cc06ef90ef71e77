# label: own-kernel
# A kernel of one's own, end to end: Debian's linux-source-6.1 configured
# with only `ktb kconfig --minimal --apply TREE scenarios/` (make tinyconfig,
# the fragment merged, olddefconfig; every option taken) and built (cached
# by the fragment's hash: a second run does not rebuild) takes every option
# the library asks for and no modules; the same kernel with one required
# option off is skipped before boot, exit 125, naming the option and what
# needs it. That the whole library passes on it is vm/scenario/NAME's to
# show, each scenario on this kernel (run_scenario.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/minimal_kernel.sh"
lib=$KTB_SRC/scenarios

kdir=$(minimal_kernel "$KTB" "$lib") || fail "could not build the minimal kernel"
echo "minimal kernel: $kdir (built in $(cat "$kdir/build_s") s)"
while read -r line; do
	grep -qx "$line" "$kdir/config" || fail "the minimal kernel's config lacks $line"
done < <("$KTB" kconfig --minimal "$lib" | grep '=y$')
grep -q '^CONFIG_MODULES=y' "$kdir/config" && fail "the minimal kernel has modules; it needs none"

# one option off: its config without CONFIG_BLK_DEV_NVME, beside the same
# bzImage (the check reads the config and boots nothing)
mkdir -p "$work/off"
cp "$kdir/bzImage" "$work/off/bzImage"
sed 's/^CONFIG_BLK_DEV_NVME=y$/# CONFIG_BLK_DEV_NVME is not set/' "$kdir/config" >"$work/off/config"
ktb_run run --artifacts "$(artifacts)" --kernel "$work/off/bzImage" "$lib/disk-4kn-nvme.yaml" \
	"$lib/smoke.yaml"
expect_rc 125
expect_out "CONFIG_BLK_DEV_NVME is not set: disk 'data' is on bus nvme"
expect_out "^summary: 1 passed, 0 failed, 1 skipped$"
exit 0
