# label: vm
# Each check a suspend step makes fails, and says why, when what it guards
# is broken.
. "$(dirname "$0")/lib.sh"

must_fail() {
	local file=$1 pattern=$2
	ktb_run run --artifacts "$(artifacts)" "$file"
	[ "$rc" -eq 1 ] || fail "$(basename "$file"): expected exit 1, got $rc"
	expect_out "$pattern"
}

scenario() { # NAME, then the YAML body on stdin
	cat >"$work/$1.yaml"
	echo "$work/$1.yaml"
}

# firmware without S3: the step says the machine does not offer it
must_fail "$(scenario no-s3 <<'YAML'
machine: {cpus: 1, memory: 512M}
steps:
  - suspend: s3
YAML
)" 'the machine does not offer S3'

# a level the kernel refuses for this sleep state: the kernel's reason
must_fail "$(scenario refused <<'YAML'
machine: {cpus: 1, memory: 512M}
steps:
  - {suspend: s2idle, pm_test: core}
YAML
)" 'the kernel refused to suspend: .*(Resource temporarily unavailable|Try again)'

# a wake source that cannot wake: without the button driver, the power button
# does not end s2idle, and the step times out saying the guest never came back
must_fail "$(scenario no-wake <<'YAML'
timeout: 120s
machine: {cpus: 1, memory: 512M}
steps:
  - run: rmmod button
  - {suspend: s2idle, wake: button, after: 1s, timeout: 15s}
YAML
)" 'did not come back after the wake by button'

# a guest that claims it slept: with the firmware fix-up off, the second S3
# write returns 0 but QEMU never sees the machine sleep
export KTB_NO_FIRMWARE_FIXUP=1
must_fail "$(scenario claims <<'YAML'
timeout: 120s
machine: {cpus: 1, memory: 512M, sleep: [s3]}
steps:
  - {suspend: s3, cycles: 2, after: 500ms}
YAML
)" 'cycle 2 of 2: the guest says it suspended .* but QEMU never saw S3'
unset KTB_NO_FIRMWARE_FIXUP

# S4 restore: started again without being told where its image is, the guest
# boots afresh, which the step must notice
export KTB_S4_NO_RESUME=1
must_fail "$KTB_SRC/scenarios/s4-hibernate.yaml" \
	'the guest booted afresh instead of restoring its hibernation image'
unset KTB_S4_NO_RESUME

# idle accounting: a guest kept busy during the "idle" measurement
must_fail "$(mutate idle-accounting '0,/run: ktb-probe idle --interval 2s$/s//run: yes > \/dev\/null \& ktb-probe idle --interval 2s; kill $!/')" \
	'idle_pct: expected >= 90'

# data across S3: a block corrupted before the sleep is named by its LBA
must_fail "$(mutate s3-sata 's/--seed 11 --mode rand$/--seed 11 --mode rand --corrupt 64/')" \
	'mismatches'
result=$(find "$(artifacts)" -path '*/s3-sata-broken/result.json' | sort | tail -1)
tr -d ' \n' <"$result" | grep -q '"mismatched_lbas":\[64' ||
	fail "the corrupted block's LBA is not in $result"
exit 0
