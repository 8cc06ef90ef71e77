# label: vm
# Shares where virtiofsd cannot serve: in a chroot whose root is no mount
# point (many CI containers), virtiofsd listens, then dies setting up its
# sandbox once a client connects ("mount(/, MS_REC|MS_SLAVE): Invalid
# argument"). ktb's preflight asks a throwaway virtiofsd over vhost-user
# before QEMU starts, so there: share-virtiofs with transport auto boots
# with its rw share over 9p, the note naming virtiofsd's error on stderr and
# in the machine step's data (share_notes); with transport virtiofs it is a
# skip before anything boots (exit 125, no QEMU started), naming the error;
# ktb boot's banner names the fallback and a forced ,virtiofs is 125 there
# too. The chroot: unshare -m, then a folder (not a mount point) with the
# host's /usr, /lib*, /bin, /sbin, /etc, /dev, /proc, /sys and /tmp bound
# in, and the source tree, the build and the ktb cache at their own paths.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || fail "needs root (unshare -m, chroot, virtiofsd's sandbox)"
command -v unshare >/dev/null || fail "needs unshare (util-linux)"
# already in a chroot (the fresh-machine root running CI): unshare -m
# cannot make its mounts private where / is no mount point; CTest's skip
# (77), saying why
if ! mountpoint -q /; then
	echo "skipped: / is not a mount point here (already a chroot): this test makes its own chroot and cannot make its mounts private; run it outside a chroot" >&2
	exit 77
fi
vfsd=${KTB_VIRTIOFSD:-/usr/lib/qemu/virtiofsd}
[ -x "$vfsd" ] || [ -x /usr/libexec/virtiofsd ] || fail "needs a virtiofsd (qemu-system-common)"

