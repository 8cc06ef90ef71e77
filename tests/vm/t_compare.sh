# label: vm
# jobs: 2
# ktb compare on real runs of the Debian kernel, five a side, the two sides
# of each comparison run at once so the host's load falls on both alike:
# the kernel against itself reports no regression (exit 0); against itself
# with boot_delay=1 on its command line (the kernel busy-waits after each
# boot message it prints: under TCG a boot of about 2.5 s takes about 13)
# boot_ms is slower (exit 1), and the HTML page plots that metric's
# samples. (boot_delay=3 loglevel=8 made each boot 35 s: 2.5 minutes of CI
# for the same finding.)
. "$(dirname "$0")/lib.sh"
cat >"$work/boot.yaml" <<'YAML'
name: boot-time
summary: boots and answers; boot_ms is the metric
timeout: 90s
machine: {cpus: 1, memory: 256M}
steps:
  - run: "true"
YAML

# side_by_side NAME1 NAME2 [ARGS]: `ktb run --repeat 5` of the scenario as
# NAME1 and as NAME2 at once, NAME2's with kernel arguments ARGS
side_by_side() {
	"$KTB" run --repeat 5 --json "$work/$1.json" --artifacts "$(artifacts)" "$work/boot.yaml" \
		>"$work/$1.out" 2>&1 &
	"$KTB" run --repeat 5 --json "$work/$2.json" --artifacts "$(artifacts)" \
		${3:+--append "$3"} "$work/boot.yaml" >"$work/$2.out" 2>&1
	wait $! || { cat "$work/$1.out"; fail "the runs of $1 did not all pass"; }
	grep -q '^summary: 5 passed, 0 failed$' "$work/$2.out" ||
		{ cat "$work/$2.out"; fail "the runs of $2 did not all pass"; }
}

side_by_side base same
ktb_run compare "$work/base.json" "$work/same.json"
expect_rc 0
expect_out '^boot-time +boot_ms .* no change$'

side_by_side plain delayed "boot_delay=1"
ktb_run compare "$work/plain.json" "$work/delayed.json" --html "$work/compare.html"
expect_rc 1
expect_out '^boot-time +boot_ms .* slower$'
grep -q '<svg' "$work/compare.html" || fail "the HTML page plots no samples"
grep -q 'boot_ms' "$work/compare.html" || fail "the HTML page does not name boot_ms"
exit 0
