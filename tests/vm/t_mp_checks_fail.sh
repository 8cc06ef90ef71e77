# label: vm
# Each check the multipath and zoned scenarios make fails, and says why, when
# what it guards is broken: the scenario files with one thing changed under
# each check (scenario, sed expression, what the failure must say).
# A failover that does not happen, I/O held until the path comes back, must
# fail on the stall: rq with dm told its other path failed (nothing to switch
# to, queue_if_no_path holds the I/O), bio with the other path down too. An
# NVMe head cannot hold I/O with no path on 6.1 (it is deleted and the I/O
# fails: the row losing every path shows the head gone).
. "$(dirname "$0")/lib.sh"
T=$'\t'

# a single-path disk has no path to fail: refused before anything boots
ktb_run run --artifacts "$(artifacts)" "$(mutate mp-nvme-failover 's/paths: 2}/paths: 1}/')"
expect_rc 2
expect_out 'fail_path.disk: disk data has one path; give it paths: 2 or more'

# no multipath device: told not to join the controllers, the kernel shows two
# plain disks; neither step may act, each names what the guest showed
# (the machine step would catch the missing multipath device first:
# unverified: [disks] turns that part off, so the steps' own checks are tested)
noprobe='/^  - name: one head, two live paths/,+3d'$'\n''/^machine:$/a\  unverified: [disks]'
ktb_run run --artifacts "$(artifacts)" --append nvme_core.multipath=N \
	"$(mutate mp-nvme-failover "$noprobe")"
expect_rc 1
expect_out 'before fail_path of path 0: the guest shows no multipath device \(multipath: null\)'
ktb_run run --artifacts "$(artifacts)" --append nvme_core.multipath=N \
	"$(mutate mp-nvme-failover "$noprobe"$'\n''/fail_path: {disk: data, path: 0}/d')"
expect_rc 1
expect_out 'step 3 .*restore_path'
expect_out 'before restore_path of path 0: the guest shows no multipath device'

mutations <<EOF_TABLE
mp-nvme-failover${T}s/restore_path: {disk: data, path: 0}/fail_path: {disk: data, path: 0}/${T}before fail_path of path 0: the guest shows no such path
mp-nvme-failover${T}s/ --until \/run\/io.stop//${T}step 9 .*elapsed_ms: expected >= 16000
mp-nvme-failover${T}s/paths: 2}/paths: 3}/${T}multipath.paths: expected 2, got 3
mp-nvme-failover${T}/restore_path: {disk: data, path: 0}/d; s/restore_path: {disk: data, path: 1}/restore_path: {disk: data, path: 0}/${T}after fail_path of path 1: the guest shows no multipath device \(multipath: none: no disk with id data\)
mp-nvme-failover${T}s/^  - restore_path: {disk: data, path: 0}\$/  - run: echo disable > \/sys\/firmware\/acpi\/interrupts\/gpe01\n&\n    timeout: 8s/${T}the guest never showed path 0 of data back and active
mp-dm-rq-failover${T}s/mode: rq}/mode: bio}/; s/multipath.mode: rq, //${T}step 2 .*stdout did not match
mp-dm-rq-failover${T}s/--seed 7 --until/--seed 7 --corrupt 64 --until/${T}step 10 .*mismatches: expected 0
mp-dm-rq-failover${T}/^  - fail_path: {disk: data, path: 1}/,/^  - restore_path: {disk: data, path: 1}/d; s|^  - fail_path: {disk: data, path: 0}|  - run: dmsetup message ktb-data 0 fail_path \$(cat /sys/bus/scsi/devices/*:0:1:0/block/*/dev)\n&|${T}step 8 .*stall_ms: expected < 4000, got [0-9]{4,}
mp-dm-bio-failover${T}/^  - fail_path: {disk: data, path: 1}/,/^  - wait: 8s/d; s|^  - fail_path: {disk: data, path: 0}|  - fail_path: {disk: data, path: 1}\n&|${T}step 9 .*stall_ms: expected < 4000, got [0-9]{4,}
mp-dm-bio-failover${T}s/mode: bio}/mode: rq}/${T}multipath.mode: expected "bio", got "rq"
mp-dm-bio-failover${T}s/mode: bio}/mode: bio, no_path: fail}/; /restore_path: {disk: data, path: 0}/d; s/restore_path: {disk: data, path: 1}/restore_path: {disk: data, path: 0}/${T}step 9 .*io_errors: expected 0
mp-all-paths-down${T}s/no_path: queue/no_path: fail/${T}step 1 .*stdout did not match
mp-all-paths-down${T}/fail_path: {disk: data, path: 1}/d${T}step 5 .*exit: expected 0, got 1
mp-all-paths-down${T}/fail_path: {disk: data/d; /with no path left/,+1d${T}stall_ms: expected >= 4000
mp-all-paths-down-fail${T}s/no_path: fail/no_path: queue/${T}step 6 .*step did not finish within 20s
mp-all-paths-down-fail${T}/fail_path: {disk: data/d${T}step 4 .*io_errors: expected >= 1
mp-all-paths-down-fail${T}s/--seed 4 --gen 2\$/--seed 4 --gen 2 --corrupt 64/${T}mismatch_kinds.bad_checksum: expected 0
zoned-nvme${T}s/, zoned: {zone_size: 8M}//${T}zoned: expected "host-managed", got "none"
zoned-nvme${T}s/, zoned: {zone_size: 8M}//; /^  - name: the namespace is host-managed/,+3d${T}exit: expected 1, got 0
zoned-nvme${T}s/zone_size: 8M/zone_size: 16M/${T}zones: expected 8, got 4
zoned-nvme${T}s/--offset 0 --size 8M/--offset 4M --size 4M/${T}step 2 .*io_errors: expected 0
EOF_TABLE
exit 0
