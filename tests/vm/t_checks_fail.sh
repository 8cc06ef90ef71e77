# label: vm
# Each check the storage, NUMA and smoke scenarios make fails when what it
# guards is broken: the same scenario files, one thing changed under each
# check (scenario, sed expression, what the failure must say).
. "$(dirname "$0")/lib.sh"
T=$'\t'
mutations <<EOF_TABLE
smoke${T}s/= "\$KTB_KERNEL_RELEASE"/= "6.1.0-0-amd64"/${T}step 1 .*exit: expected 0, got 1
smoke${T}s/ktb.smoke=1"/ktb.smoke=1 maxcpus=1"/${T}step machine .*CPUs online: declared 2, the guest sees 1 \(maxcpus=1 on the command line\?\)
smoke${T}s/ktb.smoke=1"/ktb.smoke=1 mem=300M"/${T}step machine .*memory present \(KiB\): declared 523704..524288, the guest sees 3068[0-9]{2} \(mem=300M on the command line\?\)
smoke${T}/^kernel:/,/ktb.smoke=1/d${T}cmdline: expected a string matching
smoke${T}s/echo "ktb smoke marker"/echo "something else"/${T}the console did not show /ktb smoke marker/
smoke${T}s/status: running/status: paused/${T}status: expected "paused"
disk-512e${T}s/sector: 512e/sector: 512n/${T}physical_block_size: expected 4096, got 512
disk-512e${T}s/--mode rand\$/--mode rand --corrupt 8/${T}mismatches
numa-2node${T}/^    distances:/s/21/31/g${T}distances: expected
numa-2node${T}s/{cpus: \[0\], memory: 384M}/{cpus: [0, 1], memory: 384M}/; s/{cpus: \[1\], memory: 384M}/{memory: 384M}/${T}nodes.0.cpus: expected
numa-2node${T}/- {cpus: \[0\]/s/384M/256M/; /- {cpus: \[1\]/s/384M/512M/${T}memory_mb: expected
numa-2node${T}s/^    distances: .*/    distances: [[10, 21, 21], [21, 10, 21], [21, 21, 10]]/; /- {cpus: \[1\]/s/384M/256M/; /- {cpus: \[1\]/a\      - {memory: 128M}${T}node_count: expected 2, got 3
EOF_TABLE

# the three 4Kn scenarios make the same three checks, each on its own bus
for bus in virtio scsi nvme; do
	mutations <<EOF_TABLE
disk-4kn-$bus${T}s/sector: 4kn/sector: 512n/${T}logical_block_size: expected 4096, got 512
disk-4kn-$bus${T}s/sector: 4kn/sector: 512n/; /ktb-probe disk data/,/physical_block_size/d${T}exit: expected 1, got 0
disk-4kn-$bus${T}s/--mode rand\$/--mode rand --corrupt 64/${T}mismatches
EOF_TABLE
done
# ktb-io names the corrupted block by its LBA
tr -d ' \n' <"$(result_of disk-4kn-nvme-broken)" | grep -q '"mismatched_lbas":\[64' ||
	fail "the corrupted block's LBA is not in result.json"
exit 0
