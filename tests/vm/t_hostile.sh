# label: cli
# Hostile scenario files, made here on the fly: every one ends each command
# that loads scenarios (list, run, run --list, bisect, boot --scenario) with
# exit 2 and one message naming file:line:col and field, within 100 MB of
# peak RSS, and leaves no results behind.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing (Debian package time)"
max_kb=$((100 * 1024))
n=0
peak=0

# hostile NAME PATTERN: $work/NAME.yaml must be refused by every command
# with a message matching "NAME.yaml:LINE:COL: PATTERN".
hostile() {
	local f=$work/$1.yaml cmd kb
	local -a args
	for cmd in list run run-list bisect boot; do
		case $cmd in
		run) args=(run --artifacts "$work/art") ;;
		run-list) args=(run --list) ;;
		bisect) args=(bisect --kernels "6.1.0-47,6.1.0-53") ;;
		boot) args=(boot --scenario) ;;
		*) args=("$cmd") ;;
		esac
		rc=0
		/usr/bin/time -f %M -o "$work/rss" "$KTB" "${args[@]}" "$f" \
			>"$out" 2>&1 </dev/null || rc=$?
		kb=$(tail -1 "$work/rss")
		[ "$rc" -eq 2 ] || fail "$1: ktb $cmd: expected exit 2, got $rc"
		expect_out "^ktb: $f:[0-9]+:[0-9]+: $2"
		[ "$(wc -l <"$out")" -eq 1 ] || fail "$1: ktb $cmd: more than one line"
		[ "$kb" -le "$max_kb" ] || fail "$1: ktb $cmd: peak RSS ${kb} KB > $max_kb KB"
		[ "$kb" -le "$peak" ] || peak=$kb
		[ ! -e "$work/art" ] || fail "$1: ktb run left $work/art behind"
	done
	n=$((n + 1))
}

# rep N STR: STR N times
rep() { yes "$2" | head -n "$1" | tr -d '\n'; }

step_with() { printf 'steps:\n  - run: "true"\n    expect:\n%s\n' "$1"; }

# regular expressions, in every field that takes one
step_with '      stdout: "(((a{1,1000}){1,1000}){1,1000})"' >"$work/re-nested.yaml"
hostile re-nested 'steps\[0\]\.expect\.stdout: a repetition count over 255'
step_with '      stdout: "((((a{1,200}){1,200}){1,200}){1,200})"' >"$work/re-expand.yaml"
hostile re-expand 'steps\[0\]\.expect\.stdout: its repetitions expand to more than 1000'
step_with '      stdout: "(()|^b?){64}"' >"$work/re-anchor.yaml"
hostile re-anchor 'steps\[0\]\.expect\.stdout: an anchor .* under a repetition'
step_with '      json: {a.b: {re: "(a{,255}){,255}"}}' >"$work/re-json.yaml"
hostile re-json 'steps\[0\]\.expect\.json\.a\.b\.re: its repetitions expand'
step_with '      json: {a: {ne: 1, re: [x]}}' >"$work/re-json-list.yaml"
hostile re-json-list 'steps\[0\]\.expect\.json\.a\.re: expected a string'
printf 'steps:\n  - wait: 1s\n    for: "%s"\n' "$(rep 13 '(')a$(rep 13 ')+')" >"$work/re-plus.yaml"
hostile re-plus 'steps\[0\]\.for: its repetitions expand'
step_with '      stdout: "(a)(b)\\2"' >"$work/re-backref.yaml"
hostile re-backref 'steps\[0\]\.expect\.stdout: back-reference'
printf 'steps:\n  - wait: 1s\n    for: "%s"\n' "$(rep 20000 'ab')" >"$work/re-long.yaml"
hostile re-long 'steps\[0\]\.for: 40000 bytes; a regular expression is at most 1024'
printf 'steps:\n  - wait: 1s\n    for: "%s"\n' "$(rep 60 '(')a$(rep 60 ')')" >"$work/re-groups.yaml"
hostile re-groups 'steps\[0\]\.for: groups nest more than 32 deep'
printf 'steps:\n  - wait: 1s\n    for: "%s"\n' "$(rep 1100000 'x')" >"$work/re-mb.yaml"
hostile re-mb 'steps\[0\]\.for: the file goes on past 1048576 bytes'

