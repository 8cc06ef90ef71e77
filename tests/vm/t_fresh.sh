# label: fresh
# jobs: 2
# A user's fresh machine: a Debian 12 root (mmdebstrap's minbase plus git
# and ca-certificates, images/mkroot.sh), a git clone of this checkout in it,
# and the README's first command, `./bootstrap suite -j 2`, run there: it
# installs what packages.txt lists, builds, builds the guest image from an
# empty cache and runs the whole library but own-kernel, so every part of
# the image is used. A package the project needs and does not list fails
# here, named, even when this host happens to have it.
#
# KTB_FRESH_ARGS adds ktb run options and scenarios to that command (for
# example "--repeat 10" for the library ten times over on a fresh machine);
# KTB_FRESH_CMD replaces the command (for example "CI=true .ci/run", the
# whole of CI on a fresh machine); with KTB_TEST_ARTIFACTS set, the whole
# output is kept there, passed or not.
#
# What the root shares with this host: its kernel, /dev, and the host's
# downloaded .deb files, offered to apt in the root as a download cache
# (nothing is installed from them that apt in the root did not choose). Its
# ktb cache starts empty. It runs in its own mount and PID namespaces: no
# daemon starts (the root's policy-rc.d), everything mounted there goes with
# the namespace, and no process outlives the test.
set -uo pipefail
: "${KTB_SRC:?set KTB_SRC to the source tree}"
# shellcheck source=images/needs.sh
. "$KTB_SRC/images/needs.sh"
needs "the fresh-machine test" mmdebstrap unshare chroot git findmnt || exit 1
[ "$(id -u)" -eq 0 ] || { echo "FAIL: the fresh-machine test needs root (a chroot)" >&2; exit 1; }
# Inside a chroot (this test's own fresh root running CI, a CI container)
# "/" is no mount point, so no mount namespace can be made private
# ("unshare: cannot change root filesystem propagation") and the root's
# mounts would reach the host's: CTest's skip (77), saying why. The test
# runs where the machine is a machine.
if ! mountpoint -q /; then
	echo "skipped: / is not a mount point here (a chroot): the fresh-machine test cannot make its mounts private; run it outside a chroot" >&2
	exit 77
fi

work=$(mktemp -d "${KTB_FRESH_TMP:-/var/tmp}/ktb-fresh-XXXXXX")
root=$work/root
log=$work/suite.log
debs=${KTB_FRESH_DEBS:-/var/cache/apt/archives}

# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	local st=$?
	# stopped early (a signal): the namespace, and all in it, go first
	# (unshare --kill-child takes them with it)
	if [ -n "${ns:-}" ] && kill -0 "$ns" 2>/dev/null; then
		kill -9 "$ns" 2>/dev/null
		wait "$ns" 2>/dev/null
	fi
	# the namespace took its mounts with it; should one be left, keep the
	# folder rather than delete through it
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		echo "FAIL: mounts left under $root; not removed" >&2
		exit 1
	fi
	rm -rf --one-file-system "$work"
	exit "$st"
}
trap cleanup EXIT

now() { date +%s; }
t0=$(now)
if ! "$KTB_SRC/images/mkroot.sh" --out "$root" --include git,ca-certificates \
	${debs:+--deb-cache "$debs"} >"$work/mkroot.log" 2>&1; then
	cat "$work/mkroot.log" >&2
	echo "FAIL: could not build the Debian 12 root (images/mkroot.sh)" >&2
	exit 1
fi
t1=$(now)

rev=$(git -C "$KTB_SRC" rev-parse HEAD) || { echo "FAIL: $KTB_SRC is not a git checkout" >&2; exit 1; }
[ -z "$(git -C "$KTB_SRC" status --porcelain --untracked-files=no)" ] ||
	echo "note: the checkout has uncommitted changes; the fresh machine gets $rev without them" >&2
if ! git clone -q --no-hardlinks "$KTB_SRC" "$root/root/ktestbed" ||
	! git -C "$root/root/ktestbed" checkout -q --detach "$rev"; then
	echo "FAIL: git clone of $KTB_SRC failed" >&2
	exit 1
