# The README's package table is packages.txt, the one list bootstrap
# installs from: `check_packages.sh --write` rewrites it, the test compares.
set -uo pipefail
: "${KTB_SRC:?set KTB_SRC to the source tree}"
readme=$KTB_SRC/README.md
begin='<!-- packages: generated from packages.txt by tests/lint/check_packages.sh --write -->'
end='<!-- end of packages -->'

table() {
	echo "$begin"
	echo "| package | installed by | what uses it |"
	echo "| --- | --- | --- |"
	awk '!/^#/ && NF >= 4 {
		what = $4; for (i = 5; i <= NF; i++) what = what " " $i
		by = $2 == "suite" ? "both commands" : "./bootstrap test"
		printf "| %s | %s | %s |\n", $1, by, what
	}' "$KTB_SRC/packages.txt"
	echo "$end"
}

current() { sed -n "\\|^$begin\$|,\\|^$end\$|p" "$readme"; }

if [ "${1:-}" = --write ]; then
	grep -qxF "$begin" "$readme" || { echo "no table marker in $readme" >&2; exit 1; }
	new=$(table)
	awk -v b="$begin" -v e="$end" -v t="$new" '
		$0 == b {print t; skip = 1; next}
		$0 == e {skip = 0; next}
		!skip' "$readme" >"$readme.tmp" && mv "$readme.tmp" "$readme"
	exit 0
fi
if [ -z "$(current)" ]; then
	echo "FAIL: README.md has no package table (the line '$begin')" >&2
	exit 1
fi
if ! diff <(current) <(table) >&2; then
	echo "FAIL: README.md's package table differs from packages.txt (above: README < > packages.txt);" \
		"run tests/lint/check_packages.sh --write" >&2
	exit 1
fi
echo "README.md's package table: $(($(table | wc -l) - 4)) packages, as packages.txt lists them"