# YAML structure
{
	printf 'steps:\n  - qmp: query-status\n    arguments:\n      l0: &l0 [x, x, x, x, x, x, x, x, x]\n'
	for i in 1 2 3 4 5 6 7 8 9; do
		printf '      l%d: &l%d [%s*l%d]\n' $i $i "$(rep 8 "*l$((i - 1)), ")" $((i - 1))
	done
} >"$work/alias-bomb.yaml"
hostile alias-bomb 'steps\[0\]\.arguments\.l0: anchors and aliases'
step_with "      json: {a: $(rep 100000 '[')$(rep 100000 ']')}" >"$work/deep-seq.yaml"
hostile deep-seq 'steps\[0\]\.expect\.json\.a(\[0\])+: lists and mappings nest more than 32'
step_with "      json: $(rep 100000 '{a: ')1$(rep 100000 '}')" >"$work/deep-map.yaml"
hostile deep-map 'steps\[0\]\.expect\.json(\.a)+: lists and mappings nest more than 32'
printf '%s' "$(rep 100000 '[')" >"$work/deep-bare.yaml"
hostile deep-bare '(\[0\])+: lists and mappings nest more than 32'
printf 'tags: [%s]\nsteps:\n  - run: "true"\n' "$(rep 2000 'x, ')" >"$work/many-tags.yaml"
hostile many-tags 'tags: more than 1000 entries in one list'
{
	printf 'steps:\n'
	for i in $(seq 1 60); do printf '  - run: "true"\n    expect: {json: {a: [%s]}}\n' "$(rep 999 '1,')"; done
} >"$work/many-values.yaml"
hostile many-values 'steps\[[0-9]+\]\.expect\.json\.a\[[0-9]+\]: more than 50000 values'
printf 'steps:\n  - run: "true"\n---\nsteps:\n  - run: "true"\n' >"$work/two-docs.yaml"
hostile two-docs 'a second YAML document'
printf 'steps:\n  - ? [a]\n    : b\n' >"$work/complex-key.yaml"
hostile complex-key 'steps\[0\]: a key must be a string'

# strings of 100K in every kind of field (64K is the most), and of 1.1M
big=$(rep 100000 'x')
while IFS='|' read -r name yaml field; do
	printf '%b\n' "${yaml//@/$big}" >"$work/str-$name.yaml"
	hostile "str-$name" "$field: a string of 1000[0-9]* bytes; strings are at most 65536"
done <<'EOF'
name|name: "@"\nsteps: [{run: x}]|name
summary|summary: @\nsteps: [{run: x}]|summary
tag|tags: [a, @]\nsteps: [{run: x}]|tags\[1\]
timeout|timeout: @\nsteps: [{run: x}]|timeout
cmdline|kernel: {cmdline: @}\nsteps: [{run: x}]|kernel\.cmdline
memory|machine: {memory: @}\nsteps: [{run: x}]|machine\.memory
disk-id|machine: {disks: [{id: @, bus: nvme, size: 1M}]}\nsteps: [{run: x}]|machine\.disks\[0\]\.id
image|machine: {disks: [{id: d, bus: nvme, size: 1M, image: @}]}\nsteps: [{run: x}]|machine\.disks\[0\]\.image
run|steps: [{run: @}]|steps\[0\]\.run
wait|steps: [{wait: @}]|steps\[0\]\.wait
for|steps: [{wait: 1s, for: @}]|steps\[0\]\.for
qmp|steps: [{qmp: @}]|steps\[0\]\.qmp
arguments|steps: [{qmp: x, arguments: {a: @}}]|steps\[0\]\.arguments\.a
stdout|steps: [{run: x, expect: {stdout: @}}]|steps\[0\]\.expect\.stdout
json|steps: [{run: x, expect: {json: {a: @}}}]|steps\[0\]\.expect\.json\.a
EOF
printf 'steps:\n  - qmp: x\n    arguments: {%s: 1}\n' "$big" >"$work/str-key.yaml"
hostile str-key 'steps\[0\]\.arguments: a key of 100000 bytes; keys are at most 256'
printf 'steps:\n  - run: "%s"\n' "$(rep 1100000 'x')" >"$work/str-1m.yaml"
hostile str-1m 'steps\[0\]\.run: the file goes on past'

