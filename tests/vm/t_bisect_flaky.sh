# label: vm
# ktb bisect on real kernels: a flaky regression (it fails on one run of
# two) is missed with one try, which leaves the last kernel "not bad"
# (exit 1), and found with --tries 2; a rung that cannot be tested (a file
# that is no kernel) is skipped and the culprit still named exactly.
. "$(dirname "$0")/bisect_lib.sh"
planted_regression "$work/flaky.yaml" 55 flaky

ktb_run bisect --kernels 6.1.0-54,6.1.0-55,6.1.0-56 --artifacts "$(artifacts)" "$work/flaky.yaml"
expect_rc 1
expect_out 'the last candidate, 6\.1\.0-56, is not bad: the scenario passes on it \(a flaky regression\? try --tries N\)'

ktb_run bisect --tries 2 --kernels 6.1.0-54,6.1.0-55,6.1.0-56 --artifacts "$(artifacts)" \
	"$work/flaky.yaml"
expect_rc 0
expect_out '^ktb bisect: 3 kernels, .*, 2 tries each'
expect_out '^first bad: 6\.1\.0-55 \(last good: 6\.1\.0-54\)$'
expect_out '^step +3 +round 1 +6\.1\.0-55 +bad +[0-9.]+s +2 boots$'
expect_boots_at_most 6

# a rung whose kernel cannot be built into an image is skipped (no boot)
planted_regression "$work/reg.yaml" 54
echo "this is no kernel" >"$work/broken-bzImage"
ktb_run bisect --kernels "6.1.0-50,$work/broken-bzImage,6.1.0-53,6.1.0-54" --json "$work/skip.json" \
	--artifacts "$(artifacts)" "$work/reg.yaml"
expect_rc 0
expect_out "^step +3 +round 1 +$work/broken-bzImage +skip .*could not test: no image could be built"
expect_out '^first bad: 6\.1\.0-54 \(last good: 6\.1\.0-53\)$'
[ "$(verdict_of 6.1.0-53)" = good ] || fail "the neighbour of the skipped rung was not tested"
expect_boots_at_most 3
json_flat "$work/skip.json" | grep -q '"verdict":"skip"' || fail "the JSON has no skipped step"
exit 0
