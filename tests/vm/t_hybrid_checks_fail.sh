# label: vm
# jobs: 2
# Each check the hybrid-drive scenarios make fails, and says why, when what
# it guards is broken (scenario, sed expression, what the failure must say).
# The back end's debug settings break the drive on purpose: ignore_flushes
# acknowledges flushes without writing anything out, fail_writes answers
# writes to a range with an I/O error, fail_reads answers reads from one
# (the io_errors: 0 checks of the steps that read back).
. "$(dirname "$0")/lib.sh"
T=$'\t'
mutations <<EOF_TABLE
hybrid-promotion${T}s/promote_after: 1}/promote_after: 255}/${T}step 2 .*p50_speedup: expected >= 5
hybrid-promotion${T}s/, p50_speedup: {ge: 5}//; s/promote_after: 1}/promote_after: 255}/${T}step 3 .*hits: expected >= 128, got [0-9]+.*promotions: expected >= 128, got 0
hybrid-promotion${T}s/promote_after: 1}/promote_after: 1, fail_writes: 1M+64K}/${T}step 1 .*io_errors: expected 0
hybrid-promotion${T}s/verify --disk data --bs 64K --size 8M --seed 5 /verify --disk data --bs 64K --size 8M --seed 6 /${T}step 2 .*mismatches: expected 0, got [1-9]
hybrid-power-loss${T}s/write_cache: 8M}/write_cache: 8M, fail_writes: 1M+64K}/${T}step 1 .*io_errors: expected 0, got [1-9]
hybrid-power-loss${T}s/write_cache: 8M}/write_cache: 8M, fail_writes: 17M+64K}/${T}step 2 .*io_errors: expected 0, got [1-9]
hybrid-power-loss${T}s/write_cache: 8M}/write_cache: 8M, ignore_flushes: true}/${T}step 4 .*mismatches: expected 0
hybrid-power-loss${T}s/write_cache: 8M}/write_cache: 0}/${T}step 3 .*lost_blocks: expected >= 512, got 0
hybrid-power-loss${T}s/--offset 16M --seed 8\$/--offset 16M --seed 8 --fsync/; s/lost_blocks: {ge: 512}/lost_blocks: {ge: 0}/${T}step 5 .*exit: expected 1, got 0.*mismatch_kinds\.zeroed: expected 512, got
hybrid-s3${T}s/sector: 512e/sector: 512n/${T}step 1 .*physical_block_size: expected 4096, got 512
hybrid-s3${T}s/sector: 512e/sector: 4kn/${T}step 1 .*logical_block_size: expected 512, got 4096
hybrid-s3${T}s/cache: 16M}/cache: 16M, fail_writes: 1M+64K}/${T}step 2 .*io_errors: expected 0, got [1-9]
hybrid-s3${T}${NO_S3}${T}step 3 .*does not offer S3
hybrid-s3${T}s/--seed 31 --mode rand/--seed 33 --mode rand/${T}step 4 .*mismatches: expected 0
hybrid-s3${T}s/cache: 16M}/cache: 16M, fail_writes: 32M+64K}/${T}step 5 .*io_errors: expected 0
hybrid-s3${T}s/--offset 32M --seed 32 --fsync\$/--offset 32M --seed 32 --fsync --corrupt 65600/${T}step 5 .*mismatches: expected 0, got [1-9]
s3-io-integrity${T}s/{id: data, bus: nvme, size: 128M, sector: 4kn}/{id: data, bus: hybrid, size: 128M, sector: 4kn, hybrid: {cache: 16M, fail_writes: 8M+64K}}/${T}step 3 .*io_errors: expected 0
s3-sata${T}s/{id: data, bus: sata, size: 64M, sector: 512e}/{id: data, bus: hybrid, size: 64M, sector: 512e, hybrid: {cache: 16M, fail_writes: 4M+64K}}/${T}step 1 .*io_errors: expected 0
s3-sata${T}s/{id: data, bus: sata, size: 64M, sector: 512e}/{id: data, bus: hybrid, size: 64M, sector: 512e, hybrid: {cache: 16M, fail_writes: 40M+64K}}/${T}step 4 .*io_errors: expected 0, got [1-9]
hybrid-power-loss${T}s/write_cache: 8M}/write_cache: 8M, fail_reads: 1M+64K}/${T}step 4 .*io_errors: expected 0, got [1-9]
hybrid-promotion${T}s/promote_after: 1}/promote_after: 1, fail_reads: 1M+64K}/${T}step 2 .*io_errors: expected 0, got [1-9]
hybrid-s3${T}s/cache: 16M}/cache: 16M, fail_reads: 1M+64K}/${T}step 4 .*io_errors: expected 0, got [1-9]
s3-io-integrity${T}s/{id: data, bus: nvme, size: 128M, sector: 4kn}/{id: data, bus: hybrid, size: 128M, sector: 4kn, hybrid: {cache: 16M, fail_reads: 8M+64K}}/${T}step 4 .*io_errors: expected 0, got [1-9]
s3-sata${T}s/{id: data, bus: sata, size: 64M, sector: 512e}/{id: data, bus: hybrid, size: 64M, sector: 512e, hybrid: {cache: 16M, fail_reads: 4M+64K}}/${T}step 3 .*io_errors: expected 0, got [1-9]
disk-512e${T}s/{id: data, bus: sata, size: 64M, sector: 512e}/{id: data, bus: hybrid, size: 64M, sector: 512e, hybrid: {cache: 16M, fail_writes: 512K+64K}}/${T}step 2 .*io_errors: expected 0, got [1-9]
EOF_TABLE

# the 4Kn scenarios' last step, on a 4Kn hybrid drive that fails writes
for bus in virtio scsi nvme; do
	mutations <<EOF_TABLE
disk-4kn-$bus${T}s/{id: data, bus: $bus, size: 64M, sector: 4kn}/{id: data, bus: hybrid, size: 64M, sector: 4kn, hybrid: {cache: 16M, fail_writes: 4M+64K}}/${T}step 3 .*io_errors: expected 0, got [1-9]
EOF_TABLE
done

# the power loss reports the lost blocks in result.json's metrics too
any_result_of hybrid-power-loss-broken '"hybrid_lost_blocks":' ||
	fail "result.json has no hybrid_lost_blocks metric"
exit 0
