# label: vm
# jobs: 2
# SIGINT, SIGTERM and SIGKILL of `ktb run` leave no QEMU, ktb-hybrid, worker
# or guardian process and nothing in TMPDIR; INT and TERM still write what
# they have, marked interrupted, and exit 130. Each signal is sent twice:
#   boot     one VM (with a hybrid disk, so its back end runs) during boot,
#            a second scenario never starts;
#   suspend  -j 2: s3-basic with a long sleep, and a hybrid disk's machine in
#            S3, both signalled while suspended; a third scenario never starts.
# Coverage: every signal meets a VM in boot and in S3, a ktb-hybrid back end,
# ktb owning QEMU itself (boot) and through -j workers (suspend). SIGTERM
# also meets one VM in S3 that ktb owns itself (s3).
. "$(dirname "$0")/lib.sh"

cat >"$work/sig-boot.yaml" <<'YAML'
name: sig-boot
machine:
  cpus: 1
  memory: 512M
  disks:
    - {id: data, bus: hybrid, size: 32M}
steps:
  - run: "true"
YAML
cat >"$work/sig-hybrid-s3.yaml" <<'YAML'
name: sig-hybrid-s3
machine:
  cpus: 1
  memory: 512M
  sleep: [s3]
  disks:
    - {id: data, bus: hybrid, size: 32M}
steps:
  - suspend: s3
    after: 90s
    timeout: 110s
YAML
cat >"$work/sig-later.yaml" <<'YAML'
name: sig-later
machine: {cpus: 1, memory: 512M}
steps:
  - run: "true"
YAML
s3_long=$(mutate s3-basic 's/^    after: 1s$/    after: 90s\n    timeout: 110s/')

# leftovers DIR [WAIT_S]: processes whose command line names DIR (ktb, its
# workers and guardian share ktb's; QEMU's and ktb-hybrid's name their
# sockets in TMPDIR under DIR), waiting up to WAIT_S seconds for them to go
leftovers() {
	local i
	for i in $(seq 0 $((${2:-0} * 10))); do
		pgrep -af -- "$1" >/dev/null || return 0
		[ "$i" -lt $((${2:-0} * 10)) ] && sleep 0.1
	done
	pgrep -af -- "$1"
}

# wait_for TIMEOUT_S CMD...: until CMD succeeds
wait_for() {
	local t=$1
	shift
	for _ in $(seq 1 $((t * 10))); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# shellcheck disable=SC2317 # called through wait_for
running() { pgrep -f -- "$1" >/dev/null; }
# shellcheck disable=SC2317 # called through wait_for
suspended() { [ "$(grep -ls '"event": *"SUSPEND"' "$1"/*/*/qmp.jsonl | wc -l)" -ge "$2" ]; }

# expect_json FILE PATTERN: FILE (2-space indented JSON) has a line matching
expect_json() {
	grep -Eq -- "$2" "$1" || fail "$(basename "$1") has no line /$2/"
}

# one_case SIG NUM MODE
one_case() {
	local sig=$1 num=$2 mode=$3 dir=$work/$1-$3 pid res
	mkdir -p "$dir/tmp"
	if [ "$mode" = boot ]; then
		TMPDIR=$dir/tmp "$KTB" run --artifacts "$dir/art" --json "$dir/r.json" \
			--junit "$dir/r.xml" "$work/sig-boot.yaml" "$work/sig-later.yaml" \
			>"$out" 2>&1 </dev/null &
		pid=$!
		wait_for 60 running "qemu-system.*$dir/tmp" || fail "$sig $mode: QEMU never started"
		running "ktb-hybrid.*$dir/tmp" || fail "$sig $mode: no ktb-hybrid beside QEMU"
	elif [ "$mode" = s3 ]; then
		TMPDIR=$dir/tmp "$KTB" run --artifacts "$dir/art" --json "$dir/r.json" \
			--junit "$dir/r.xml" "$s3_long" "$work/sig-later.yaml" >"$out" 2>&1 </dev/null &
		pid=$!
		wait_for 90 suspended "$dir/art" 1 || fail "$sig $mode: the VM never was in S3"
	else
		TMPDIR=$dir/tmp "$KTB" run -j 2 --artifacts "$dir/art" --json "$dir/r.json" \
			--junit "$dir/r.xml" "$s3_long" "$work/sig-hybrid-s3.yaml" \
			"$work/sig-later.yaml" >"$out" 2>&1 </dev/null &
		pid=$!
		wait_for 120 suspended "$dir/art" 2 || fail "$sig $mode: two VMs never were in S3"
		[ "$(pgrep -fc "qemu-system.*$dir/tmp")" -eq 2 ] || fail "$sig $mode: not two QEMUs"
		running "ktb-hybrid.*$dir/tmp" || fail "$sig $mode: no ktb-hybrid beside QEMU"
	fi
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	if [ "$sig" = KILL ]; then
		expect_rc 137
		# the guardian outlives ktb: give it a moment to clean up
		left=$(leftovers "$dir" 15)
	else
		expect_rc 130
		# ktb's own end waits for everything: nothing may be left now
		left=$(leftovers "$dir")
	fi
	[ -z "$left" ] || fail "$sig $mode: processes left: $left"
	left=$(find "$dir/tmp" -mindepth 1 | head -5)
	[ -z "$left" ] || fail "$sig $mode: left in TMPDIR: $left"
	[ "$sig" = KILL ] && return 0

	expect_out "interrupted by signal $num"
	expect_json "$dir/r.json" '^  "interrupted": true,$'
	expect_json "$dir/r.json" '"message": "not run: interrupted by signal '"$num"'"'
	grep -q "<property name=\"interrupted\" value=\"signal $num\"/>" "$dir/r.xml" ||
		fail "$sig $mode: JUnit does not say interrupted"
	while read -r res; do
		expect_json "$res" '^  "status": "error",$'
		expect_json "$res" '^  "message": "interrupted by signal '"$num"'",$'
		if [ "$mode" = boot ]; then
			expect_json "$res" '^  "steps": \[\],$'
		else
			# the suspend step was cut short, and says so
			expect_json "$res" '"name": "suspend: s3"'
			expect_json "$res" '^      "status": "error",$'
		fi
	done < <(find "$dir/art" -name result.json)
	[ "$(find "$dir/art" -name result.json | wc -l)" -eq "$([ "$mode" = suspend ] && echo 2 || echo 1)" ] ||
		fail "$sig $mode: result.json missing"
	[ -e "$dir/art" ] && find "$dir/art" -path '*sig-later*' | grep -q . &&
		fail "$sig $mode: the scenario never started has artifacts"
	return 0
}

for c in "INT 2" "TERM 15" "KILL 9"; do
	read -r sig num <<<"$c"
	t0=$(date +%s.%N)
	one_case "$sig" "$num" boot
	t1=$(date +%s.%N)
	one_case "$sig" "$num" suspend
	t2=$(date +%s.%N)
	printf 'SIG%s: boot case %.1fs, suspend case %.1fs\n' "$sig" "$(awk "BEGIN{print $t1 - $t0}")" \
		"$(awk "BEGIN{print $t2 - $t1}")"
done
t0=$(date +%s.%N)
one_case TERM 15 s3
printf 'SIGTERM: one VM in S3 %.1fs\n' "$(awk "BEGIN{print $(date +%s.%N) - $t0}")"
exit 0
