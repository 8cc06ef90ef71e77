# One scenario of the library as a CTest test (vm/scenario/NAME): ktb run
# passes on it and, in the sanitizer build, no process of the run (ktb, its
# guardian) left a sanitizer report -- lib.sh's exit check.
#
# The kernel is the minimal one (tests/vm/minimal_kernel.sh: the library's
# own `ktb kconfig --minimal`, built once and cached; on a fresh machine
# ./bootstrap test builds it in the background and this waits for it), so
# every scenario, kunit-boot too, runs on a kernel made from nothing but
# what the library asks for. The library on Debian's kernel is the default
# suite, which fresh/fresh runs as the README says. KTB_SCENARIO_KERNEL=image
# runs the scenario on the image's kernel instead (no kernel to build); a
# scenario that kernel cannot carry (tagged own-kernel) is then skipped, said.
#
# The one skip taken as this host's and not the scenario's: a share that
# asks for virtiofs where virtiofsd cannot set up its sandbox (a chroot, as
# in many CI containers; docs/scenarios.md, Shares). ktb says so (exit 125,
# the SKIP line naming virtiofsd's error); the test is then skipped (77,
# CTest's SKIP_RETURN_CODE here), the reason printed. Any other skip fails.
KTB_TEST_NAME=scenario/$(basename "$1" .yaml)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/minimal_kernel.sh"
kernel=()
case ${KTB_SCENARIO_KERNEL:-minimal} in
minimal)
	kdir=$(minimal_kernel "$KTB" "$KTB_SRC/scenarios") || fail "could not build the minimal kernel"
	kernel=(--kernel "$kdir/bzImage")
	;;
image)
	if grep -Eq '^tags: .*own-kernel' "$1"; then
		echo "skipped: KTB_SCENARIO_KERNEL=image, and the scenario needs a kernel of its own (tag own-kernel)" >&2
		exit 77
	fi
	;;
*) fail "KTB_SCENARIO_KERNEL is minimal (the default) or image, not '$KTB_SCENARIO_KERNEL'" ;;
esac
rc=0
"$KTB" run --artifacts "$(artifacts)" "${kernel[@]}" "$1" </dev/null >"$out" 2>&1 || rc=$?
cat "$out"
if only_virtiofs_skips; then
	echo "skipped: virtiofsd cannot serve on this host (above); the scenario needs it" >&2
	exit 77
fi
exit "$rc"
