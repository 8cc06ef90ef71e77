# label: vm
# jobs: 2
# The scenarios that run the community's tools in a Debian root fail, and
# say where, when what they check is broken (scenario, sed expression,
# what the failure must say). fio-multipath-verify: a fio that cannot
# start; each path pull and restore that the guest does not show (the
# controller already gone; hot-plug events off: acpiphp's GPE); blocks
# changed under fio's verification; a fio that ended before the pulls (it
# runs 10 s: alive at step 1's look 5 s in, its job_runtime short of the
# 16 s that two 8 s outages take); one
# that verified nothing; one that wrote nothing. nvme-4kn-format: a
# 512-byte namespace (nvme-cli's format, then mkfs.xfs's sector size); a
# file system that cannot be written; a guest without S3 (acpi=off); a
# file changed behind its back before
# the S3 (seen when read back from the disk after the wake); one written
# after the wake and changed before the remount.
. "$(dirname "$0")/lib.sh"
T=$'\t'
F=fio-multipath-verify
N=nvme-4kn-format

mutations <<EOF_TABLE
$F${T}s/--verify=crc32c/--verify=ktb-none/${T}step 1 .*exit: expected 0, got 1
$F${T}s/^  - fail_path: {disk: data, path: 0}\$/  - run: echo 1 > \/sys\/class\/nvme\/nvme0\/device\/remove; sleep 2\n&/${T}step 3 .*before fail_path of path 0: the guest shows no such path
$F${T}s/^  - restore_path: {disk: data, path: 0}\$/  - run: echo disable > \/sys\/firmware\/acpi\/interrupts\/gpe01\n&\n    timeout: 8s/${T}step 5 .*the guest never showed path 0 of data back and active
$F${T}s/^  - fail_path: {disk: data, path: 1}\$/  - run: echo 1 > \/sys\/class\/nvme\/nvme1\/device\/remove; sleep 2\n&/${T}step 6 .*before fail_path of path 1: the guest shows no such path
$F${T}s/^  - restore_path: {disk: data, path: 1}\$/  - run: echo disable > \/sys\/firmware\/acpi\/interrupts\/gpe01\n&\n    timeout: 8s/${T}step 8 .*the guest never showed path 1 of data back and active
$F${T}s/echo \$! >\/run\/fio.pid;/echo \$! >\/run\/fio.pid; (sleep 10; dd if=\/dev\/urandom of=\/dev\/ktb\/data bs=1M count=16 oflag=direct) \&/${T}step 8 .*jobs\.0\.total_err: expected 0, got [1-9]
$F${T}s/--runtime=1h/--runtime=10s/; s/kill -0 "\$pid" \&\& kill -INT/kill -INT/; s/kill -INT "\$pid" \&\&/{ kill -INT "\$pid"; true; } \&\&/${T}step 8 .*jobs\.0\.job_runtime: expected >= 16000
$F${T}s/ --verify=crc32c --verify_backlog=64//${T}step 8 .*jobs\.0\.read\.io_bytes: expected > 0, got 0
$F${T}s/--rw=randwrite/--rw=randread/; s/ --verify=crc32c --verify_backlog=64//${T}step 8 .*jobs\.0\.write\.io_bytes: expected > 0, got 0
$N${T}s/sector: 4kn/sector: 512n/${T}step 1 .*stdout
$N${T}s/sector: 4kn/sector: 512n/; s/lbads:12/lbads:9/${T}step 2 .*stdout
$N${T}s/ mount \/dev\/ktb\/data \/mnt\/x \&\& head/ mount -o ro \/dev\/ktb\/data \/mnt\/x \&\& head/${T}step 3 .*exit: expected 0, got [1-9]
$N${T}${NO_S3}${T}step 4 .*does not offer S3
$N${T}s/>\/run\/f.sum \&\& sync/>\/run\/f.sum \&\& dd if=\/dev\/zero of=\/mnt\/x\/f bs=4k count=1 conv=notrunc \&\& sync/${T}step 5 .*stdout
$N${T}s/>>\/run\/f.sum \&\& umount/>>\/run\/f.sum \&\& dd if=\/dev\/zero of=\/mnt\/x\/g bs=4k count=1 conv=notrunc \&\& umount/${T}step 6 .*stdout
EOF_TABLE
exit 0
