# label: cli
# --kernel DIR, a kernel build tree, without booting: a folder that is no
# tree and a tree without its bzImage are usage errors (exit 2) that name
# the folder and what to build; a modules.order naming a module not built
# is one too, unless --modules overrides the tree's modules; a tree whose
# .config lacks the NVMe driver skips the NVMe scenario before boot (the
# .config is read from the DIR form, and a tree with every module built in,
# modules.order empty, still builds its image: its modules.builtin says
# which recipe modules are in the kernel).
. "$(dirname "$0")/kernel_tree_lib.sh"

# not a kernel tree at all
mkdir -p "$work/photos"
ktb_run run --artifacts "$(artifacts)" --kernel "$work/photos" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "^ktb run: --kernel $work/photos: a folder, but not a kernel build tree"

# a tree not built yet, in each command that takes --kernel
mkdir -p "$work/unbuilt"
echo "# a kernel tree's top Makefile" >"$work/unbuilt/Makefile"
msg="--kernel $work/unbuilt: no arch/x86/boot/bzImage in $work/unbuilt; build it with \`make bzImage\` \(and \`make modules\` for =m options\)"
ktb_run run --artifacts "$(artifacts)" --kernel "$work/unbuilt" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "^ktb run: $msg"
ktb_run boot --kernel "$work/unbuilt"
expect_rc 2
expect_out "^ktb boot: $msg"
ktb_run image build --kernel "$work/unbuilt"
expect_rc 2
expect_out "^ktb image: $msg"

debian_parts

# modules.order names a module that was not built
tree=$work/linux
fake_tree "$tree" with
echo "drivers/net/notbuilt.ko" >>"$tree/modules.order"
ktb_run image build --kernel "$tree"
expect_rc 2
expect_out "^ktb image: --kernel $tree: modules.order names drivers/net/notbuilt.ko, which is not built"
# --modules wins over the tree's own: they are not looked at
ktb_run image build --kernel "$tree" --modules "$work/unpack/lib/modules"
expect_rc 0

# every option built in, no NVMe: a skip naming the option, before boot
nonvme=$work/linux-nonvme
fake_tree "$nonvme" without
sed -i -e 's/=m$/=y/' -e 's/^CONFIG_BLK_DEV_NVME=.*/# CONFIG_BLK_DEV_NVME is not set/' \
	"$nonvme/.config"
# a comment of this run's own: a new image key, so the image is built here
# (not found cached), which the default.latest check below needs
echo "# $work" >>"$nonvme/.config"
latest=$(readlink "${XDG_CACHE_HOME:-$HOME/.cache}/ktb/images/default.latest" || true)
ktb_run run --artifacts "$(artifacts)" --kernel "$nonvme" "$KTB_SRC/scenarios/disk-4kn-nvme.yaml"
expect_rc 125
expect_out "^SKIP +disk-4kn-nvme .*CONFIG_BLK_DEV_NVME is not set: disk 'data' is on bus nvme"
res=$(result_of disk-4kn-nvme)
[ ! -e "$(dirname "$res")/console.log" ] || fail "a VM was started"
ktb_run image build --kernel "$nonvme"
expect_rc 0
img=$(sed -n 's/^image: *//p' "$out")
# default.latest names the recipe's own kernel's image, not this one
# (built by the run above, found by this build)
[ "$(readlink "${XDG_CACHE_HOME:-$HOME/.cache}/ktb/images/default.latest" || true)" = "$latest" ] ||
	fail "building from a kernel tree moved default.latest to $(basename "$img")"
cmp -s "$img/config" "$nonvme/.config" || fail "the image's config is not the tree's .config"
# the recipe's modules are not in this kernel (Debian builds them as
# modules): each left out with a word, none installed
grep -q 'module nvme: .* neither as a module nor built in: left out' "$img/build.log" ||
	fail "the builder did not say it left nvme out"
[ ! -s "$img/modules.txt" ] || fail "modules installed from a tree that built none"
grep -q '"modules": 0' "$img/manifest.json" || fail "the manifest counts modules"
