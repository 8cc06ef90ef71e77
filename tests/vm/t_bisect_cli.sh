# label: cli
# ktb bisect refuses bad input with exit 2 and a message that says what is
# wrong, before anything is built or booted; a first kernel apt does not
# know cannot be tested (125), and the last one is then not booted.
. "$(dirname "$0")/lib.sh"
cat >"$work/ok.yaml" <<'YAML'
name: ok
machine: {cpus: 1, memory: 512M}
steps:
  - run: "true"
YAML
printf 'name: bad\nmachine: {cpus: 1, memory: 512M}\nsteps:\n  - rnu: "true"\n' >"$work/bad.yaml"
git init -q "$work/repo"
git -C "$work/repo" -c user.email=t@ktestbed.invalid -c user.name=t commit -q --allow-empty -m one

# bad ARGS... PATTERN: ktb bisect ARGS exits 2 with PATTERN in its output
bad() {
	local pattern=${*: -1}
	ktb_run bisect --artifacts "$work/artifacts" "${@:1:$#-1}"
	expect_rc 2
	expect_out "$pattern"
}
bad --kernels 6.1.0-47 "$work/ok.yaml" 'needs at least two kernels'
bad --kernels "6.1.0-47,$work/nope/bzImage" "$work/ok.yaml" "candidate 2, $work/nope/bzImage: No such file"
bad --kernels 6.1.0-47,6.1.0-57 'give exactly one SCENARIO'
bad --kernels 6.1.0-47,6.1.0-57 "$work/missing.yaml" 'missing.yaml: No such file'
bad --kernels 6.1.0-47,6.1.0-57 "$work/bad.yaml" 'bad.yaml:4:5: .*rnu'
bad "$work/ok.yaml" 'give either --kernels K1,K2,... or --git DIR'
bad --kernels a,b --git "$work/repo" "$work/ok.yaml" 'give either --kernels'
bad --kernels a,b --good x "$work/ok.yaml" '--good, --bad, --build and --kernel go with --git'
bad -j 0 --kernels a,b "$work/ok.yaml" '-j 0: give a number from 1 to 17'
bad --tries x --kernels a,b "$work/ok.yaml" '--tries x: give a number from 1 to 100'
bad --git "$work/repo" --good HEAD "$work/ok.yaml" '--git needs --good A, --bad B and --build CMD'
bad -j 3 --git "$work/repo" --good HEAD --bad HEAD --build true "$work/ok.yaml" \
	'multisection works with --kernels'
bad --git "$work/repo" --good nosuch --bad HEAD --build true "$work/ok.yaml" \
	'--good nosuch: no such commit'
bad --git "$work/nowhere" --good A --bad B --build true "$work/ok.yaml" 'nowhere: not a git work tree'
# --metric: its scenario named as the file names itself, a metric, a sample
# count the rank test can decide with, one kernel at a time
bad --metric other:boot_ms --kernels a,b "$work/ok.yaml" \
	'--metric other:boot_ms: the scenario is named ok, not other'
bad --metric ok: --kernels a,b "$work/ok.yaml" '--metric ok:: no metric named'
bad --metric boot_ms --tries 4 --kernels a,b "$work/ok.yaml" \
	'--tries 4 with --metric: the rank test cannot reach 95% with fewer than 5 samples'
bad --metric boot_ms --confidence 99% --tries 5 --kernels a,b "$work/ok.yaml" \
	'fewer than 6 samples per kernel'
bad --metric boot_ms -j 3 --kernels a,b "$work/ok.yaml" '-j 3 with --metric: .*one kernel at a time'
bad --threshold 20% --kernels a,b "$work/ok.yaml" '--threshold and --confidence go with --metric'
bad --metric boot_ms --threshold 0 --kernels a,b "$work/ok.yaml" '--threshold 0: give a change above 0'
bad --metric boot_ms --confidence 40% --kernels a,b "$work/ok.yaml" \
	'--confidence 40%: give a level between 50% and 100%'
[ ! -e "$work/artifacts" ] || [ -z "$(ls -A "$work/artifacts")" ] || fail "bad input left artifacts"

ktb_run bisect --kernels 6.1.0-99,6.1.0-57 --artifacts "$work/artifacts" "$work/ok.yaml"
expect_rc 125
expect_out '^step +1 +round 0 +6\.1\.0-99 +skip .*could not test: no image could be built'
expect_out '^ktb bisect: could not test the first candidate, 6\.1\.0-99$'
expect_out '^boots: 0 '
exit 0
