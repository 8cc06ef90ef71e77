# label: vm
# jobs: 2
# ktb bisect --kernels over a ladder of seven real Debian kernels with a
# regression planted from 6.1.0-54 on: plain bisection finds it within
# ceil(log2 7) + 2 = 5 boots, multisection (-j 3) in fewer rounds, and a
# ladder whose first rung already fails is refused with exit 1. SIGTERM
# mid-bisect stops every candidate's VM and leaves nothing behind.
. "$(dirname "$0")/bisect_lib.sh"
ladder=6.1.0-47,6.1.0-50,6.1.0-53,6.1.0-54,6.1.0-55,6.1.0-56,6.1.0-57
planted_regression "$work/reg.yaml" 54

ktb_run bisect --kernels "$ladder" --json "$work/plain.json" --artifacts "$(artifacts)" "$work/reg.yaml"
expect_rc 0
expect_out '^first bad: 6\.1\.0-54 \(last good: 6\.1\.0-53\)$'
expect_out '^step +1 +round 0 +6\.1\.0-47 +good +[0-9.]+s +1 boot$'
expect_out '^step +2 +round 0 +6\.1\.0-57 +bad '
expect_boots_at_most 5
[ "$(verdict_of 6.1.0-54)" = bad ] || fail "6.1.0-54 was not tested bad"
[ "$(verdict_of 6.1.0-53)" = good ] || fail "6.1.0-53 was not tested good"
json_flat "$work/plain.json" | grep -q '"exit":0,"first_bad":"6.1.0-54","jobs":2,"last_good":"6.1.0-53"' ||
	fail "the JSON does not name 6.1.0-54 as the first bad kernel"
plain_rounds=$(json_flat "$work/plain.json" | grep -o '"rounds":[0-9]*' | cut -d: -f2)

# -j 3: two candidates a round; the same culprit in fewer rounds
ktb_run bisect -j 3 --kernels "$ladder" --json "$work/multi.json" --artifacts "$(artifacts)" \
	"$work/reg.yaml"
expect_rc 0
expect_out '^ktb bisect: 7 kernels, .*, 2 at a time'
expect_out '^first bad: 6\.1\.0-54 '
expect_out '^step +[34] +round 1 .*$'
multi_rounds=$(json_flat "$work/multi.json" | grep -o '"rounds":[0-9]*' | cut -d: -f2)
[ "$multi_rounds" -lt "$plain_rounds" ] ||
	fail "multisection took $multi_rounds rounds, plain bisection $plain_rounds"
expect_boots_at_most 6

# the endpoints are checked first: a first kernel that fails is an error
ktb_run bisect --kernels 6.1.0-55,6.1.0-57 --artifacts "$(artifacts)" "$work/reg.yaml"
expect_rc 1
expect_out 'the first candidate, 6\.1\.0-55, is not good: the scenario fails on it'
expect_boots_at_most 1

# SIGTERM while two candidates boot: exit 130, no QEMU, no temporary file
mkdir "$work/tmp"
TMPDIR=$work/tmp "$KTB" bisect -j 3 --kernels 6.1.0-53,6.1.0-54 --artifacts "$(artifacts)" \
	"$work/reg.yaml" >"$out" 2>&1 &
ktb_pid=$!
wait_qemus 2 "$work/tmp" || fail "the candidates' QEMUs never started"
sleep 1
stop_clean "$ktb_pid" "$work/tmp"
exit 0