fi

# In the namespaces: the root's /dev, /proc, /sys, /run, then the README's
# command as a user would type it, with a plain environment.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='set -e
r=$1
mount --rbind /dev "$r/dev"
mount --make-rslave "$r/dev"
mount -t proc proc "$r/proc"
mount -t sysfs sysfs "$r/sys"
mount -t tmpfs tmpfs "$r/run"
cp /etc/resolv.conf "$r/etc/resolv.conf"
set +e
chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb ${CI:+CI=$CI} \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	bash -c "cd /root/ktestbed && $2"
st=$?
umount -R -l "$r/run" "$r/sys" "$r/proc" "$r/dev"
exit $st'
cmd=${KTB_FRESH_CMD:-./bootstrap suite -j 2${KTB_FRESH_ARGS:+ $KTB_FRESH_ARGS}}
rc=0
unshare --mount --pid --fork --kill-child --propagation private \
	bash -c "$inner" fresh "$root" "$cmd" </dev/null >"$log" 2>&1 &
ns=$!
wait "$ns" || rc=$?
ns=
t2=$(now)

echo "fresh machine: root $((t1 - t0)) s; $cmd: $((t2 - t1)) s (exit $rc)"
grep -E '^(summary|bootstrap: installing|[0-9]+% tests passed|Total Test time)' "$log" | cut -c1-300
if [ -n "${KTB_TEST_ARTIFACTS:-}" ] && mkdir -p "$KTB_TEST_ARTIFACTS"; then
	cp "$log" "$KTB_TEST_ARTIFACTS/fresh-suite.log" &&
		echo "the whole output: $KTB_TEST_ARTIFACTS/fresh-suite.log" >&2
	# the artifacts of each scenario that did not pass, before the root goes
	sed -n 's|^        artifacts: \(artifacts/[^ ]*\)$|\1|p' "$log" | while read -r a; do
		[ -d "$root/root/ktestbed/$a" ] && mkdir -p "$KTB_TEST_ARTIFACTS/$(dirname "$a")" &&
			cp -r "$root/root/ktestbed/$a" "$KTB_TEST_ARTIFACTS/$a"
	done
fi
[ "$rc" -eq 0 ] && exit 0
# In a chroot virtiofsd cannot set up its sandbox: a scenario that asks for
# virtiofs is a skip there (exit 125), naming virtiofsd's error, and that
# is the only thing this machine may not carry out.
if [ "$rc" -eq 125 ] && grep -q '^summary:' "$log" && grep -qE '^SKIP ' "$log" &&
	! grep -qE '^(FAIL|ERROR|TIMEOUT) ' "$log" && ! grep -E '^SKIP ' "$log" | grep -qv virtiofsd; then
	grep -E '^SKIP ' "$log" | cut -c1-300
	exit 0
fi

# Name what was missing: the guest image's and the kernel build's own
# checks ("needs CMD, which is not installed"), a tool's "CMD: No such file
# or directory" and a shell's "CMD: command not found".
missing=$(grep -oE 'needs [^ ]+, which is not installed|(^|: )[A-Za-z0-9_.+-]+: (No such file or directory|command not found)$' "$log" |
	sed -E 's/^needs ([^ ]+),.*/\1/; s/^(: )?([^:]+): .*/\2/' | sort -u | tr '\n' ' ')
if grep -q '^summary:' "$log"; then
	# ktb run got as far as the library: each scenario that did not pass,
	# with its indented account
	echo "--- the scenarios that did not pass on the fresh machine ---" >&2
	awk '/^(FAIL|ERROR|TIMEOUT|SKIP) / {show = 1; print; next}
		/^[^ \t]/ {show = 0} show' "$log" | cut -c1-300 >&2
else
	echo "--- the end of $cmd's output on the fresh machine ---" >&2
	tail -40 "$log" >&2
fi
if [ -n "$missing" ]; then
	echo "FAIL: $cmd failed on a fresh Debian 12 machine; missing: $missing" >&2
else
	echo "FAIL: $cmd failed on a fresh Debian 12 machine (exit $rc; its output above)" >&2
fi
exit 1
