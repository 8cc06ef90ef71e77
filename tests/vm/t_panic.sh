# label: vm
# A guest that panics is reported as failed with the panic, long before its
# timeout.
. "$(dirname "$0")/lib.sh"
cat >"$work/panic.yaml" <<'YAML'
name: panic
summary: crashes the kernel through sysrq
timeout: 300s
machine: {cpus: 1, memory: 512M}
steps:
  - run: echo c > /proc/sysrq-trigger
    timeout: 250s
  - run: "true"
YAML
start=$(date +%s)
ktb_run run --artifacts "$(artifacts)" "$work/panic.yaml"
took=$(($(date +%s) - start))
expect_rc 1
expect_out 'Kernel panic - not syncing'
expect_out 'step 1'
[ "$took" -lt 60 ] || fail "took ${took}s: the panic was not noticed at once"