err_re='mount\(/, MS_REC\|MS_SLAVE\): Invalid argument'
build=$(cd "$(dirname "$KTB")/.." && pwd)
real=${XDG_CACHE_HOME:-$HOME/.cache}/ktb
# a cache of the test's own whose entries link to the real one (images,
# kernels, packages), all but the virtiofsd verdict: the tests CTest runs
# beside this one write the host's verdict into the real cache, which would
# otherwise race with the chroot's between the probe and the checks
xdg=$work/xdg
cache=$xdg/ktb
mkdir -p "$cache" "$real/images" "$real/kernels" "$real/debs"
for e in "$real"/*; do
	[ "${e##*/}" = virtiofsd.json ] || ln -s "$e" "$cache/${e##*/}"
done

# the scenario twice: transport auto (its rw share then expected on 9p), and
# as the library has it (virtiofs)
s=$work/s
mkdir -p "$s/auto/share-virtiofs.d" "$s/forced/share-virtiofs.d"
sed -e 's/transport: virtiofs/transport: auto/' -e 's|\^/mnt/rw virtiofs|^/mnt/rw 9p|' \
	"$KTB_SRC/scenarios/share-virtiofs.yaml" >"$s/auto/share-virtiofs.yaml"
grep -q 'transport: auto' "$s/auto/share-virtiofs.yaml" || fail "the scenario has no transport to change"
cp "$KTB_SRC/scenarios/share-virtiofs.yaml" "$s/forced/"
h=$work/host
mkdir -p "$h"

root=$work/root
mkdir -p "$root"
cat >"$work/inchroot.sh" <<'EOF'
# in a mount namespace of its own: build the chroot, run the rest in it
set -eu
root=$1
shift
for d in usr bin sbin lib lib32 lib64 libx32 etc dev proc sys tmp; do
	[ -e "/$d" ] || continue
	if [ -L "/$d" ]; then
		cp -a "/$d" "$root/$d"
		continue
	fi
	mkdir -p "$root/$d"
	mount --rbind "/$d" "$root/$d"
done
for d in "$KTB_SRC" "$BUILD" "$CACHE"; do
	mkdir -p "$d" "$root$d"
	mount --bind "$d" "$root$d"
done
exec chroot "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$PWD" "$@"
EOF

# in_chroot ARGS...: ktb ARGS in the chroot; output in $out, status in $rc
in_chroot() {
	rc=0
	(cd "$work" && KTB_SRC=$KTB_SRC BUILD=$build CACHE=$real XDG_CACHE_HOME=$xdg KTB_ACCEL=tcg \
		unshare -m --propagation private sh "$work/inchroot.sh" "$root" "$KTB" "$@") \
		>"$out" 2>&1 </dev/null || rc=$?
}

# the chroot is what CI containers are: the probe there fails as they do
# (ktb doctor --probe asks virtiofsd; KTB_ACCEL=tcg spares it the KVM probe)
in_chroot doctor --probe
expect_out "^  virtiofsd +.*: cannot serve here \\(.*$err_re"
[ -f "$cache/virtiofsd.json" ] || fail "no virtiofsd verdict cached in $cache"
jq -e '.serves == false' "$cache/virtiofsd.json" >/dev/null ||
	fail "the chroot's verdict: $(cat "$cache/virtiofsd.json")"
jq -r .why "$cache/virtiofsd.json" | grep -Eq "$err_re" ||
	fail "the cached reason is not virtiofsd's error: $(cat "$cache/virtiofsd.json")"

# auto: boots, the rw share over 9p, the note names virtiofsd's error
in_chroot run --json "$work/auto.json" --artifacts "$work/art" "$s/auto/share-virtiofs.yaml"
expect_rc 0
expect_out "ktb run: note: share-virtiofs: machine.shares\\[0\\] \\(.*\\): over 9p: .*virtiofsd cannot serve here: $err_re"
res=$work/auto.json
jq -e '.scenarios[0].status == "pass"' "$res" >/dev/null || fail "auto did not pass: $(cat "$res")"
step=$(jq -c '.scenarios[0].steps[] | select(.name == "machine") | .data' "$res")
echo "$step" | jq -e '.share_transport == "9p"' >/dev/null || fail "machine step: $step"
echo "$step" | jq -r '.share_notes[0]' | grep -Eq "^shares\\[0\\] \\(.*\\): over 9p: .*cannot serve here: $err_re\$" ||
	fail "machine step's share_notes: $step"

# virtiofs forced: a skip before boot, naming the error; QEMU never ran
in_chroot run --json "$work/forced.json" --artifacts "$work/art2" "$s/forced/share-virtiofs.yaml"
expect_rc 125
res=$work/forced.json
jq -r '.scenarios[0].message' "$res" |
	grep -Eq "^machine.shares\\[0\\].transport: transport virtiofs, but .*virtiofsd cannot serve here: $err_re; " ||
	fail "forced virtiofs: $(jq -c '.scenarios[0] | {status, message}' "$res")"
jq -e '.scenarios[0].status == "skip" and (.scenarios[0].metrics.boot_ms == null)' "$res" >/dev/null ||
	fail "forced virtiofs booted: $(jq -c '.scenarios[0]' "$res")"
art=$(find "$work/art2" -name share-virtiofs -type d)
[ -n "$art" ] || fail "forced virtiofs: no artifacts folder in $work/art2"
[ ! -e "$art/qemu.log" ] || fail "forced virtiofs started QEMU ($art)"

# ktb boot: the banner says how the share travels and why; forced is 125
in_chroot boot -v --share "$h:/mnt/h,rw" --exec 'grep " /mnt/h " /proc/mounts'
expect_rc 0
expect_out "sharing $h at /mnt/h \\(rw, 9p: over 9p: .*cannot serve here: $err_re\\)"
expect_out "^ktb0 /mnt/h 9p rw"
in_chroot boot --share "$h:/mnt/h,rw,virtiofs" --exec true
expect_rc 125
expect_out "ktb boot: machine.shares\\[0\\].transport: transport virtiofs, but .*cannot serve here: $err_re"

# outside the chroot the cache no longer answers (another mount namespace,
# another root): the host's own verdict replaces the chroot's
XDG_CACHE_HOME=$xdg KTB_ACCEL=tcg ktb_run doctor --probe
expect_out "^  virtiofsd +.*: serves \\("
jq -e --arg ns "$(readlink /proc/self/ns/mnt)" '.mount_namespace == $ns' "$cache/virtiofsd.json" >/dev/null ||
	fail "the chroot's verdict still stands outside it: $(cat "$cache/virtiofsd.json")"
echo "PASS"
