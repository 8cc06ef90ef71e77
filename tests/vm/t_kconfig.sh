# label: cli
# ktb kconfig: the fragment for the library and for single scenarios names
# what each needs and nothing it does not; bad input is exit 2; where a
# Debian 6.1 kernel package sits in the image cache, every option printed for the
# library is set there (test_kreq.c holds the same check against recorded
# values, so it runs without the cache too).
. "$(dirname "$0")/lib.sh"
lib=$KTB_SRC/scenarios

# has FILE OPTION / lacks FILE OPTION: the fragment for one scenario
kconfig_of() {
	ktb_run kconfig "$lib/$1.yaml"
	expect_rc 0
}
has() {
	kconfig_of "$1"
	grep -qx "$2=y" "$out" || fail "$1: no $2=y"
}
lacks() {
	kconfig_of "$1"
	grep -q "^$2=" "$out" && fail "$1: $2 printed, but nothing in it needs that"
	return 0
}

ktb_run kconfig --help
expect_rc 0
expect_out '^usage: ktb kconfig'

# the library (the default) and the folder given are the same fragment
ktb_run kconfig
expect_rc 0
cp "$out" "$work/default.txt"
ktb_run kconfig "$lib"
expect_rc 0
cmp -s "$out" "$work/default.txt" || fail "ktb kconfig and ktb kconfig scenarios/ differ"
grep -v '^# ' "$out" | grep -Evx 'CONFIG_[A-Z0-9_]+=y' && fail "a line neither a comment nor CONFIG_X=y"
[ "$(grep -c '=y$' "$out")" -eq "$(grep '=y$' "$out" | sort -u | wc -l)" ] ||
	fail "an option printed twice"
expect_out '^# the console the harness reads .*\(every scenario\)$'
for o in CONFIG_BLK_DEV_NVME CONFIG_DM_MULTIPATH CONFIG_ACPI_HMAT CONFIG_ZSWAP; do
	grep -qx "$o=y" "$out" || fail "the library's fragment lacks $o=y"
done
cp "$out" "$work/library.txt"

has disk-4kn-nvme CONFIG_BLK_DEV_NVME
expect_out "^# disk 'data' is on bus nvme \(disk-4kn-nvme\)$"
has mp-dm-rq-failover CONFIG_DM_MULTIPATH
has numa-hmat CONFIG_ACPI_HMAT
has paging-zswap CONFIG_ZSWAP
has s4-hibernate CONFIG_HIBERNATION
for o in CONFIG_BLK_DEV_NVME CONFIG_DM_MULTIPATH CONFIG_ACPI_HMAT CONFIG_ZSWAP; do
	lacks smoke "$o"
done
has smoke CONFIG_SERIAL_8250_CONSOLE

# the union of two is both
ktb_run kconfig "$lib/disk-4kn-nvme.yaml" "$lib/numa-hmat.yaml"
expect_rc 0
expect_out '^CONFIG_BLK_DEV_NVME=y$'
expect_out '^CONFIG_ACPI_HMAT=y$'

# kernel.requires is printed; a bad name is exit 2 at file:line:col
printf 'name: req\nkernel:\n  requires: [CONFIG_KPROBES]\nsteps:\n  - run: "true"\n' >"$work/req.yaml"
ktb_run kconfig "$work/req.yaml"
expect_rc 0
expect_out '^# kernel.requires \(req\)$'
expect_out '^CONFIG_KPROBES=y$'
printf 'name: bad\nkernel:\n  requires: [CONFIG_KPROBES, kprobes]\nsteps:\n  - run: "true"\n' >"$work/bad.yaml"
ktb_run kconfig "$work/bad.yaml"
expect_rc 2
expect_out 'bad.yaml:3:30: kernel.requires\[1\]: "kprobes" is not a kernel option name'
ktb_run kconfig --bogus
expect_rc 2

# --minimal: the minimal kernel's base, then all the library needs
ktb_run kconfig --minimal
expect_rc 0
expect_out '^# ktb kconfig --minimal: on top of make tinyconfig$'
expect_out '^# the guest.s programs are x86-64 .*\(the minimal kernel\)$'
for o in CONFIG_64BIT CONFIG_MULTIUSER CONFIG_BLOCK CONFIG_SERIAL_8250_CONSOLE; do
	grep -qx "$o=y" "$out" || fail "--minimal lacks $o=y"
done
while read -r line; do
	grep -qx "$line" "$out" || fail "--minimal lacks $line, which the library needs"
done < <(grep '=y$' "$work/library.txt")
[ "$(grep -c '=y$' "$out")" -eq "$(grep '=y$' "$out" | sort -u | wc -l)" ] ||
	fail "--minimal prints an option twice"
# a menu of one option is in the base with that option only: the library
# has SCSI disks, NUMA and dm-multipath, smoke has none of them (tinyconfig
# would not take SCSI_LOWLEVEL without SCSI)
for o in CONFIG_SCSI_LOWLEVEL CONFIG_X86_64_ACPI_NUMA CONFIG_DM_MULTIPATH_QL; do
	grep -qx "$o=y" "$out" || fail "--minimal for the library lacks $o=y"
