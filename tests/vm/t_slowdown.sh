# label: own-kernel
# jobs: 2
# A real slowdown, found by number: the minimal kernel (minimal_kernel.sh)
# and the same kernel with rtc-cmos's resume sleeping 300 ms first
# (slowed_kernel: one file changed in its build tree), behind a planted git
# history (c1, c2 the minimal kernel; c3 the slowdown; c4 after it) whose
# build command lays the commit's kernel down, as t_bisect_git.sh plants
# its history. `ktb bisect --git --metric resume_ms` names c3, and `ktb
# compare` of the two ends' run documents names resume_ms slower because
# of rtc_cmos's resume callback. It runs alone (jobs: 2): the ends are
# timed first and the candidates after them (docs/bisect.md).
. "$(dirname "$0")/bisect_lib.sh"
. "$(dirname "$0")/minimal_kernel.sh"
lib=$KTB_SRC/scenarios

base=$(MINIMAL_KERNEL_TREE=1 minimal_kernel "$KTB" "$lib") || fail "could not build the minimal kernel"
slow=$(slowed_kernel "$KTB" "$lib" 300) || fail "could not build the slowed kernel"
export KROOT=$work/kernels
mkdir -p "$KROOT"
ln -s "$base" "$KROOT/base"
ln -s "$slow" "$KROOT/slow"

cat >"$work/resume.yaml" <<'YAML'
name: resume-time
summary: one S3 cycle woken by QMP; its resume time and each device's callbacks are the metrics
timeout: 90s
machine: {cpus: 1, memory: 256M, sleep: [s3]}
steps:
  - suspend: s3
    wake: qmp
    after: 200ms
YAML

repo=$work/repo
planted_history "$repo" 'bzImage\nconfig\n' base:"change 1" base:"change 2" \
	slow:"rtc-cmos: sleep 300 ms in resume" slow:"change 4"
# shellcheck disable=SC2016 # expanded by the build's own shell
build='cp "$KROOT/$(cat kernel)/bzImage" bzImage && cp "$KROOT/$(cat kernel)/config" config'

# --threshold 20%: above the drift a host's load can bring between the ends'
# runs and a candidate's (docs/bisect.md); the slowdown is far larger
ktb_run bisect --git "$repo" --good c1 --bad c4 --build "$build" --kernel bzImage \
	--metric resume-time:resume_ms --threshold 20% --json "$work/bisect.json" \
	--artifacts "$(artifacts)" "$work/resume.yaml"
expect_rc 0
expect_out "^first bad: $(git -C "$repo" rev-parse --short c3) rtc-cmos: sleep 300 ms in resume$"
expect_out '^ +resume_ms:( [0-9]+){5} \(median [0-9]+; x[0-9.]+ of the good end, p [0-9.e-]+; x[0-9.]+ of the bad end, p [0-9.e-]+\)$'
json_flat "$work/bisect.json" | grep -q "\"first_bad\":\"$(git -C "$repo" rev-parse c3)\"" ||
	fail "the JSON does not name c3"

# the two kernels compared, eight runs each, side by side (the host's load
# on both alike): the metric and the device. Eight, not the bisection's
# five: an S3 step brings some 40 device callbacks, Holm's correction
# multiplies the smallest p by their number, and five a side (smallest p
# 2/252) cannot stay under 0.05 over more than 6 comparisons; eight
# (2/12870) can over 300 (docs/results.md)
"$KTB" run --repeat 8 --kernel "$base/bzImage" --json "$work/base.json" --artifacts "$(artifacts)" \
	"$work/resume.yaml" >"$work/base.out" 2>&1 &
"$KTB" run --repeat 8 --kernel "$slow/bzImage" --json "$work/slow.json" --artifacts "$(artifacts)" \
	"$work/resume.yaml" >"$work/slow.out" 2>&1
wait $! || { cat "$work/base.out"; fail "the runs of the minimal kernel did not all pass"; }
grep -q '^summary: 8 passed, 0 failed$' "$work/slow.out" ||
	{ cat "$work/slow.out"; fail "the runs of the slowed kernel did not all pass"; }
ktb_run compare "$work/base.json" "$work/slow.json"
expect_rc 1
expect_out '^resume-time +resume_ms .* slower$'
# the device's callback as the minimal kernel prints it: an address, as it
# has no kallsyms (pnp_bus_resume's, the same in both: pnp links before rtc)
expect_out 'because: step 1 resume: rtc_cmos [0-9a-f:.]+ (pnp_bus_resume|0x[0-9a-f]+)$'
expect_out '^resume-time +step 1 resume: rtc_cmos [0-9a-f:.]+ (pnp_bus_resume|0x[0-9a-f]+) .* slower$'
exit 0
