#!/bin/bash
# prebuild.sh KTB: what the VM tests build once and cache, built ahead in
# the background by `./bootstrap test` while the tests run, at the lowest
# priority (SCHED_IDLE, idle I/O): it gets only the CPU the tests leave
# (a suspended guest, a test waiting on a timer, a one-VM test beside a
# two-VM one), so it slows no test's timing, and on a fresh machine the
# kernel builds' half hour mostly disappears into that idle time.
#
# Two chains at once, each in the order the tests need its parts: (1) the
# Debian root of the library and of t_roots.sh (images/debian-root.sh, under
# its lock), the images of the Debian kernels the bisect tests use and the
# kernel's debug files (the image cache's lock): mostly downloads, which
# leave the CPU idle; (2) the minimal kernel of the library
# (vm/scenario/NAME, own-kernel/own_kernel) and the debug kernel of the report scenarios
# (own-kernel/reports; tests/vm/minimal_kernel.sh, one build of a key at a
# time), which take that CPU meanwhile. A test that needs one before it is ready waits on the
# same lock and finds it built; one that gets there first builds it itself
# and this finds it cached. A failure here fails nothing: the test that
# needs the part builds it again and fails, saying why.
set -uo pipefail
ktb=${1:?usage: prebuild.sh KTB}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# SCHED_IDLE (inherited by every process it starts) and the idle I/O class
chrt --idle -p 0 $$ >/dev/null 2>&1 || renice -n 19 -p $$ >/dev/null
ionice -c 3 -p $$ >/dev/null 2>&1 || true

# shellcheck source=tests/vm/minimal_kernel.sh
. "$src/tests/vm/minimal_kernel.sh"

st=0
step() {
	local t0=$SECONDS
	echo "prebuild: $1"
	shift
	if "$@"; then
		echo "prebuild: done in $((SECONDS - t0)) s"
	else
		echo "prebuild: failed after $((SECONDS - t0)) s (the test that needs it builds it again)"
		st=1
	fi
}
# (1) the library's Debian root (fio-multipath-verify, nvme-4kn-format;
# t_roots.sh boots the same one), the images of the older Debian kernels
# t_bisect*.sh bisect over (its ladder; the newest is the image's own) and
# the kernel's debug files (t_dump.sh): on a fresh machine each is a
# download a two-VM test waited on
downloads() {
	local ladder default_abi abi
	step "Debian root: fio nvme-cli xfsprogs" "$ktb" image build --root debian \
		--package fio --package nvme-cli --package xfsprogs
	ladder=$(sed -n 's/^ladder=//p' "$src/tests/vm/t_bisect.sh")
	default_abi=$(sed -n 's/^ *package: *linux-image-\(.*\)-amd64-unsigned$/\1/p' "$src/images/default.yaml")
	for abi in ${ladder//,/ }; do
		[ "$abi" = "$default_abi" ] || step "the image with Debian kernel $abi (t_bisect*.sh)" \
			"$ktb" image build --kernel "$abi"
	done
	step "the Debian kernel's debug files (t_dump.sh)" "$ktb" image build --debug
	return $st
}
# (2) the two kernels
kernels() {
	# with its build tree (a cache from before trees were kept is built
	# again here, in the background, rather than in own-kernel/slowdown)
	MINIMAL_KERNEL_TREE=1 step "minimal kernel (vm/scenario/NAME, own-kernel/own_kernel, own-kernel/slowdown)" \
		minimal_kernel "$ktb" "$src/scenarios"
	step "debug kernel (own-kernel/reports)" debug_kernel "$ktb" "$src/tests/vm/reports"
	return $st
}
kernels &
k=$!
downloads || st=1
wait "$k" || st=1
# its CPU (user, system): the second line, everything it ran
echo "prebuild: CPU of this script, then of everything it ran:"
times
exit $st
