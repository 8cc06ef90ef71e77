# label: vm
# The guest's userspace on a root from the host (docs/guest.md): the
# host's own (ktb boot --root host) runs the host's programs (fio, the same
# version as here) and reads the host's files, while what the guest writes
# stays in its memory and the kernel's modules stay the image's; a Debian
# root (the library's: fio, nvme-cli, xfsprogs, so the tests build one)
# runs the root's fio, from its own package, without the host's programs,
# from a disk the guest's disk list leaves out. A scenario's guest.root host runs
# only with --allow-host-root; a package apt does not know is exit 2 before
# anything boots; a root the guest cannot mount fails the boot, named.
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || fail "fio is not installed on this host (packages.txt lists it)"
[ "$(id -u)" -eq 0 ] || { echo "skipped: a Debian root is built as root" >&2; exit 77; }

# not under /tmp: the guest has its own /tmp (and /run), as on any machine
hostdir=$(mktemp -d /var/tmp/ktb-roots-XXXXXX)
trap 'st=$?; rm -rf "$hostdir"; lib_exit "$st"' EXIT
token="root-token-$$"
echo "$token" >"$hostdir/token"
host_fio=$(fio --version)

# the host's root
# the guest's standard output alone ($so): ktb's own notes (a /dev/kvm that
# does not work here) go to standard error
split boot --root host --exec "fio --version; cat $hostdir/token; uname -r; ls /lib/modules;
	echo guest >$hostdir/written && cat $hostdir/written; grep -c ' / overlay ' /proc/mounts"
expect_rc 0
expect_out "^$host_fio\$"
expect_out "^$token\$"
[ "$(sed -n 3p "$so")" = "$(sed -n 4p "$so")" ] ||
	fail "the guest's /lib/modules is not its kernel's own ($(sed -n 3p "$so")) alone"
expect_out '^guest$'
[ ! -e "$hostdir/written" ] || fail "a file the guest wrote on the host's root reached the host"

# a Debian root with fio: the root's own, not the host's (no gcc there)
debian=(--root debian --package fio --package nvme-cli --package xfsprogs)
# shellcheck disable=SC2016 # the guest's shell expands it
ktb_run boot "${debian[@]}" --exec 'command -v fio; fio --version;
	dpkg -S /usr/bin/fio; . /etc/os-release; echo "$ID $VERSION_ID"; command -v gcc || echo no-gcc
	mount -t xfs /dev/null /mnt 2>/dev/null; grep -cw xfs /proc/filesystems
	for d in /sys/block/vd*; do echo "disk $(cat $d/serial)"; done
	echo "probe $(ktb-probe | grep -c "\"vd")"'
expect_rc 0
# on a disk (the only virtio one here), which the guest's disk list leaves out
expect_out '^disk ktbroot$'
expect_out '^probe 0$'
[ "$(grep -c '^disk ' "$out")" -eq 1 ] ||
	fail "the Debian root is not the one virtio disk: $(grep '^disk ' "$out")"
# the kernel loaded xfs by itself (the mount's request), through the image's
# modprobe: the root has none of its own
expect_out '^1$'
expect_out '^/usr/bin/fio$'
expect_out '^fio-[0-9]'
expect_out '^fio: /usr/bin/fio$'
expect_out '^debian 12$'
expect_out '^no-gcc$'
grep -q 'debian-root: built' "$out" || ktb_run image build "${debian[@]}"
expect_rc 0
manifest=$(awk '/^manifest:/ {print $2}' "$out")
[ -z "$manifest" ] || grep -q '"fio": "' "$manifest" || fail "the manifest $manifest names no fio"

# a scenario cannot grant itself the host's files
cat >"$work/hostroot.yaml" <<'YAML'
summary: runs on the host's root
guest: {root: host}
steps:
  - run: test -x /usr/bin/fio && grep -q ' / overlay ' /proc/mounts
YAML
ktb_run run --artifacts "$(artifacts)" "$work/hostroot.yaml"
expect_rc 2
expect_out "hostroot.yaml: guest.root host .*pass --allow-host-root"
ktb_run run --artifacts "$(artifacts)" --allow-host-root "$work/hostroot.yaml"
expect_rc 0
expect_out '^PASS +hostroot'

# a package apt does not know: exit 2, nothing boots
ktb_run boot --root debian --package ktb-no-such-package --exec true
expect_rc 2
expect_out 'Unable to locate package ktb-no-such-package'
grep -q 'booting' "$out" && fail "a root that cannot be built still booted"

# a Debian root this host cannot build (here: an mmdebstrap that fails):
# its scenario is skipped, saying why, and the others run
mkdir -p "$hostdir/bin" "$hostdir/cache/ktb"
printf '#!/bin/sh\necho "mmdebstrap: E: cannot reach the mirror" >&2\nexit 1\n' >"$hostdir/bin/mmdebstrap"
chmod +x "$hostdir/bin/mmdebstrap"
ln -s "$HOME/.cache/ktb/images" "$hostdir/cache/ktb/images"
ln -s "$HOME/.cache/ktb/debs" "$hostdir/cache/ktb/debs"
cat >"$work/debroot.yaml" <<'YAML'
guest: {root: debian, packages: [fio]}
steps:
  - run: fio --version
YAML
rc=0
PATH="$hostdir/bin:$PATH" XDG_CACHE_HOME="$hostdir/cache" "$KTB" run --artifacts "$(artifacts)" \
	"$work/debroot.yaml" "$KTB_SRC/scenarios/smoke.yaml" >"$out" 2>&1 </dev/null || rc=$?
expect_rc 125
expect_out '^SKIP +debroot .*the Debian root cannot be made: mmdebstrap could not build the root'
expect_out '^PASS +smoke '

# a root the guest cannot mount (no 9p transport, no virtio disk driver):
# the boot fails, named
ktb_run boot --root host --append module_blacklist=9pnet_virtio --exec true
expect_rc 125
expect_out 'root ktbroot: mount 9p share ktbroot'
ktb_run boot "${debian[@]}" --append module_blacklist=virtio_blk --exec true
expect_rc 125
expect_out 'root disk:ktbroot: no disk with serial ktbroot in /sys/block'
exit 0
