# label: vm
# pm-freezer-fail's checks fail, and say why, when what they guard is
# broken: without refused: the step reports the freezer's failure apart from
# other refusals, naming the task, in its message and its data; with no task
# stuck the kernel does not refuse and refused: fails; corrupted data are
# seen after the next S3.
. "$(dirname "$0")/lib.sh"
T=$'\t'

must_fail "$(mutate pm-freezer-fail '/^    refused: freezing$/d')" \
	'step 7 .*freezing failed: 1 task refusing to freeze after [0-9.]+ s: ktb-io \(pid [0-9]+, state D\)'
tr -d ' \n' <"$(result_of pm-freezer-fail-broken)" |
	grep -q '"freezing_failed":{"aborted":false,"after_s":[0-9.]*,"refusing":1,"tasks":\[{"name":"ktb-io"' ||
	fail "the failed step's data do not name the task in freezing_failed"

mutations <<EOF_TABLE
pm-freezer-fail${T}/path: 1}\$/d; /name: with no path left/,/stdout:/d${T}step 5 .*the kernel did not refuse: the guest suspended and resumed
pm-freezer-fail${T}s/--seed 9 --until/--seed 9 --corrupt 64 --until/${T}step 13 .*mismatches
EOF_TABLE
exit 0
