# label: cli
# ktb image build --debug without Debian's 860 MB package, nothing booted:
# the default image, found in a private cache, gets its debug files from a
# small package made here with dpkg-deb --build (a fake apt-get "downloads"
# it): the vmlinux and the .ko of each module the image holds ('_' in
# modules.txt, '-' in the file name), nothing else of the package, no .deb
# and no temporary folder left; modules the package lacks are listed in the
# manifest. A second --debug, and a plain build, find them without asking
# apt. A .deb already in the cache's debs/ is used and kept. apt not
# knowing the package, a failed download and a full disk are exit 125 with
# one message saying what and what to run, the log kept, no debug folder
# made. A kernel tree's image says its own vmlinux serves (exit 0); a
# kernel file of one's own has no debug package (exit 2).
. "$(dirname "$0")/kernel_tree_lib.sh"

debian_parts
key=$(basename "$IMG")
ver=$(sed -n 's/.*"linux-image-[^"]*-unsigned": "\([^"]*\)".*/\1/p' "$IMG/manifest.json")
[ -n "$ver" ] || fail "the default image's manifest names no kernel package: $(cat "$IMG/manifest.json")"
dbg=linux-image-$REL-dbg

# the package: a vmlinux, dm_multipath's file with '-' and virtio_pci's with
# '_' (both in the image), e1000's (not in it), at Debian's paths
pkg=$work/pkg
mdir=$pkg/usr/lib/debug/lib/modules/$REL/kernel
mkdir -p "$pkg/DEBIAN" "$pkg/usr/lib/debug/boot" "$mdir/drivers/md" "$mdir/drivers/virtio" \
	"$mdir/drivers/net"
printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: ktb <ktb@localhost>\nDescription: test\n' \
	"$dbg" "$ver" >"$pkg/DEBIAN/control"
echo "the vmlinux" >"$pkg/usr/lib/debug/boot/vmlinux-$REL"
echo "dm-multipath" >"$mdir/drivers/md/dm-multipath.ko"
echo "virtio_pci" >"$mdir/drivers/virtio/virtio_pci.ko"
echo "e1000" >"$mdir/drivers/net/e1000.ko"
dpkg-deb --build -Zxz "$pkg" "$work/dbg.deb" >/dev/null || fail "dpkg-deb --build failed"
for m in dm_multipath virtio_pci nvme; do
	grep -qx "$m" "$IMG/modules.txt" || fail "the default image lacks $m, which this test needs"
done

# apt-get download PKG=VER as apt names the file; FAKE_APT says how to fail
mkdir -p "$work/bin"
cat >"$work/bin/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$work/apt-calls"
[ "\$1" = download ] || exit 100
[ "\$2" = -q ] && shift
case \${FAKE_APT:-}:\$2 in
missing:*) echo "E: Unable to locate package \${2%%=*}" >&2; exit 100 ;;
net:*) echo "E: Failed to fetch http://deb.debian.org/x.deb  Could not resolve 'deb.debian.org'" >&2; exit 100 ;;
:$dbg=$ver) cp "$work/dbg.deb" "./${dbg}_${ver}_amd64.deb" ;;
*) echo "E: Version '\${2#*=}' for '\${2%%=*}' was not found" >&2; exit 100 ;;
esac
EOF
chmod +x "$work/bin/apt-get"
export PATH=$work/bin:$PATH

# a private cache holding the image (its files linked, never written)
export XDG_CACHE_HOME=$work/cache
priv=$work/cache/ktb/images/$key
mkdir -p "$priv"
for f in "$IMG"/*; do
	[ "${f##*/}" = debug ] || ln -s "$f" "$priv/"
done
calls() { [ -e "$work/apt-calls" ] && wc -l <"$work/apt-calls" || echo 0; }
no_leftovers() {
	[ -z "$(find "$work/cache" -name '*.deb' ! -path '*/debs/*')" ] ||
		fail "a .deb was left: $(find "$work/cache" -name '*.deb')"
	[ -z "$(find "$priv" -maxdepth 1 -name '.debug-tmp-*')" ] || fail "a temporary folder was left"
}

