# label: vm
# ktb bisect --git: a repository made here whose commits select the kernel
# a --build command "builds" (real Debian 6.1.0-53 or -54, with their
# modules, laid out as a kernel tree would leave them), one commit whose
# build fails (skipped, as git does), and a regression planted from 6.1.0-54
# on. git bisect run, with ktb as the judge, names the first bad commit
# (each commit's tree is the kernel: its bzImage and the modules its
# modules.order lists); a --good that fails is refused and SIGTERM leaves
# no VM and restores the tree (both with --modules instead of the tree's).
. "$(dirname "$0")/bisect_lib.sh"
planted_regression "$work/reg.yaml" 54

# the kernels the commits choose from: a bzImage and its modules each
export KROOT=$work/kernels
for abi in 53 54; do
	ktb_run image build --kernel "6.1.0-$abi"
	expect_rc 0
	mkdir -p "$KROOT/$abi"
	cp "$(sed -n 's/^bzImage: *//p' "$out")" "$KROOT/$abi/bzImage"
	(cd "$KROOT/$abi" && cpio -id --quiet 'lib/modules/*' <"$(sed -n 's/^initrd: *//p' "$out")") ||
		fail "cannot unpack the modules of 6.1.0-$abi"
	# the same modules as a build tree holds them: at their source paths
	mods=$(echo "$KROOT/$abi"/lib/modules/*)
	mkdir -p "$KROOT/$abi/tree"
	(cd "$mods/kernel" && find . -name '*.ko' | sed 's|^\./||' | sort) >"$KROOT/$abi/tree/modules.order"
	sed 's|^kernel/||' "$mods/modules.builtin" >"$KROOT/$abi/tree/modules.builtin"
	while read -r ko; do
		mkdir -p "$KROOT/$abi/tree/$(dirname "$ko")"
		cp "$mods/kernel/$ko" "$KROOT/$abi/tree/$ko"
	done <"$KROOT/$abi/tree/modules.order"
done

repo=$work/repo
# c1..c3 53, c4 does not build, c5 53, c6..c7 54: the first bad commit is c6
planted_history "$repo" 'arch/\nmodules\n*.ko\nmodules.*\n' 53: 53: 53: broken: 53: 54: 54:
git -C "$repo" checkout -q -b work c7
# shellcheck disable=SC2016 # expanded by the build's own shell
build='k=$(cat kernel); test -d "$KROOT/$k" || { echo "no kernel $k" >&2; exit 2; }
mkdir -p arch/x86/boot && ln -sfn "$KROOT/$k/bzImage" arch/x86/boot/bzImage &&
ln -sfn "$KROOT/$k/lib/modules" modules && cp -Rp "$KROOT/$k/tree/." .'

ktb_run bisect --git "$repo" --good c1 --bad c7 --build "$build" \
	--json "$work/git.json" --artifacts "$(artifacts)" "$work/reg.yaml"
expect_rc 0
expect_out "^first bad: $(git -C "$repo" rev-parse --short c6) change 6: kernel 54$"
expect_out '^step +1 +round 0 +[0-9a-f]+ change 1: kernel 53 +good '
expect_out '^step +2 +round 0 +[0-9a-f]+ change 7: kernel 54 +bad '
expect_boots_at_most 5
json_flat "$work/git.json" | grep -q "\"first_bad\":\"$(git -C "$repo" rev-parse c6)\"" ||
	fail "the JSON does not name c6"
# the bisection is over and the tree is back where it was
[ "$(git -C "$repo" symbolic-ref --short HEAD)" = work ] || fail "HEAD was not restored"
git -C "$repo" bisect log >/dev/null 2>&1 && fail "the git bisect session was left open"

# wrong endpoints: a --good commit that fails is reported, nothing bisected
ktb_run bisect --git "$repo" --good c6 --bad c7 --build "$build" --modules modules \
	--artifacts "$(artifacts)" "$work/reg.yaml"
expect_rc 1
expect_out '^ktb bisect: --good c6 is not good: the scenario fails on it$'

# SIGTERM while a commit boots: exit 130, no QEMU left, the tree restored
mkdir "$work/tmp"
TMPDIR=$work/tmp "$KTB" bisect --git "$repo" --good c1 --bad c7 --build "$build" \
	--modules modules --artifacts "$(artifacts)" "$work/reg.yaml" >"$out" 2>&1 &
ktb_pid=$!
wait_qemus 1 "$work/tmp" || fail "QEMU never started"
stop_clean "$ktb_pid" "$work/tmp"
[ "$(git -C "$repo" symbolic-ref --short HEAD)" = work ] || fail "HEAD was not restored after SIGTERM"
exit 0