# bytes that are not text
printf 'steps:\n  - run: "tr\0ue"\n' >"$work/nul.yaml"
hostile nul 'steps\[0\]\.run: control character U\+0000'
printf 'steps:\n  - run: "tr\xff\xfeue"\n' >"$work/utf8.yaml"
hostile utf8 'steps\[0\]\.run: byte 0xff is not UTF-8'
printf 'steps:\n  - run: "\xc0\xaf"\n' >"$work/overlong.yaml"
hostile overlong 'steps\[0\]\.run: byte 0xc0 is not UTF-8'
head -c 4096 /dev/urandom >"$work/garbage.yaml"
hostile garbage '.*(not UTF-8|control character|YAML syntax error|expected a mapping)'
: >"$work/empty.yaml"
hostile empty 'the file is empty'
yes '# padding' | head -c 50M >"$work/huge.yaml"
hostile huge 'the file goes on past 1048576 bytes'

# duplicate keys are errors wherever they are, naming the key and both lines
printf 'name: a\nsteps:\n  - run: "true"\nname: b\n' >"$work/dup-top.yaml"
hostile dup-top 'key "name" appears twice \(first on line 1\)'
printf 'steps:\n  - qmp: x\n    arguments:\n      a: 1\n      a: 2\n' >"$work/dup-args.yaml"
hostile dup-args 'steps\[0\]\.arguments: key "a" appears twice \(first on line 4\)'
step_with '      json: {x: 1, x: 2}' >"$work/dup-json.yaml"
hostile dup-json 'steps\[0\]\.expect\.json: key "x" appears twice'

# numbers out of range
while IFS='|' read -r name yaml field msg; do
	printf '%b\n' "$yaml" >"$work/num-$name.yaml"
	hostile "num-$name" "$field: .*$msg"
done <<'EOF'
cpus-neg|machine: {cpus: -1}\nsteps: [{run: x}]|machine\.cpus|expected a whole number
cpus-2e64|machine: {cpus: 18446744073709551616}\nsteps: [{run: x}]|machine\.cpus|expected a whole number
cpus-big|machine: {cpus: 100000}\nsteps: [{run: x}]|machine\.cpus|100000 cpus
memory|machine: {memory: 99999999T}\nsteps: [{run: x}]|machine\.memory|larger than the 16T limit
size|machine: {disks: [{id: d, bus: nvme, size: 99999999T}]}\nsteps: [{run: x}]|machine\.disks\[0\]\.size|larger than the 16T limit
size-neg|machine: {disks: [{id: d, bus: nvme, size: -1M}]}\nsteps: [{run: x}]|machine\.disks\[0\]\.size|not a size
paths|machine: {disks: [{id: d, bus: nvme, size: 1M, paths: 18446744073709551616}]}\nsteps: [{run: x}]|machine\.disks\[0\]\.paths|expected a whole number
timeout|timeout: 1e300s\nsteps: [{run: x}]|timeout|longer than 24h
timeout-nan|timeout: nan\nsteps: [{run: x}]|timeout|not a duration
wait|steps: [{wait: 25h}]|steps\[0\]\.wait|longer than 24h
wait-neg|steps: [{wait: -1s}]|steps\[0\]\.wait|not a duration
cycles|steps: [{suspend: s3, cycles: 4294967296}]|steps\[0\]\.cycles|expected a whole number
exit|steps: [{run: x, expect: {exit: 99999999999999999999}}]|steps\[0\]\.expect\.exit|expected a whole number
EOF

# paths that leave the scenario's folder
for img in ../x.qcow2 /etc/passwd a/../../x .. sub/..; do
	printf 'machine:\n  disks:\n    - {id: d, bus: nvme, size: 64M, image: "%s"}\nsteps:\n  - run: "true"\n' \
		"$img" >"$work/image.yaml"
	hostile image 'machine\.disks\[0\]\.image: ".*" is not inside the scenario.s folder'
done

# the name names a folder
printf 'name: %s\nsteps:\n  - run: "true"\n' "$(rep 100 a)" >"$work/long-name.yaml"
hostile long-name 'name: 100 characters; a name is at most 64'

echo "$n hostile files refused by every command; peak RSS at most $peak KB (limit $max_kb KB)"
pgrep -f "$work" >/dev/null && fail "a process was started for a hostile scenario"
exit 0
