# label: vm
# jobs: 2
# Each check the storage, NUMA and smoke scenarios make fails when what it
# guards is broken: the same scenario files, one thing changed under each
# check (scenario, sed expression, what the failure must say).
. "$(dirname "$0")/lib.sh"
T=$'\t'
mutations <<EOF_TABLE
smoke${T}s/= "\$KTB_KERNEL_RELEASE"/= "6.1.0-0-amd64"/${T}step 1 .*exit: expected 0, got 1
smoke${T}s/ktb.smoke=1"/ktb.smoke=1 maxcpus=1"/${T}step machine .*CPUs online: declared 2, the guest sees 1 \(maxcpus=1 on the command line\?\)
smoke${T}s/ktb.smoke=1"/ktb.smoke=1 mem=300M"/${T}step machine .*memory present \(KiB\): declared 523704..524288, the guest sees 3068[0-9]{2} \(mem=300M on the command line\?\)
smoke${T}/^kernel:/,/ktb.smoke=1/d${T}step 2 .*cmdline: expected a string matching
smoke${T}s/^    run: (sleep 1; echo "ktb smoke marker" > \/dev\/kmsg)/    run: (sleep 1; echo "ktb smoke marker" > \/dev\/kmsg/${T}step 3 .*exit: expected 0, got 2
smoke${T}s/echo "ktb smoke marker"/echo "something else"/${T}step 4 .*the console did not show /ktb smoke marker/
smoke${T}/^  - qmp: query-status\$/i\  - qmp: stop${T}step 6 .*status: expected "running", got "paused".*running: expected true, got false
disk-512e${T}s/sector: 512e/sector: 512n/${T}step 1 .*physical_block_size: expected 4096, got 512
disk-512e${T}s/{id: data, bus: sata, size: 64M, sector: 512e}/{id: data, bus: virtio, size: 32M, sector: 4kn}/${T}step 1 .*logical_block_size: expected 512, got 4096.*size_bytes: expected 67108864, got 33554432
disk-512e${T}s/--size 1M --seed 7 --mode rand\$/--size 512K --seed 7 --mode rand --corrupt 8/${T}step 2 .*blocks: expected 2048, got 1024.*mismatches: expected 0, got [1-9]
numa-2node${T}/^    distances:/s/21/31/g${T}step 1 .*distances: expected
numa-2node${T}s/{cpus: \[0\], memory: 384M}/{cpus: [0, 1], memory: 384M}/; s/{cpus: \[1\], memory: 384M}/{memory: 384M}/${T}step 1 .*nodes\.0\.cpus: expected \[0\], got \[0, ?1\].*nodes\.1\.cpus: expected \[1\], got \[\]
numa-2node${T}/- {cpus: \[0\]/s/384M/256M/; /- {cpus: \[1\]/s/384M/512M/${T}step 1 .*nodes\.0\.memory_mb: expected >= 300, got [0-9]+.*nodes\.1\.memory_mb: expected <= 384, got [0-9]+
numa-2node${T}s/^    distances: .*/    distances: [[10, 21, 21], [21, 10, 21], [21, 21, 10]]/; /- {cpus: \[1\]/s/384M/256M/; /- {cpus: \[1\]/a\      - {memory: 128M}${T}step 1 .*node_count: expected 2, got 3
EOF_TABLE

# the three 4Kn scenarios make the same checks, each on its own bus: a
# smaller 512n disk; the same with the probe step gone, so the 512-byte
# write is step 1 and succeeds; half the blocks written, one corrupted
for bus in virtio scsi nvme; do
	mutations <<EOF_TABLE
disk-4kn-$bus${T}s/size: 64M, sector: 4kn/size: 32M, sector: 512n/${T}step 1 .*logical_block_size: expected 4096, got 512.*physical_block_size: expected 4096, got 512.*size_bytes: expected 67108864, got 33554432
disk-4kn-$bus${T}s/sector: 4kn/sector: 512n/; /ktb-probe disk data/,/physical_block_size/d${T}step 1 .*exit: expected 1, got 0.*io_errors: expected >= 1, got 0.*first_error: expected a string matching /EINVAL/
disk-4kn-$bus${T}s/--size 8M --seed 42 --mode rand\$/--size 4M --seed 42 --mode rand --corrupt 64/${T}step 3 .*blocks: expected 2048, got 1024.*mismatches: expected 0, got [1-9]
EOF_TABLE
done
# ktb-io names the corrupted block by its LBA (the --corrupt 64 row's
# result: no other can name that block)
any_result_of disk-4kn-nvme-broken '"mismatched_lbas":\[64[],]' ||
	fail "the corrupted block's LBA is not in result.json"
exit 0
