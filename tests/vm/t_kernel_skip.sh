# label: cli
# A kernel that lacks an option a scenario needs is a skip before anything
# boots, never a failure: the scenario's status is skip, its message names
# every missing option and what needs it, missing_config lists them, no VM
# starts (no console.log), and the run exits 125 so that git bisect run and
# ktb bisect skip that kernel. Two ways in: kernel.requires naming an option
# the Debian kernel lacks (or has as a module where =y asks it built in),
# and a kernel tree whose .config lacks what a scenario's machine needs
# (NVMe). Every scenario test passing on the Debian
# kernel shows the other side: nothing it has is called missing.
. "$(dirname "$0")/lib.sh"

# skipped NAME OPTION WHY: the last run skipped NAME for OPTION because of WHY
skipped() {
	local res
	expect_rc 125
	expect_out "^SKIP +$1 .*the kernel lacks what the scenario needs: $2 is not set: $3"
	res=$(result_of "$1")
	[ -n "$res" ] || fail "$1: no result.json"
	grep -q '"status": "skip"' "$res" || fail "$1: status is not skip"
	grep -A3 '"missing_config"' "$res" | grep -q "\"$2\"" || fail "$1: $2 not in missing_config"
	[ ! -e "$(dirname "$res")/console.log" ] || fail "$1: a VM was started"
}

# kernel.requires: the Debian kernel has no KASAN
cat >"$work/needs-kasan.yaml" <<'EOF'
name: needs-kasan
summary: A run step that needs KASAN.
kernel:
  requires: [CONFIG_KASAN]
steps:
  - run: "true"
EOF
ktb_run run --artifacts "$(artifacts)" "$work/needs-kasan.yaml"
skipped needs-kasan CONFIG_KASAN kernel.requires

# kernel.requires with =y: the Debian kernel has virtio-blk, but as a
# module, which does not do; the skip says it is one
cat >"$work/needs-builtin.yaml" <<'EOF'
name: needs-builtin
summary: A run step that needs virtio-blk built in.
kernel:
  requires: [CONFIG_VIRTIO_BLK=y]
steps:
  - run: "true"
EOF
ktb_run run --artifacts "$(artifacts)" "$work/needs-builtin.yaml"
expect_rc 125
expect_out "^SKIP +needs-builtin .*CONFIG_VIRTIO_BLK=m but it must be built in \(=y\): kernel.requires"

# the library's own-kernel scenario on the Debian kernel: KUnit is not there
ktb_run run --artifacts "$(artifacts)" "$KTB_SRC/scenarios/kunit-boot.yaml"
skipped kunit-boot CONFIG_KUNIT kernel.requires
# the default suite leaves such scenarios out (-x own-kernel), and nothing else
ktb_run run --list -x own-kernel "$KTB_SRC/scenarios"
expect_rc 0
grep -q '^kunit-boot' "$out" && fail "-x own-kernel kept kunit-boot"
[ "$(wc -l <"$out")" -eq "$(($(find "$KTB_SRC/scenarios" -name '*.yaml' | wc -l) - 1))" ] ||
	fail "-x own-kernel left out more than kunit-boot"
ktb_run run --list -x own-kernel -n kunit-boot "$KTB_SRC/scenarios"
expect_rc 2
expect_out "no scenario matches the -t/-n/-x filters"

# a kernel tree whose .config has no NVMe driver: the image's own kernel,
# with that one option turned off (and modules built in, as a tree's
# bzImage-only build would have them)
ktb_run image build
expect_rc 0
img=$(sed -n 's/^image: *//p' "$out")
[ -f "$img/config" ] || fail "the image keeps no kernel config ($img/config)"
grep -qx 'CONFIG_BLK_DEV_NVME=[ym]' "$img/config" || fail "the Debian kernel has no NVMe driver?"
tree=$work/linux
mkdir -p "$tree/arch/x86/boot"
cp "$(sed -n 's/^bzImage: *//p' "$out")" "$tree/arch/x86/boot/bzImage"
sed -e 's/=m$/=y/' -e 's/^CONFIG_BLK_DEV_NVME=.*/# CONFIG_BLK_DEV_NVME is not set/' \
	"$img/config" >"$tree/.config"
ktb_run run --artifacts "$(artifacts)" --kernel "$tree/arch/x86/boot/bzImage" \
	"$KTB_SRC/scenarios/disk-4kn-nvme.yaml"
skipped disk-4kn-nvme CONFIG_BLK_DEV_NVME "disk 'data' is on bus nvme"
# the image is content-addressed: the .config it names may be an earlier
# tree with the same bytes
expect_out "kernel config: .*\(from .*/\.config\)"
