# Shared by the own-kernel tests, vm/scenario/NAME (run_scenario.sh) and
# bench/boot, bench/suite: the minimal
# kernel, built from Debian's linux-source-6.1 with `ktb kconfig --minimal
# --apply` on the scenario library, and cached by the hash of the fragment's options and the
# source package's version, so only the first call builds.
#
#   minimal_kernel KTB SCENARIOS: prints the cache folder, which holds
#   bzImage, config (beside it, where ktb looks), build_s (the build's
#   seconds) and tree/, the build tree, kept for the variants below;
#   progress on stderr. Returns 1 when it cannot build. A folder cached
#   before the tree was kept is built again when a variant needs the tree.
#
#   slowed_kernel KTB SCENARIOS MS [mdelay|udelay]: the minimal kernel with one
#   real slowdown, rtc-cmos's resume sleeping MS ms first (cmos_resume,
#   called for "rtc_cmos 00:03 pnp_bus_resume" on every S3 wake): built in
#   the minimal kernel's tree from the one file changed (a minute, not half
#   an hour), the file then put back; prints the variant's folder (bzImage,
#   config), cached beside the tree as slow-resume-MSms. msleep sleeps in
#   whole jiffies (at HZ=250, msleep(3) takes 4 to 8 ms); with mdelay the
#   resume busy-waits MS ms instead, exactly (cached as busy-resume-MSms);
#   with udelay, MS microseconds (busy-resume-MSus).

minimal_kernel_source=/usr/src/linux-source-6.1.tar.xz
# shellcheck source=images/needs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../images/needs.sh"

# kernel_build_needs WHAT: 0 when the source tarball and the build's tools
# are here; else 1, saying what is missing and how to install it.
kernel_build_needs() {
	if [ ! -r "$minimal_kernel_source" ]; then
		echo "$1: no $minimal_kernel_source; install linux-source-6.1" \
			"(./bootstrap test does)" >&2
		return 1
	fi
	needs "$1" make cc bc bison flex || return 1
	if ! pkg-config --exists libelf 2>/dev/null; then
		echo "$1 needs libelf's headers (objtool), which are not installed:" \
			"apt-get install libelf-dev" >&2
		return 1
	fi
}

# kernel_build WHAT KTB TMP SCENARIOS...: linux-source-6.1 unpacked in
# TMP (as TMP/linux-source-6.1, or TMP/$KERNEL_BUILD_TREE), configured
# with ktb kconfig --minimal --apply for the scenarios and its bzImage made
# (log in TMP/build.log); on a failure, the log's end is shown and TMP
# removed (1). A tree built to be built again must be built where it stays:
# objtool is made with absolute paths, so a tree that moved builds objtool
# anew, and with it every object.
kernel_build() {
	local what=$1 ktb=$2 tmp=$3 name=${KERNEL_BUILD_TREE:-linux-source-6.1}
	shift 3
	if ! tar -xf "$minimal_kernel_source" -C "$tmp" --transform "s,^linux-source-6.1,$name," ||
		! "$ktb" kconfig --minimal --apply "$tmp/$name" "$@" >&2 ||
		! make -C "$tmp/$name" -j"$(nproc)" bzImage >"$tmp/build.log" 2>&1; then
		echo "$what: the build failed; the end of its log:" >&2
		tail -20 "$tmp/build.log" >&2 2>/dev/null
		rm -rf "$tmp"
		return 1
	fi
}

minimal_kernel() {
	local ktb=$1 lib=$2 cache ver key dir t0 lock need_tree=${MINIMAL_KERNEL_TREE:-}
	kernel_build_needs "the minimal kernel" || return 1
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
	# the options alone, sorted, as for the debug kernel below: a scenario
	# that needs no option the library did not already ask for (only the
	# fragment's comments, which name who needs what, change) builds nothing
	key=$({ "$ktb" kconfig --minimal "$lib" | grep -v '^#' | sort -u &&
		echo "linux-source-6.1 $ver minimal"; } | sha256sum | cut -c1-16) || return 1
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/ktb/kernels
	dir=$cache/minimal-$key
	mkdir -p "$cache"
	# one build of a key at a time: a second caller (the test, while
	# tests/vm/prebuild.sh builds it) waits here and finds it built
	exec {lock}>"$cache/.lock-minimal-$key"
	flock "$lock"
	if [ -s "$dir/bzImage" ] && [ -s "$dir/config" ] &&
		{ [ -z "$need_tree" ] || [ -s "$dir/tree/vmlinux" ]; }; then
		exec {lock}>&-
		echo "$dir"
		return 0
	fi
	[ ! -d "$dir" ] || echo "minimal kernel: $dir has no build tree (cached before trees were kept): building it again" >&2
	echo "minimal kernel: building linux-source-6.1 $ver in $dir/tree (once)" >&2
	t0=$(date +%s)
	# built where it stays (kernel_build says why); the folder counts as
	# cached once bzImage and config are in it, and they come last
	rm -rf "$dir"
	mkdir -p "$dir"
	KERNEL_BUILD_TREE=tree kernel_build "minimal kernel" "$ktb" "$dir" "$lib" || { exec {lock}>&-; return 1; }
	echo $(($(date +%s) - t0)) >"$dir/build_s"
	cp "$dir/tree/.config" "$dir/config.tmp"
	cp "$dir/tree/arch/x86/boot/bzImage" "$dir/bzImage.tmp"
	mv "$dir/config.tmp" "$dir/config"
	mv "$dir/bzImage.tmp" "$dir/bzImage"
	exec {lock}>&-
	echo "minimal kernel: built in $(cat "$dir/build_s") s" >&2
	echo "$dir"
}

