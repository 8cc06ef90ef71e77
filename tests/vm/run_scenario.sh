# One scenario of the library as a CTest test (vm/scenario/NAME): ktb run
# passes on it and, in the sanitizer build, no process of the run (ktb, its
# guardian) left a sanitizer report -- lib.sh's exit check. A scenario the
# kernel cannot carry (kernel.requires: kunit-boot on the Debian kernel) is
# skipped before boot, exit 125 with missing_config in its result.json:
# that alone is CTest's skip (77, SKIP_RETURN_CODE); the own-kernel test
# runs it on a kernel that has what it needs.
. "$(dirname "$0")/lib.sh"
rc=0
"$KTB" run --artifacts "$(artifacts)" "$1" </dev/null || rc=$?
if [ "$rc" -eq 125 ]; then
	res=$(find "$(artifacts)" -name result.json -newer "$work" -path "*/$(basename "$1" .yaml)/*" |
		sort | tail -1)
	if [ -n "$res" ] && jq -e '.status == "skip" and (.missing_config | length) > 0' \
		"$res" >/dev/null; then
		echo "skipped: the kernel lacks $(jq -r '.missing_config | join(", ")' "$res")"
		exit 77
	fi
fi
exit "$rc"
