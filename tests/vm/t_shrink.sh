# label: vm
# jobs: 2
# ktb shrink on real runs. (1) 512-byte direct writes to a disk fail only
# because it is 4Kn, on a machine with two NUMA nodes, a balloon, S3 and a
# second disk: the result keeps the disk (its step names it) at 4kn, with
# its sector named as the part that matters, and nothing else; the written
# file fails the same way when run. (2) A failure that needs two CPUs and a
# balloon together: both kept, both named. (3) A scenario that passes:
# nothing to shrink. (4) One that fails on its second run only: flaky,
# nothing written. (5) Bad input: nothing boots. (6) A smaller machine
# that fails only sometimes: undecided, not taken, not named.
. "$(dirname "$0")/lib.sh"

# (5) first: a file that does not load, a NAME.shrunk.yaml ktb shrink did
# not write
printf 'name: bad\nsummary: x\nmachine: {cpus: 65}\nsteps:\n  - run: "true"\n' >"$work/bad.yaml"
ktb_run shrink --artifacts "$(artifacts)" "$work/bad.yaml"
expect_rc 2
expect_out 'machine.cpus'
printf 'name: mine\nsummary: x\nsteps:\n  - run: "true"\n' >"$work/mine.yaml"
echo "my notes" >"$work/mine.shrunk.yaml"
ktb_run shrink --artifacts "$(artifacts)" "$work/mine.yaml"
expect_rc 2
expect_out 'mine.shrunk.yaml is there and is not one ktb shrink wrote'
grep -qx "my notes" "$work/mine.shrunk.yaml" || fail "the user's file was touched"

# (1)
cat >"$work/fourk.yaml" <<'YAML'
name: shrink-4kn
summary: 512-byte direct writes to the data disk, which fail only because it is 4Kn
timeout: 120s
machine:
  cpus: 2
  memory: 512M
  sleep: [s3]
  numa:
    nodes:
      - {cpus: [0], memory: 256M}
      - {cpus: [1], memory: 256M}
  balloon: {free_page_reporting: false}
  disks:
    - {id: data, bus: nvme, size: 64M, sector: 4kn}
    - {id: spare, bus: virtio, size: 64M}
steps:
  # ktb-io opens the disk O_DIRECT: a 512-byte write to a disk with
  # 4096-byte logical blocks is EINVAL, an I/O error, exit 1
  - run: ktb-io write --disk data --bs 512 --size 64K
YAML
ktb_run shrink --repeat 2 -j 2 --json "$work/fourk.json" --artifacts "$(artifacts)" "$work/fourk.yaml"
expect_rc 0
expect_out 'it fails the same way 2 of 2 times: fail: step 1 \(run: ktb-io write --disk data --bs 512 --size 64K\): exit: expected 0, got 1'
expect_out '^  disk data: sector: 4kn -> 512[en] passes 2 of 2'
shrunk=$work/fourk.shrunk.yaml
[ -f "$shrunk" ] || fail "no $shrunk"
sed -n '/^machine:/,/^steps:/p' "$shrunk" >"$work/machine.txt"
grep -q 'id: data' "$work/machine.txt" || fail "the data disk was removed: $(cat "$work/machine.txt")"
grep -q 'sector: 4kn' "$work/machine.txt" || fail "the data disk is not 4kn any more"
for gone in spare numa balloon 'sleep' 'cpus: 2' 'memory: 512M'; do
	grep -q "$gone" "$work/machine.txt" && fail "$gone is still in the smallest machine: $(cat "$work/machine.txt")"
done
python3 - "$work/fourk.json" <<'PY' || fail "the JSON does not say what mattered"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["result"] == "shrunk" and j["exit"] == 0, j["result"]
assert [m["part"] for m in j["matters"]] == ["disk data: sector"], j["matters"]
assert j["runs"] == len(j["trials"]) + 1, (j["runs"], len(j["trials"]))
PY
# the written file fails the same way
ktb_run run --artifacts "$(artifacts)" "$shrunk"
expect_rc 1
expect_out 'step 1 \(run: ktb-io write --disk data --bs 512 --size 64K, line [0-9]+\): exit: expected 0, got 1'

# (2)
cat >"$work/pair.yaml" <<'YAML'
name: shrink-pair
summary: fails only with two CPUs and a balloon together
timeout: 60s
machine:
  cpus: 2
  memory: 512M
  sleep: [s3]
  balloon: {free_page_reporting: false}
  disks:
    - {id: spare, bus: virtio, size: 64M}
steps:
  # the balloon is virtio device 5
  - run: '[ "$(nproc)" -lt 2 ] || ! grep -qx 0x0005 /sys/bus/virtio/devices/*/device'
YAML
ktb_run shrink --repeat 1 -j 2 --artifacts "$(artifacts)" "$work/pair.yaml"
expect_rc 0
expect_out '^  cpus: 2 -> 1 passes 1 of 1'
expect_out '^  balloon: removed passes 1 of 1'
sed -n '/^machine:/,/^steps:/p' "$work/pair.shrunk.yaml" >"$work/machine.txt"
if ! grep -q 'cpus: 2' "$work/machine.txt" || ! grep -q 'balloon' "$work/machine.txt"; then
	fail "both parts should stay: $(cat "$work/machine.txt")"
fi
grep -Eq 'spare|sleep' "$work/machine.txt" && fail "the disk or S3 stayed: $(cat "$work/machine.txt")"

# (3)
printf 'name: fine\nsummary: x\ntimeout: 60s\nmachine: {cpus: 2}\nsteps:\n  - run: "true"\n' >"$work/fine.yaml"
ktb_run shrink --repeat 1 --artifacts "$(artifacts)" "$work/fine.yaml"
expect_rc 0
expect_out 'nothing to shrink: .*fine.yaml passed 1 of 1 runs'
[ -e "$work/fine.shrunk.yaml" ] && fail "a passing scenario got a shrunk file"

# (4)
# shellcheck disable=SC2016 # the guest's shell expands it
printf 'name: flaky\nsummary: x\ntimeout: 60s\nmachine: {cpus: 2}\nsteps:\n  - run: test "$KTB_ATTEMPT" != 2\n' >"$work/flaky.yaml"
ktb_run shrink --repeat 2 --artifacts "$(artifacts)" "$work/flaky.yaml"
expect_rc 1
expect_out 'does not fail the same way every time'
expect_out '^  pass$'
[ -e "$work/flaky.shrunk.yaml" ] && fail "a flaky scenario got a shrunk file"
# (6) a smaller machine that fails only sometimes is undecided: not taken,
# and not named as mattering (attempt 1 always fails; with one CPU, the
# second passes)
# shellcheck disable=SC2016 # the guest's shell expands it
printf 'name: undecided\nsummary: x\ntimeout: 60s\nmachine: {cpus: 2}\nsteps:\n  - run: test "$KTB_ATTEMPT" != 1 -a "$(nproc)" -lt 2\n' >"$work/undecided.yaml"
ktb_run shrink --repeat 2 -j 2 --artifacts "$(artifacts)" "$work/undecided.yaml"
expect_rc 0
expect_out '^not taken: cpus: 2 -> 1 undecided \(1 of 2 passed, 1 failed the same way\)$'
expect_out '^  none found by one change$'
grep -q 'cpus: 2' "$work/undecided.shrunk.yaml" || fail "an undecided change was taken: $(cat "$work/undecided.shrunk.yaml")"

for left in "$work"/.ktb-shrink-*; do
	[ -e "$left" ] && fail "a candidate's file was left beside the scenario: $left"
done
exit 0
