# label: vm
# jobs: 2
# ktb shrink with every run on the libvirt back end (--backend libvirt, a
# domain per run): the 4Kn case of t_shrink.sh on the buses libvirt
# presents (scsi for the data disk, a second disk, S3, two CPUs) gives the
# same answer: the data disk kept at 4kn, its sector named as the part that
# matters, the rest gone; no domain is left behind. A machine libvirt cannot
# present (a balloon) is "could not test", exit 125.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libvirt_lib.sh"

cat >"$work/lv.yaml" <<'YAML'
name: shrink-4kn-libvirt
summary: 512-byte direct writes to the data disk, which fail only because it is 4Kn
timeout: 120s
machine:
  cpus: 2
  memory: 512M
  sleep: [s3]
  disks:
    - {id: data, bus: scsi, size: 64M, sector: 4kn}
    - {id: spare, bus: virtio, size: 64M}
steps:
  - run: ktb-io write --disk data --bs 512 --size 64K
YAML
ktb_run shrink --repeat 1 -j 2 --backend libvirt --artifacts "$(artifacts)" "$work/lv.yaml"
expect_rc 0
expect_out '^  disk data: sector: 4kn -> 512e passes 1 of 1'
sed -n '/^machine:/,/^steps:/p' "$work/lv.shrunk.yaml" >"$work/machine.txt"
grep -q 'sector: 4kn' "$work/machine.txt" || fail "the data disk is not 4kn any more: $(cat "$work/machine.txt")"
for gone in spare sleep 'cpus: 2'; do
	grep -q "$gone" "$work/machine.txt" && fail "$gone is still in the smallest machine: $(cat "$work/machine.txt")"
done
[ -z "$(libvirt_left)" ] || fail "domains left behind: $(libvirt_left)"

printf 'name: lv-balloon\nsummary: x\ntimeout: 60s\nmachine: {balloon: {free_page_reporting: false}}\nsteps:\n  - run: "false"\n' >"$work/balloon.yaml"
ktb_run shrink --repeat 1 --backend libvirt --artifacts "$(artifacts)" "$work/balloon.yaml"
expect_rc 125
expect_out 'could not be tested, so there is nothing to shrink'
expect_out 'cannot present a balloon'
exit 0
