# label: vm
# --kernel DIR boots: a kernel tree (the Debian kernel laid out as a build
# leaves it, its modules at their source paths and in modules.order) gives
# the image its bzImage, .config and modules with no --modules; the image
# is cached by the modules' names, sizes and mtimes (a rebuilt module is a
# new image), and nothing is written into the tree.
. "$(dirname "$0")/kernel_tree_lib.sh"

debian_parts
tree=$work/linux
fake_tree "$tree" with
before=$(cd "$tree" && find . -printf '%p %s %T@\n' | sort)

ktb_run run --artifacts "$(artifacts)" --kernel "$tree" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 0
expect_out '^PASS +smoke '
ktb_run image build --kernel "$tree"
expect_rc 0
img=$(sed -n 's/^image: *//p' "$out")
[ "$img" != "$IMG" ] || fail "the tree's image is the Debian one"
cmp -s "$img/config" "$tree/.config" || fail "the image's config is not the tree's .config"
for m in nvme virtio_blk dm_multipath; do
	grep -qx "$m" "$img/modules.txt" || fail "module $m is not in the image"
done
[ "$(wc -l <"$img/modules.txt")" -eq "$(wc -l <"$tree/modules.order")" ] ||
	fail "the image holds $(wc -l <"$img/modules.txt") modules, the tree built $(wc -l <"$tree/modules.order")"
compgen -G "$(dirname "$img")/.tmp-modules-*" >/dev/null && fail "the staged modules were left in the cache"
[ "$(cd "$tree" && find . -printf '%p %s %T@\n' | sort)" = "$before" ] ||
	fail "something was written into the tree"

# a module rebuilt: a new image
touch "$tree/$(grep -m1 nvme "$tree/modules.order")"
ktb_run image build --kernel "$tree"
expect_rc 0
[ "$(sed -n 's/^image: *//p' "$out")" != "$img" ] || fail "a rebuilt module kept the image"
