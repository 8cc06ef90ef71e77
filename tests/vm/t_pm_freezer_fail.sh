# label: vm
# jobs: 2
# pm-freezer-fail's checks fail, and say why, when what they guard is
# broken: without refused: the step reports the freezer's failure apart from
# other refusals, naming the task, in its message and its data; with no task
# stuck the kernel does not refuse and refused: fails; a shorter freeze
# timeout, a second stuck writer, a cleared kernel log each show in the
# refused step's data or the log check; with no path restored the next S3
# fails to freeze; corrupted data are seen after the next S3. The writer
# run under another name (a link to ktb-io) is named so in the refused
# step's data; the row also asks for state S there, so that the message
# shows the state the guest reported (D: no cause puts a task that refuses
# to freeze in another state). No path lost (no_path: fail) leaves no writer
# in D state; dm told to fail what it queued (fail_if_no_path) lets the
# writer finish before the check that it still waits, and, instead of the
# paths coming back, gives it I/O errors.
. "$(dirname "$0")/lib.sh"
T=$'\t'

must_fail "$(mutate pm-freezer-fail '/^    refused: freezing$/d')" \
	'step 7 .*freezing failed: 1 task refusing to freeze after [0-9.]+ s: ktb-io \(pid [0-9]+, state D\)'
tr -d ' \n' <"$(result_of pm-freezer-fail-broken)" |
	grep -q '"freezing_failed":{"aborted":false,"after_s":[0-9.]*,"refusing":1,"tasks":\[{"name":"ktb-io"' ||
	fail "the failed step's data do not name the task in freezing_failed"

mutations <<EOF_TABLE
pm-freezer-fail${T}s|echo 2000 > /sys/power/pm_freeze_timeout|echo -2000 > /sys/power/pm_freeze_timeout|${T}step 1 .*exit: expected 0, got [12]
pm-freezer-fail${T}s/| tee \/run\/io.pid\$/| tee \/run\/none\/io.pid/${T}step 2 .*exit: expected 0, got 1
pm-freezer-fail${T}/path: 1}\$/d; /name: with no path left/,/stdout:/d${T}step 5 .*the kernel did not refuse: the guest suspended and resumed
pm-freezer-fail${T}s/echo 2000 > /echo 1000 > /${T}step 7 .*freezing_failed\.after_s: expected >= 2, got [01][.0-9]*; json cycles\.0\.cycle_ms: expected >= 2000, got [0-9]+
pm-freezer-fail${T}/^  - wait: 1s\$/i\  - run: ktb-io rw --disk data --bs 4096 --size 4M --offset 32M --seed 10 --until /run/io2.stop --background --report /run/io2.json${T}step 8 .*freezing_failed\.refusing: expected 1, got 2
pm-freezer-fail${T}/^  - name: the kernel's log names the task that refused\$/i\  - run: dmesg -c > /dev/null${T}step 9 .*stdout did not match /task:ktb-io \+state:D/
pm-freezer-fail${T}/^  - restore_path:/d${T}step 10 .*freezing failed: 1 task refusing to freeze
pm-freezer-fail${T}s/--seed 9 --until/--seed 9 --corrupt 64 --until/${T}step 13 .*mismatches
pm-freezer-fail${T}s/no_path: queue/no_path: fail/${T}step 6 .*stdout did not match /\^D\\$/
pm-freezer-fail${T}s|run: ktb-io rw --disk data|run: ln -s \$(command -v ktb-io) /run/kio; /run/kio rw --disk data|; s/freezing_failed.tasks.0.state: D/freezing_failed.tasks.0.state: S/${T}step 7 .*freezing_failed\.tasks\.0\.name: expected "ktb-io", got "kio"; json freezing_failed\.tasks\.0\.state: expected "S", got "D"
pm-freezer-fail${T}s/^  - name: the system keeps running, the writer still waiting\$/  - run: touch \/run\/io.stop; dmsetup message ktb-data 0 fail_if_no_path; while [ ! -f \/run\/io.json ]; do sleep 0.2; done\n&/${T}step 10 .*exit: expected 0, got 1; stdout did not match /\^D\\$/
pm-freezer-fail${T}/^  - restore_path: /d; s/^  - name: with a path back, the next S3 succeeds\$/  - run: dmsetup message ktb-data 0 fail_if_no_path\n&/${T}step 12 .*io_errors: expected 0, got [1-9]
EOF_TABLE
exit 0
