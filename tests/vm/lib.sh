# Shared by the VM test scripts: run ktb, capture its output and exit code,
# and assert on them with messages that say what was expected.
set -uo pipefail
: "${KTB:?set KTB to the ktb binary}" "${KTB_SRC:?set KTB_SRC to the source tree}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ktb-vmtest-XXXXXX")
# when this test began: what it made in the shared artifacts is newer
touch "$work/.start"
out=$work/out.txt
rc=0

# In the sanitizer build (CTest sets ASAN_OPTIONS), every process that
# inherits this environment -- ktb, its -j workers and its guardian, which
# end with _exit and whose output nobody reads, and the ktb runs a bisect's
# judge starts -- writes its sanitizer reports (leaks included) to
# $work/san/report.PID rather than to a stderr nobody may see.
san=$work/san
if [ -n "${ASAN_OPTIONS:-}" ]; then
	mkdir -p "$san"
	export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$san/report"
fi

# A sed expression for mutation rows (tests/lint/check_coverage.py reads the
# assignments here too): the guest without S3 on a machine that declares it
# (the loader refuses a suspend: s3 on one that does not): ACPI off, the
# machine step told not to check sleep; notsc, as without ACPI's timers the
# kernel calibrates the TSC against the PIT, which under TCG made its clock
# run about 10 times fast (an RCU stall 26 s into a 3 s boot). The suspend
# step's own check then says the guest does not offer S3.
NO_S3='s/^machine:$/kernel: {cmdline: acpi=off notsc}\n&/; s/^  sleep: \[s3/  unverified: [sleep]\n&/'

# virtiofs_here: 0 when virtiofsd can serve on this host (ktb doctor
# --probe asks a throwaway one over vhost-user); else 1, saying why. Where it
# cannot (a chroot: virtiofsd's sandbox needs / to be a mount point), ktb
# skips what asks for virtiofs (exit 125, naming virtiofsd's error); the
# tests then leave their virtiofs cases out, named, and run the rest.
# only_virtiofs_skips: the last ktb run exited 125 and every scenario of
# it that did not pass ($out) is a skip because virtiofsd cannot serve here.
only_virtiofs_skips() {
	[ "$rc" -eq 125 ] && grep -qE '^SKIP .*virtiofsd cannot serve here' "$out" &&
		! grep -E '^(SKIP|FAIL|ERROR|TIMEOUT) ' "$out" | grep -qv 'virtiofsd cannot serve here'
}

virtiofs_here() {
	local line
	line=$("$KTB" doctor --probe 2>&1 | grep -E '^ +virtiofsd ')
	case $line in *": serves "*) return 0 ;; esac
	echo "note: virtiofsd cannot serve on this host (${line#*virtiofsd }); its cases are left out" >&2
	return 1
}

# sanitizer_reports: print each report written so far; 0 when there was one.
sanitizer_reports() {
	local f found=1
	for f in "$san"/report.*; do
		[ -e "$f" ] || continue
		echo "--- sanitizer report ${f##*/} ---" >&2
		cat "$f" >&2
		found=0
	done
	return $found
}

# lib_cpu: the CPU seconds (user and system) this test used, its own and
# every process it waited for (ktb, and through ktb its QEMUs and helpers),
# on stderr; with KTB_TEST_CPU_LOG set, also a line "SECONDS NAME" appended
# to that file. CPU, not wall time, is what a CI machine's cores run out
# of: the sum over a run is its floor on a machine of N cores (sum / N).
lib_cpu() {
	local u s cu cs total
	# not in $( ): a subshell's times are its own
	times >"$work/.times"
	read -r u s cu cs <<<"$(tr '\n' ' ' <"$work/.times")"
	total=$(for v in "$u" "$s" "$cu" "$cs"; do
		v=${v%s}
		echo "${v%%m*} ${v#*m}"
	done | awk '{ sum += $1 * 60 + $2 } END { printf "%.1f", sum }')
	echo "cpu: ${total} s (user and system, with every process waited for)" >&2
	[ -z "${KTB_TEST_CPU_LOG:-}" ] ||
		echo "$total ${KTB_TEST_NAME:-$(basename "$0" .sh)}" >>"$KTB_TEST_CPU_LOG"
}

# lib_exit [STATUS]: the end of every test (the EXIT trap): a sanitizer
# report from any process fails it, then the work folder goes. A script
# with its own EXIT trap ends it with lib_exit "$st", st being the $? the
# trap started with; a fail() seen fails the test whatever STATUS says (a
# trap that ran a command first would hand over that command's 0).
lib_exit() {
	local st=${1:-$?}

	[ -z "${lib_failed:-}" ] || st=1
	lib_cpu
	if sanitizer_reports; then
		echo "FAIL: a process leaked memory or failed a sanitizer check (reports above)" >&2
		st=1
	fi
	rm -rf "$work"
	exit "$st"
}
trap lib_exit EXIT