ktb_run image build --debug
expect_rc 0
expect_out "^ktb image: fetching the kernel's debug package $dbg=$ver"
expect_out "^debug: +$priv/debug/vmlinux$"
expect_out "^modules: +$priv/debug/modules$"
[ "$(cat "$priv/debug/vmlinux")" = "the vmlinux" ] || fail "debug/vmlinux is not the package's"
[ "$(cat "$priv/debug/modules/dm-multipath.ko")" = dm-multipath ] || fail "no dm-multipath.ko"
[ "$(cat "$priv/debug/modules/virtio_pci.ko")" = virtio_pci ] || fail "no virtio_pci.ko"
[ "$(find "$priv/debug" -type f | sort | sed "s|^$priv/debug/||" | tr '\n' ' ')" = \
	"debug.log manifest.json modules/dm-multipath.ko modules/virtio_pci.ko vmlinux " ] ||
	fail "debug/ holds more or less than asked for: $(find "$priv/debug")"
python3 - "$priv/debug/manifest.json" "$dbg" "$ver" "$REL" <<'EOF' || fail "debug/manifest.json"
import json, sys
m = json.load(open(sys.argv[1]))
assert (m["package"], m["version"], m["release"], m["modules"]) == (sys.argv[2], sys.argv[3], sys.argv[4], 2), m
assert "nvme" in m["modules_missing"] and "dm_multipath" not in m["modules_missing"], m
EOF
grep -q 'warning: no debug file of module(s) .*nvme' "$priv/debug/debug.log" ||
	fail "the log does not name the modules without a debug file"
[ "$(calls)" -eq 1 ] || fail "apt-get ran $(calls) times"
no_leftovers

# done: neither --debug nor a plain build asks apt again
ktb_run image build --debug
expect_rc 0
expect_out "^debug: +$priv/debug/vmlinux$"
grep -q "fetching" "$out" && fail "a second --debug fetched again"
ktb_run image build
expect_rc 0
expect_out "^debug: +$priv/debug/vmlinux$"
[ "$(calls)" -eq 1 ] || fail "apt-get ran again"

# failures: one message, exit 125, the log kept, no debug folder
fails() {
	rm -rf "$priv/debug"
	ktb_run image build --debug
	expect_rc 125
	expect_out "^ktb image: --debug: $1"
	expect_out "\(log: $priv/debug.failed.log\)$"
	[ -s "$priv/debug.failed.log" ] || fail "no debug.failed.log"
	[ ! -e "$priv/debug" ] || fail "a failed fetch left debug/"
	grep -q '^debug:' "$out" && fail "a failed fetch printed a debug folder"
	no_leftovers
}
FAKE_APT=missing fails "apt knows no $dbg=$ver, the debug package of kernel $REL: run 'apt-get update', then ktb image build --debug again"
FAKE_APT=net fails "apt-get download $dbg=$ver failed: E: Failed to fetch .*; check the network"
# a full disk: df says 100 MB free
cat >"$work/bin/df" <<'EOF'
#!/bin/sh
printf 'Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/x 1000000 897600 102400 90%% /\n'
EOF
chmod +x "$work/bin/df"
fails "no space left on the disk of .* \(100 MB free\): the debug package needs about [0-9]+ MB"
rm "$work/bin/df"

# a success removes the failure's log; a .deb in the cache's debs/ serves
# (apt is not asked) and stays
mkdir -p "$work/cache/ktb/debs"
cp "$work/dbg.deb" "$work/cache/ktb/debs/${dbg}_${ver}_amd64.deb"
n=$(calls)
FAKE_APT=missing ktb_run image build --debug
expect_rc 0
[ "$(calls)" -eq "$n" ] || fail "apt-get ran with the .deb in the cache"
[ -e "$work/cache/ktb/debs/${dbg}_${ver}_amd64.deb" ] || fail "the cached .deb was removed"
[ ! -e "$priv/debug.failed.log" ] || fail "debug.failed.log outlived a fetch that worked"
[ -f "$priv/debug/vmlinux" ] || fail "no debug/vmlinux from the cached .deb"
no_leftovers

# kernels of one's own, in the shared cache (nothing is written for --debug)
unset XDG_CACHE_HOME
tree=$work/linux
fake_tree "$tree" without
ktb_run image build --kernel "$tree" --debug
expect_rc 0
expect_out "^ktb image: note: --debug: the kernel is the build tree $tree, not a Debian package: there is no debug package to fetch; ktb run --kernel $tree decodes findings with $tree/vmlinux"
grep -q '^debug:' "$out" && fail "a tree's image printed a debug folder"
ktb_run image build --kernel "$tree/arch/x86/boot/bzImage" --debug
expect_rc 2
expect_out "^ktb image: --debug: the kernel $tree/arch/x86/boot/bzImage is your own, not a Debian package"
[ "$(calls)" -eq "$n" ] || fail "apt-get ran for a kernel of one's own"
exit 0
