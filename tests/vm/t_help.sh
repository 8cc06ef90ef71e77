# label: cli
# The help and the messages tell one story, nothing booted: `ktb help CMD`
# prints exactly what `ktb CMD --help` prints, for every command `ktb help`
# lists; an unknown command or help topic is exit 2 naming the commands; a
# bad option is exit 2 with every line starting "ktb CMD: " (getopt's own
# message included); a command's other refusals start so too, but a
# scenario file's own diagnostics (FILE:LINE:COL: ...).
. "$(dirname "$0")/lib.sh"

# only_prefixed PREFIX: every line on standard error starts with PREFIX
only_prefixed() {
	[ -s "$se" ] || fail "nothing on standard error"
	if grep -v "^$1" "$se" >"$work/other"; then
		fail "lines on standard error without '$1': $(cat "$work/other")"
	fi
}

split help
expect_rc 0
cmds=$(sed -n 's/^  \([a-z]*\)  .*/\1/p' "$so")
[ "$(echo "$cmds" | wc -l)" -ge 8 ] || fail "ktb help lists too few commands: $cmds"
split --help
cmp -s "$so" <("$KTB" help) || fail "ktb --help differs from ktb help"
for c in $cmds; do
	split help "$c"
	expect_rc 0
	if [ ! -s "$so" ] || [ -s "$se" ]; then fail "ktb help $c: not its help on standard output alone"; fi
	cp "$so" "$work/help-$c"
	split "$c" --help
	expect_rc 0
	cmp -s "$so" "$work/help-$c" || fail "ktb $c --help differs from ktb help $c:
$(diff "$work/help-$c" "$so")"
	[ ! -s "$se" ] || fail "ktb $c --help wrote to standard error"
	grep -q "^usage: ktb $c" "$so" || fail "ktb help $c does not start with its usage"

	split "$c" --no-such-option
	expect_rc 2
	expect_out "^ktb $c: unrecognized option '--no-such-option'"
	only_prefixed "ktb $c: "
done

split help bogus
expect_rc 2
expect_out "^ktb help: there is no command 'bogus'; the commands: run, list, "
only_prefixed "ktb help: "
split help run list
expect_rc 2
only_prefixed "ktb help: "
split bogus
expect_rc 2
expect_out "^ktb: unknown command 'bogus'; the commands: run, list, "
split
expect_rc 2

# ./bootstrap suite passes ktb run's options on and must know which take a
# value (else it takes the value for a scenario and drops the library)
"$KTB" help run | sed -n 's/^  \(-[a-z-]*\) [A-Z].*/\1/p' >"$work/valued"
[ "$(wc -l <"$work/valued")" -ge 15 ] || fail "ktb help run: too few options with a value"
sed -n '/case \$a in/,/skip=true/p' "$KTB_SRC/bootstrap" | tr -s ' \t\\|)' '\n' >"$work/skips"
while read -r o; do
	grep -qx -- "$o" "$work/skips" || fail "bootstrap does not know that ktb run $o takes a value"
done <"$work/valued"

# the refusals of the shared code say which command refused
mkdir -p "$work/empty"
for c in run list kconfig; do
	split "$c" "$work/nowhere.yaml"
	expect_rc 2
	expect_out "^ktb $c: $work/nowhere.yaml: No such file or directory"
	only_prefixed "ktb $c: "
	split "$c" "$work/empty"
	expect_rc 2
	expect_out "^ktb $c: no scenario files \(\*\.yaml\) in $work/empty"
	only_prefixed "ktb $c: "
done
printf 'name: only\nsteps:\n  - run: "true"\n' >"$work/only.yaml"
split run --artifacts "$work/art" --kernel "$work/no-kernel" "$work/only.yaml"
expect_rc 2
expect_out "^ktb run: --kernel $work/no-kernel: No such file or directory"
only_prefixed "ktb run: "
split image build --modules "$work"
expect_rc 2
expect_out "^ktb image: --modules goes with --kernel PATH"
split image frobnicate
expect_rc 2
expect_out "^ktb image: unknown action 'frobnicate'"
only_prefixed "ktb image: "
split doctor extra
expect_rc 2
only_prefixed "ktb doctor: "
# a scenario file's own diagnostics keep their FILE:LINE:COL form
printf 'name: bad\nmachine:\n  memroy: 1G\nsteps:\n  - run: "true"\n' >"$work/bad.yaml"
split list "$work/bad.yaml"
expect_rc 2
expect_out "^ktb: $work/bad.yaml:[0-9]+:[0-9]+: machine: unknown key \"memroy\""
exit 0