fail() {
	lib_failed=1
	echo "FAIL: $*" >&2
	echo "--- ktb output ---" >&2
	cat "$out" >&2 2>/dev/null || true
	exit 1
}

# ktb_run ARGS...: run ktb, keep stdout+stderr in $out and the status in $rc.
ktb_run() {
	rc=0
	"$KTB" "$@" >"$out" 2>&1 </dev/null || rc=$?
}

# split ARGS...: as ktb_run, with ktb's standard output in $so and its
# standard error in $se as well (both also in $out)
so=$work/stdout
se=$work/stderr
split() {
	rc=0
	"$KTB" "$@" >"$so" 2>"$se" </dev/null || rc=$?
	cat "$so" "$se" >"$out"
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "expected exit $1, got $rc"
}

expect_out() {
	grep -Eq -- "$1" "$out" || fail "output does not match /$1/"
}

# mutate SRC SED-EXPR: a copy of scenario SRC with one change, in $work.
# The renamed copy is compared with the mutant: an expression whose address
# no longer matches (a step renamed) would otherwise run SRC unchanged.
mutate() {
	local src=$KTB_SRC/scenarios/$1.yaml dst=$work/$1-broken.yaml
	sed -e "s/^name: $1\$/name: $1-broken/" "$src" >"$dst.renamed"
	sed -e "$2" "$dst.renamed" >"$dst"
	cmp -s "$dst.renamed" "$dst" && fail "mutation '$2' changed nothing in $src"
	echo "$dst"
}

artifacts() {
	echo "${KTB_TEST_ARTIFACTS:-$work/artifacts}"
}

# steps_seen FILE: each step of the newest result of scenario file FILE, with
# the data it judged, on stderr: why a mutant passed, when one does.
steps_seen() {
	local r
	r=$(result_of "$(sed -n 's/^name: //p' "$1" | head -1)")
	[ -n "$r" ] || return 0
	echo "--- steps of $r ---" >&2
	python3 -c 'import json,sys
for s in json.load(open(sys.argv[1]))["steps"]:
    print(s["status"], s["name"], json.dumps(s["data"])[:400])' "$r" >&2
}

# must_fail FILE PATTERN: ktb run on FILE exits 1 and its output matches PATTERN.
# A mutant that passes fails the test at once: the check did not see what
# it guards broken (the steps' data are shown). One that fails for another
# reason (a boot slowed past a timeout on a loaded machine) is run once
# more, the first output shown.
must_fail() {
	local try

	for try in 1 2; do
		ktb_run run --artifacts "$(artifacts)" "$1"
		[ "$rc" -ne 0 ] || {
			steps_seen "$1"
			fail "$(basename "$1"): expected exit 1, got 0 (the check passed)"
		}
		[ "$rc" -eq 1 ] && grep -Eq -- "$2" "$out" && return 0
		[ "$try" -eq 2 ] && break
		echo "note: $(basename "$1"): exit $rc without /$2/; running it again" >&2
		sed 's/^/  | /' "$out" >&2
	done
	[ "$rc" -eq 1 ] || fail "$(basename "$1"): expected exit 1, got $rc"
	expect_out "$2"
}

# KTB_ROW_JOBS: how many mutants run at once (default 3) in a test that
# holds both CPUs (jobs: 2). Three, not two: a mutant's VM spends much of
# its run computing nothing (QEMU starting, a suspended guest, a step's
# sleep or timeout, a disk's I/O), and at two the mutation tests kept 1.1
# to 1.8 of the two CPUs busy; at three the thirteen of them took 1760 s,
# not 1921, every mutant failing as at two. One that fails otherwise (a
# boot slowed past a timeout by the load) runs again alone.
row_jobs=${KTB_ROW_JOBS:-3}

