#!/bin/bash
# The Debian root as the guest gets it (docs/guest.md): the folder
# images/debian-root.sh built, copied into an ext4 file system image beside
# it (KEY/root.ext4), which the guest mounts read-only from a virtio disk.
# A disk, not a 9p share, because a guest on a disk can sleep: 6.1's
# virtio_blk freezes and restores its queues across S3 and S4, while
# 9pnet_virtio has no freeze or restore and every file access after a wake
# would wait forever. Made once per root (the root's key names both);
# prints the image's path on stdout (the last line).
#
#   root-disk.sh ROOT [--log FILE]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${1:-}
log=""
[[ ${2:-} == --log && -n ${3:-} ]] && log=$3
[[ -n $root && -d $root ]] || {
	echo "usage: root-disk.sh ROOT [--log FILE] (ROOT: a folder debian-root.sh printed)" >&2
	exit 2
}
say() {
	echo "root-disk: $*" >&2
	[[ -z $log ]] || echo "$*" >>"$log"
}
dir=$(dirname "$root")
out=$dir/root.ext4
[[ -s $out ]] && { echo "$out"; exit 0; }

# shellcheck source=images/needs.sh
. "$here/needs.sh"
needs "the Debian root's disk" mke2fs du find || exit 1
exec 9>"$dir/.disk.lock"
flock 9
[[ -s $out ]] && { echo "$out"; exit 0; }

# Size: what the files take on the host (whole blocks, as on ext4 with
# 4 KiB blocks), a tenth more for directories, extent and inode tables
# (256 bytes an inode), and 32 MiB of slack; no journal (the guest never
# writes it), no blocks kept for root. One inode per file and 4096 spare.
kib=$(du -sk --one-file-system "$root" | cut -f1)
mib=$(((kib + kib / 10) / 1024 + 32))
inodes=$(($(find "$root" -xdev | wc -l) + 4096))
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
: >"$tmp" # there already: mke2fs says nothing of creating it
start=$(date +%s)
if ! mke2fs -q -F -t ext4 -O ^has_journal -m 0 -b 4096 -N "$inodes" -L ktbroot \
	-d "$root" "$tmp" "${mib}M" 2>"$tmp.err"; then
	say "mke2fs could not copy $root into a ${mib} MiB ext4 image: $(tail -n1 "$tmp.err")"
	rm -f "$tmp.err"
	exit 1
fi
rm -f "$tmp.err"
mv "$tmp" "$out"
trap - EXIT
say "made $out ($mib MiB, $(($(date +%s) - start)) s)"
echo "$out"
