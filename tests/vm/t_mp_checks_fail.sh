# label: vm
# jobs: 2
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
expect_out 'step 2 .*before fail_path of path 0: the guest shows no multipath device \(multipath: null\)'
# the same machine with the probe step kept: it names each of the head's
# facts the guest does not show
ktb_run run --artifacts "$(artifacts)" --append nvme_core.multipath=N \
	"$(mutate mp-nvme-failover '/^machine:$/a\  unverified: [disks]')"
expect_rc 1
expect_out 'step 1 .*multipath\.kind: expected "nvme", got nothing; json multipath\.paths: expected 2, got nothing; json multipath\.active: expected 2, got nothing; json multipath\.list\.0\.path: expected 0, got nothing; json multipath\.list\.1\.path: expected 1, got nothing'

# A few rows also raise a bound of the same step past any real value
# (passes: >= 1000000, stall_ms: < 1): ktb-io makes at least one pass
# whatever happens (--passes is at least 1, --until adds passes), and no
# change to an NVMe head holds its I/O on 6.1, so no cause makes these two
# fail; the message then shows the figure the guest reported, which proves it
# is read and compared, not absent.
# The guest's dm device removed before anything looks at it: the probe
# shows the disk's paths as plain SCSI disks (multipath: null).
nodm='s/^steps:$/&\n  - run: dmsetup remove ktb-data/'
# each dm-multipath failover scenario's probe step, without its device
nodm_rq='multipath\.kind: expected "dm", got nothing; json multipath\.mode: expected "rq", got nothing; json multipath\.paths: expected 2, got nothing; json multipath\.active: expected 2, got nothing; json multipath\.list\.0\.path: expected 0, got nothing; json multipath\.list\.1\.path: expected 1, got nothing'
nodm_bio='multipath\.kind: expected "dm", got nothing; json multipath\.mode: expected "bio", got nothing; json multipath\.paths: expected 2, got nothing; json multipath\.active: expected 2, got nothing; json multipath\.list\.0\.path: expected 0, got nothing; json multipath\.list\.1\.path: expected 1, got nothing'
# three blocks before the last verify of mp-all-paths-down-fail made wrong
# in three ways: zeros (block 10), block 20's content at block 30 (its
# header names LBA 160), a block of another seed (block 40); dm-0 is the
# machine's one dm device
wrong3='  - run: dd if=/dev/zero of=/dev/dm-0 bs=4096 seek=10 count=1 conv=notrunc,fsync \&\& dd if=/dev/dm-0 of=/dev/dm-0 bs=4096 skip=20 seek=30 count=1 conv=notrunc,fsync \&\& ktb-io write --disk data --bs 4096 --offset 163840 --size 4096 --seed 5 --gen 2'
# the background writer told to stop, and done, before the paths fail: no
# I/O of it waits through the outage or fails in it
WRITER_DONE='  - run: touch /run/io.stop; while [ ! -f /run/io.json ]; do sleep 0.2; done'
mutations <<EOF_TABLE
mp-nvme-failover${T}s/ --until \/run\/io.stop//${T}step 9 .*elapsed_ms: expected >= 16000
mp-nvme-failover${T}s/paths: 2}/paths: 3}/${T}step 1 .*multipath\.paths: expected 2, got 3; json multipath\.active: expected 2, got 3
mp-nvme-failover${T}/restore_path: {disk: data, path: 0}/d; s/restore_path: {disk: data, path: 1}/restore_path: {disk: data, path: 0}/${T}step 5 .*after fail_path of path 1: the guest shows no multipath device \(multipath: none: no disk with id data\)
mp-nvme-failover${T}s/^  - restore_path: {disk: data, path: 0}\$/  - run: echo disable > \/sys\/firmware\/acpi\/interrupts\/gpe01\n&\n    timeout: 8s/${T}step 6 .*the guest never showed path 0 of data back and active
mp-nvme-failover${T}s/--size 16M --seed 7 /--size 128M --seed 7 /${T}step 2 .*exit: expected 0, got 2
mp-nvme-failover${T}s/--seed 7 --until/--seed 7 --corrupt 64 --until/; s/passes: {ge: 1}/passes: {ge: 1000000}/; s/stall_ms: {lt: 4000}/stall_ms: {lt: 1}/${T}step 9 .*mismatches: expected 0, got [1-9][0-9]*; json passes: expected >= 1000000, got [1-9][0-9]*; json stall_ms: expected < 1, got [1-9][0-9]*
mp-nvme-failover${T}/^  - restore_path: /d; /^  - wait: 8s\$/d; s/^  - fail_path: {disk: data, path: 1}\$/  - run: for c in \/sys\/class\/nvme\/nvme*; do echo 1 > \\\$c\/device\/remove; done/${T}step 5 .*io_errors: expected 0, got [1-9]
mp-dm-rq-failover${T}s/mode: rq}/mode: bio}/; s/multipath.mode: rq, //${T}step 2 .*stdout did not match
mp-dm-rq-failover${T}${nodm}${T}step 2 .*${nodm_rq}
mp-dm-rq-failover${T}s/--size 16M --seed 7 /--size 128M --seed 7 /${T}step 3 .*exit: expected 0, got 2
mp-dm-rq-failover${T}s/--seed 7 --until \/run\/io.stop/--seed 7 --corrupt 64/; s/passes: {ge: 1}/passes: {ge: 1000000}/${T}step 10 .*mismatches: expected 0, got [1-9][0-9]*; json passes: expected >= 1000000, got 1; json elapsed_ms: expected >= 16000, got [0-9]+
mp-dm-rq-failover${T}s/mode: rq}/mode: rq, no_path: fail}/; /restore_path: {disk: data, path: 0}/d; s/restore_path: {disk: data, path: 1}/restore_path: {disk: data, path: 0}/${T}step 9 .*io_errors: expected 0, got [1-9]
mp-dm-rq-failover${T}/^  - fail_path: {disk: data, path: 1}/,/^  - restore_path: {disk: data, path: 1}/d; s|^  - fail_path: {disk: data, path: 0}|  - run: dmsetup message ktb-data 0 fail_path \$(cat /sys/bus/scsi/devices/*:0:1:0/block/*/dev)\n&|${T}step 8 .*stall_ms: expected < 4000, got [0-9]{4,}
mp-dm-bio-failover${T}/^  - fail_path: {disk: data, path: 1}/,/^  - wait: 8s/d; s|^  - fail_path: {disk: data, path: 0}|  - fail_path: {disk: data, path: 1}\n&|${T}step 9 .*stall_ms: expected < 4000, got [0-9]{4,}
mp-dm-bio-failover${T}s/mode: bio}/mode: rq}/${T}step 1 .*multipath\.mode: expected "bio", got "rq"
mp-dm-bio-failover${T}s/mode: bio}/mode: rq}/; s/multipath.mode: bio, //${T}step 2 .*stdout did not match
mp-dm-bio-failover${T}${nodm}${T}step 2 .*${nodm_bio}
mp-dm-bio-failover${T}s/--size 16M --seed 7 /--size 128M --seed 7 /${T}step 3 .*exit: expected 0, got 2
mp-dm-bio-failover${T}s/--seed 7 --until \/run\/io.stop/--seed 7 --corrupt 64/; s/passes: {ge: 1}/passes: {ge: 1000000}/${T}step 10 .*mismatches: expected 0, got [1-9][0-9]*; json passes: expected >= 1000000, got 1; json elapsed_ms: expected >= 16000, got [0-9]+
mp-dm-bio-failover${T}s/mode: bio}/mode: bio, no_path: fail}/; /restore_path: {disk: data, path: 0}/d; s/restore_path: {disk: data, path: 1}/restore_path: {disk: data, path: 0}/${T}step 9 .*io_errors: expected 0
mp-all-paths-down${T}s/no_path: queue/no_path: fail/${T}step 1 .*stdout did not match
mp-all-paths-down${T}s| tee /run/io.pid\$| tee /run/none/io.pid|${T}step 2 .*exit: expected 0, got 1
mp-all-paths-down${T}s/no_path: queue/no_path: fail/; /^  - name: dm queues I\/O/,+3d; /^  - name: with no path left/,+1d${T}step 7 .*io_errors: expected 0, got [1-9]
mp-all-paths-down${T}s/--seed 9 --until/--seed 9 --corrupt 64 --until/${T}step 9 .*mismatches: expected 0, got [1-9]
mp-all-paths-down${T}s|^  - wait: 1s\$|${WRITER_DONE}|${T}step 6 .*exit: expected 0, got 1
mp-all-paths-down${T}s|^  - wait: 1s\$|${WRITER_DONE}|; s|^    run: p=\$(tr -dc 0-9 </run/io.pid); a=.*|    run: \"true\"|${T}step 9 .*stall_ms: expected >= 4000, got [0-9]+
mp-all-paths-down-fail${T}s/no_path: fail/no_path: queue/${T}step 6 .*step did not finish within 20s
mp-all-paths-down-fail${T}s| tee /run/io.pid\$| tee /run/none/io.pid|${T}step 2 .*exit: expected 0, got 1
mp-all-paths-down-fail${T}s|^    run: ktb-io write --disk data --bs 4096 --size 32M --seed 4 --gen 1\$|    run: for s in /sys/block/sd*/device/state; do echo offline > \$s; done; ktb-io write --disk data --bs 4096 --size 32M --seed 4 --gen 1|${T}step 1 .*io_errors: expected 0, got [1-9]
mp-all-paths-down-fail${T}s|^    run: sleep 0.5; kill -STOP .*|    run: touch /run/io.stop; while [ ! -f /run/io.json ]; do sleep 0.2; done|${T}step 6 .*io_errors: expected >= 1, got 0; json first_error: expected a string matching /EIO/, got
mp-all-paths-down-fail${T}s|kill -STOP \$(tr -dc 0-9 </run/io.pid)|kill -STOP \$(tr -dc 0-9 </run/none)|${T}step 3 .*exit: expected 0, got [12]
mp-all-paths-down-fail${T}/^  - restore_path: /d${T}step 7 .*io_errors: expected 0, got [1-9]
mp-all-paths-down-fail${T}s/--seed 4 --gen 1\$/--seed 4 --gen 2/; /^  - name: write generation 2/,/^    run: sleep 0.5; kill/d; /^  - name: with no path left/,/^      json: {io_errors: {ge: 1}/d${T}step 6 .*exit: expected 1, got 0; json mismatches: expected >= 1, got 0; json mismatch_kinds\.stale_gen: expected >= 1, got 0
mp-all-paths-down-fail${T}s/--seed 4 --gen 2\$/--seed 4 --gen 2 --corrupt 64/${T}step 9 .*mismatch_kinds\.bad_checksum: expected 0, got [1-9]
mp-all-paths-down-fail${T}s|^  - name: every block is generation 2 or an intact|${wrong3}\n&|${T}step 10 .*mismatch_kinds\.wrong_lba: expected 0, got [1-9][0-9]*; json mismatch_kinds\.zeroed: expected 0, got [1-9][0-9]*; json mismatch_kinds\.foreign: expected 0, got [1-9]
zoned-nvme${T}s/, zoned: {zone_size: 8M}//${T}step 1 .*zoned: expected "host-managed", got "none"; json zones: expected 8, got 0
zoned-nvme${T}s/, zoned: {zone_size: 8M}//; /^  - name: the namespace is host-managed/,+3d${T}step 2 .*exit: expected 1, got 0; json io_errors: expected 1, got 0; json first_error: expected a string matching /EIO/, got
zoned-nvme${T}s/zone_size: 8M/zone_size: 16M/${T}step 1 .*zones: expected 8, got 4
zoned-nvme${T}s/size: 64M, zoned/size: 32M, zoned/${T}step 1 .*zones: expected 8, got 4; json size_bytes: expected 67108864, got 33554432
zoned-nvme${T}s/--offset 0 --size 8M/--offset 4M --size 4M/${T}step 2 .*blocks: expected 2048, got 1024; json io_errors: expected 0, got [1-9][0-9]*; json mismatches: expected 0, got [1-9]
zoned-nvme${T}s/--offset 8M --size 1M --seed 6/--offset 9M --size 1M --seed 6/${T}step 4 .*io_errors: expected 0, got [1-9][0-9]*; json mismatches: expected 0, got [1-9]
EOF_TABLE
exit 0