# mutations: read "SCENARIO<TAB>SED<TAB>PATTERN" lines and require each
# mutant to fail with PATTERN. The mutants (named SCENARIO-broken-rN) run
# in one `ktb run -j $row_jobs`, and each one's account in that run must
# match (FAIL or TIMEOUT, both exit 1, as must_fail takes); one that passed
# fails the test, one that failed otherwise goes through must_fail (run
# alone, once more if need be).
mutations() {
	local name expr pattern f i=0 n k st
	local -a files=() pats=()
	while IFS=$'\t' read -r name expr pattern; do
		[ -n "$name" ] || continue
		i=$((i + 1))
		f=$(mutate "$name" "$expr") || exit 1
		mv "$f" "$work/$name-broken-r$i.yaml"
		sed -i "s/^name: $name-broken\$/name: $name-broken-r$i/" "$work/$name-broken-r$i.yaml"
		files+=("$work/$name-broken-r$i.yaml")
		pats+=("$pattern")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	# a mutant that does not load stops the whole run before any row boots
	# (exit 2), and every row would then be run alone: said at once instead,
	# naming the mutant (its sed expression broke the file, not a check)
	"$KTB" list "${files[@]}" >"$work/list.txt" 2>&1 ||
		fail "a mutant does not load, so no row ran: $(cat "$work/list.txt")"
	ktb_run run -j "$row_jobs" --artifacts "$(artifacts)" "${files[@]}"
	cp "$out" "$work/rows.txt"
	for k in "${!files[@]}"; do
		n=$(basename "${files[$k]}" .yaml)
		awk -v n="$n" '/^[A-Z]+ / {show = ($2 == n); if (show) print; next}
			/^[^ \t]/ {show = 0} show' "$work/rows.txt" >"$work/row.txt"
		st=$(awk 'NR == 1 {print $1}' "$work/row.txt")
		if [ "$st" = PASS ]; then
			steps_seen "${files[$k]}"
			cp "$work/row.txt" "$out"
			fail "$n: expected exit 1, got 0 (the check passed)"
		fi
		# a step cut by its timeout fails too (exit 1): a row may name that
		case $st in FAIL | TIMEOUT) grep -Eq -- "${pats[$k]}" "$work/row.txt" && continue ;; esac
		echo "note: $n: ${st:-no result} without /${pats[$k]}/ among the rows; running it alone" >&2
		sed 's/^/  | /' "$work/row.txt" >&2
		must_fail "${files[$k]}" "${pats[$k]}"
	done
}

# must_fail_env: read "VAR=VALUE<TAB>FILE<TAB>PATTERN" lines: must_fail
# FILE PATTERN with VAR=VALUE in ktb's environment (a fault only a variable
# can plant, for the whole run: so one ktb run each), $row_jobs at
# a time as `mutations` runs its rows, not one after another; one that
# failed otherwise goes through must_fail (alone, once more if need be).
must_fail_env() {
	local var file pattern k n=0
	local -a vars=() files=() pats=()
	while IFS=$'\t' read -r var file pattern; do
		[ -n "$var" ] || continue
		[ "$(jobs -rp | wc -l)" -lt "$row_jobs" ] || wait -n
		(env "$var" "$KTB" run --artifacts "$(artifacts)" "$file" >"$work/env-$n.out" 2>&1 </dev/null
			echo $? >"$work/env-$n.rc") &
		vars+=("$var") files+=("$file") pats+=("$pattern")
		n=$((n + 1))
	done
	wait
	for k in "${!files[@]}"; do
		cp "$work/env-$k.out" "$out"
		rc=$(cat "$work/env-$k.rc")
		[ "$rc" -ne 0 ] || {
			steps_seen "${files[$k]}"
			fail "${vars[$k]} $(basename "${files[$k]}"): expected exit 1, got 0 (the check passed)"
		}
		[ "$rc" -eq 1 ] && grep -Eq -- "${pats[$k]}" "$out" && continue
		echo "note: ${vars[$k]} $(basename "${files[$k]}"): exit $rc without /${pats[$k]}/; running it alone" >&2
		sed 's/^/  | /' "$out" >&2
		export "${vars[$k]?}"
		must_fail "${files[$k]}" "${pats[$k]}"
		unset "${vars[$k]%%=*}"
	done
}

# newest result.json of a scenario in the artifacts (NAME-broken also
# finds the newest of the mutants `mutations` named NAME-broken-rN)
result_of() {
	find "$(artifacts)" \( -path "*/$1/result.json" -o -path "*/$1-r[0-9]*/result.json" \) \
		-printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2-
}

# any_result_of NAME ERE: 0 when the result.json of some run of scenario
# NAME this test made in the artifacts, or of one of the mutants
# `mutations` named NAME-rN, matches ERE with its spaces and newlines
# removed. For what one row of a table makes: its rows run at once, so
# which finishes last (result_of's newest) depends on the host.
any_result_of() {
	local f
	while IFS= read -r f; do
		tr -d ' \n' <"$f" | grep -Eq -- "$2" && return 0
	done < <(find "$(artifacts)" -newer "$work/.start" \
		\( -path "*/$1/result.json" -o -path "*/$1-r[0-9]*/result.json" \))
	return 1
}

# wait_qemus N DIR: until N QEMUs whose command line names DIR run (30 s)
wait_qemus() {
	for _ in $(seq 1 300); do
		[ "$(pgrep -fc "qemu-system.*$2")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# stop_clean PID DIR: SIGTERM ktb PID, which must exit 130 leaving no QEMU
# whose command line names DIR and nothing in DIR.
stop_clean() {
	kill -TERM "$1"
	rc=0
	wait "$1" || rc=$?
	expect_rc 130
	sleep 0.5
	pgrep -f "qemu-system.*$2" >/dev/null && fail "QEMU still running after SIGTERM"
	left=$(find "$2" -mindepth 1 | head -5)
	[ -z "$left" ] || fail "left behind: $left"
}