done
ktb_run kconfig --minimal "$lib/smoke.yaml"
expect_rc 0
for o in CONFIG_SCSI_LOWLEVEL CONFIG_X86_64_ACPI_NUMA CONFIG_DM_MULTIPATH_QL CONFIG_DM_MULTIPATH_ST; do
	grep -qx "$o=y" "$out" && fail "--minimal for smoke has $o=y, whose option smoke does not need"
done

# --apply TREE, on a stand-in tree whose merge_config.sh appends the
# fragment and whose olddefconfig drops CONFIG_ACPI_HMAT (its dependency
# unmet) and CONFIG_NO_SUCH_OPTION (in no Kconfig file), as the kernel's
# does (the own-kernel test applies to a real tree)
tree=$work/tree
mkdir -p "$tree/scripts/kconfig" "$tree/drivers/acpi"
cat >"$tree/scripts/kconfig/merge_config.sh" <<'EOF_MERGE'
#!/bin/sh
[ "$1" = -m ] || exit 1
cat "$3" >>"$2"
EOF_MERGE
chmod +x "$tree/scripts/kconfig/merge_config.sh"
printf 'olddefconfig:\n\tsed -i -e /^CONFIG_ACPI_HMAT=/d -e /^CONFIG_NO_SUCH_OPTION=/d .config\ntinyconfig:\n\techo "# CONFIG_64BIT is not set" >.config\n' >"$tree/Makefile"
printf 'config ACPI_HMAT\n\tbool "HMAT"\n\tdepends on ACPI_NUMA\n' >"$tree/drivers/acpi/Kconfig"
ktb_run kconfig --apply "$tree" "$lib/numa-hmat.yaml"
expect_rc 2
expect_out 'no .config there; configure the tree first'
echo 'CONFIG_MINE=y' >"$tree/.config"
ktb_run kconfig --apply "$tree" "$lib/numa-hmat.yaml"
expect_rc 1
expect_out '^CONFIG_ACPI_HMAT: is not set after olddefconfig: a dependency is unmet'
expect_out '[0-9]+ options merged into .*tree/.config .*; 1 not taken'
grep -qx 'CONFIG_MINE=y' "$tree/.config.ktb-before" || fail "the tree's .config was not kept"
grep -qx 'CONFIG_NUMA=y' "$tree/.config" || fail "the fragment was not merged"
ktb_run kconfig --apply "$tree" "$work/req.yaml" "$lib/smoke.yaml"
expect_rc 0
expect_out '; 0 not taken$'
printf 'name: nope\nkernel:\n  requires: [CONFIG_NO_SUCH_OPTION]\nsteps:\n  - run: "true"\n' >"$work/nope.yaml"
ktb_run kconfig --apply "$tree" "$work/nope.yaml"
expect_rc 1
expect_out '^CONFIG_NO_SUCH_OPTION: is not set after olddefconfig: this kernel has no such option'
ktb_run kconfig --minimal --apply "$tree" "$lib/smoke.yaml"
expect_rc 0
grep -q '^# CONFIG_64BIT is not set' "$tree/.config" || fail "--minimal did not start from tinyconfig"
grep -qx 'CONFIG_64BIT=y' "$tree/.config" || fail "--minimal did not merge its base"
rm "$tree/scripts/kconfig/merge_config.sh"
ktb_run kconfig --apply "$tree"
expect_rc 2
expect_out 'not a kernel source tree \(no scripts/kconfig/merge_config.sh\)'

# Debian's config: the default image's kernel package, where the image
# cache holds it (ktb image build downloads it there), has every option of
# the library but KUnit's, which kunit-boot asks for (it is skipped there)
pkg=$(sed -n 's/^ *package: *//p' "$KTB_SRC/images/default.yaml" | head -1)
deb=$(find "${XDG_CACHE_HOME:-$HOME/.cache}/ktb/debs" -name "${pkg}_*.deb" 2>/dev/null | sort | tail -1)
if [ -n "$deb" ] && command -v dpkg-deb >/dev/null; then
	mkdir -p "$work/deb"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/deb" --wildcards './boot/config-*' ||
		fail "cannot read boot/config-* from $deb"
	cfg=$(find "$work/deb/boot" -name 'config-*' | head -1)
	while read -r line; do
		o=${line%=y}
		grep -Eq "^$o=(y|m)$" "$cfg" || fail "$o is not set in ${deb##*/}'s ${cfg##*/}"
	done < <(awk '/^# /{why=$0; next} /=y$/ && why != "# kernel.requires (kunit-boot)"' \
		"$work/library.txt")
	echo "every option but kunit-boot's KUnit is set in ${deb##*/}'s ${cfg##*/}"
else
	echo "note: no $pkg in the image cache; test_kreq checks the recorded values"
fi
exit 0
