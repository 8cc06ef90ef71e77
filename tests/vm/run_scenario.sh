# One scenario of the library as a CTest test (vm/scenario/NAME): ktb run
# passes on it and, in the sanitizer build, no process of the run (ktb, its
# guardian) left a sanitizer report -- lib.sh's exit check.
#
# The one skip taken as this host's and not the scenario's: a share that
# asks for virtiofs where virtiofsd cannot set up its sandbox (a chroot, as
# in many CI containers; docs/scenarios.md, Shares). ktb says so (exit 125,
# the SKIP line naming virtiofsd's error); the test is then skipped (77,
# CTest's SKIP_RETURN_CODE here), the reason printed. Any other skip fails.
KTB_TEST_NAME=scenario/$(basename "$1" .yaml)
. "$(dirname "$0")/lib.sh"
rc=0
"$KTB" run --artifacts "$(artifacts)" "$1" </dev/null >"$out" 2>&1 || rc=$?
cat "$out"
if only_virtiofs_skips; then
	echo "skipped: virtiofsd cannot serve on this host (above); the scenario needs it" >&2
	exit 77
fi
exit "$rc"
