# label: vm
# Each check the scenario library makes fails when what it guards is broken:
# the same scenario files, with the machine changed under their expectations.
. "$(dirname "$0")/lib.sh"

must_fail() {
	local file=$1 pattern=$2
	ktb_run run --artifacts "$(artifacts)" "$file"
	expect_rc 1
	expect_out "$pattern"
}

# 4Kn checks: a 512n disk must fail the geometry check
must_fail "$(mutate disk-4kn-virtio 's/sector: 4kn/sector: 512n/')" \
	'logical_block_size: expected 4096, got 512'
# the 512-byte O_DIRECT refusal: on a 512n disk (geometry step removed) it is accepted
must_fail "$(mutate disk-4kn-scsi 's/sector: 4kn/sector: 512n/; /ktb-probe disk data/,/physical_block_size/d')" \
	'exit: expected 1, got 0'
# 512e check: a 512n disk must fail on the physical block size
must_fail "$(mutate disk-512e 's/sector: 512e/sector: 512n/')" \
	'physical_block_size: expected 4096, got 512'
# NUMA check: a different distance matrix on the machine
must_fail "$(mutate numa-2node '/^    distances:/s/21/31/g')" 'distances'
# smoke: one CPU instead of two
must_fail "$(mutate smoke 's/cpus: 2/cpus: 1/')" 'online: expected 2, got 1'
# the console wait: the guest never prints the marker
must_fail "$(mutate smoke 's/echo "ktb smoke marker"/echo "something else"/')" \
	'the console did not show /ktb smoke marker/'
# the QMP step's expectation: the VM is running, not paused
must_fail "$(mutate smoke 's/status: running/status: paused/')" 'status: expected "paused"'
# ktb-io verify: a block corrupted on purpose is found, by LBA
must_fail "$(mutate disk-4kn-nvme 's/--mode rand$/--mode rand --corrupt 64/')" 'mismatches'
result=$(find "$(artifacts)" -path '*/disk-4kn-nvme-broken/result.json' | sort | tail -1)
tr -d ' \n' <"$result" | grep -q '"mismatched_lbas":\[64' ||
	fail "the corrupted block's LBA is not in $result"
exit 0