slowed_kernel() {
	local ktb=$1 lib=$2 ms=$3 call=${4:-msleep} dir out src lock
	dir=$(MINIMAL_KERNEL_TREE=1 minimal_kernel "$ktb" "$lib") || return 1
	case $call in
	msleep) out=$dir/slow-resume-${ms}ms ;;
	mdelay) out=$dir/busy-resume-${ms}ms ;;
	udelay) out=$dir/busy-resume-${ms}us ;;
	*) echo "slowed kernel: $call is not msleep, mdelay or udelay" >&2; return 1 ;;
	esac
	src=$dir/tree/drivers/rtc/rtc-cmos.c
	# the tree's own lock: one variant built in it at a time
	exec {lock}>"$dir/.lock-tree"
	flock "$lock"
	if [ -s "$out/bzImage" ]; then
		exec {lock}>&-
		echo "$out"
		return 0
	fi
	echo "slowed kernel: rtc-cmos's resume waiting $call($ms), built in $dir/tree" >&2
	cp -p "$src" "$src.orig"
	# msleep's header after the first of the file's, and the sleep after
	# cmos_resume's declarations (its body's first blank line)
	if ! awk -v ms="$ms" -v call="$call" '{ print }
		/^#include <linux\// && !inc { print "#include <linux/delay.h>"; inc = 1 }
		/^static int .*cmos_resume\(struct device \*dev\)$/ { body = 1; next }
		body && /^$/ { print "\t" call "(" ms "); /* ktestbed: a planted slowdown */"; body = 0 }' \
		"$src.orig" >"$src" || ! grep -q 'ktestbed: a planted slowdown' "$src"; then
		echo "slowed kernel: cmos_resume not found in $src" >&2
		mv "$src.orig" "$src"
		exec {lock}>&-
		return 1
	fi
	if ! make -C "$dir/tree" -j"$(nproc)" bzImage >"$dir/tree/slowed.log" 2>&1; then
		echo "slowed kernel: the build failed; the end of its log:" >&2
		tail -20 "$dir/tree/slowed.log" >&2
		mv "$src.orig" "$src"
		exec {lock}>&-
		return 1
	fi
	mkdir -p "$out.tmp"
	cp "$dir/tree/arch/x86/boot/bzImage" "$out.tmp/bzImage"
	cp "$dir/tree/.config" "$out.tmp/config"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	# the source put back (newer than its object, so the next build in the
	# tree compiles it again); the tree's own bzImage stays the slowed one,
	# which nothing boots: the minimal kernel is the folder's bzImage
	mv "$src.orig" "$src"
	touch "$src"
	exec {lock}>&-
	echo "$out"
}

# debug_kernel KTB SCENARIOS...: as minimal_kernel, for the scenarios given
# (the report scenarios' kernel.requires: symbols, DWARF, LKDTM, the
# sanitizers), and the build tree itself is what is cached, as a kernel
# tree `ktb run --kernel DIR` takes: its arch/x86/boot/bzImage, .config and
# vmlinux (the findings' stacks decoded against it, drgn's symbols). Prints
# the tree; its build's seconds are in build_s beside it.
debug_kernel() {
	local ktb=$1 cache ver key dir tmp t0 lock
	shift
	kernel_build_needs "the debug kernel" || return 1
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
	# the options alone, sorted: a comment or an order that changes (which
	# scenario needs an option) builds nothing anew
	key=$({ "$ktb" kconfig --minimal "$@" | grep -v '^#' | sort -u &&
		echo "linux-source-6.1 $ver debug"; } | sha256sum | cut -c1-16) || return 1
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/ktb/kernels
	dir=$cache/debug-$key
	mkdir -p "$cache"
	exec {lock}>"$cache/.lock-debug-$key"
	flock "$lock"
	if [ -s "$dir/tree/arch/x86/boot/bzImage" ] && [ -s "$dir/tree/vmlinux" ]; then
		exec {lock}>&-
		echo "$dir/tree"
		return 0
	fi
	tmp=$(mktemp -d "$cache/.build-XXXXXX")
	echo "debug kernel: building linux-source-6.1 $ver in $tmp (once; cached as $dir)" >&2
	t0=$(date +%s)
	kernel_build "debug kernel" "$ktb" "$tmp" "$@" || { exec {lock}>&-; return 1; }
	# no modules: the tree's modules.order is empty
	: >"$tmp/linux-source-6.1/modules.order"
	echo $(($(date +%s) - t0)) >"$tmp/build_s"
	mv "$tmp/linux-source-6.1" "$tmp/tree"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	exec {lock}>&-
	echo "debug kernel: built in $(cat "$dir/build_s") s" >&2
	echo "$dir/tree"
}
