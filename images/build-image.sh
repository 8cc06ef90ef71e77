#!/bin/bash
# Turns a kernel (Debian package or the user's own file), a module list and a
# few binaries into a guest image: vmlinux (PVH), bzImage, initrd.img, the
# kernel's config (when one is known), modules.txt and manifest.json in OUT. Called by harness/image.c, which computes the cache
# key and renames OUT into place once this script succeeds; run by hand only
# to debug a build.
set -euo pipefail

# Initramfs compression. Uncompressed boots fastest under TCG: the kernel
# unpacked the 15 MB cpio in 0.22 s, the lz4 one in 0.34 s, zstd 0.38 s,
# gzip -1 0.59 s (see images/README.md); the disk space does not matter.
COMPRESS=none

usage() {
	cat <<EOF
usage: build-image.sh --out DIR --cache DIR --guest-dir DIR [--name NAME] [--key KEY]
         (--kernel-deb PKG=VERSION | --kernel-file PATH [--modules-dir DIR] [--kernel-config PATH])
         [--missing-module fail|skip] [--module NAME]... [--binary PATH]... [--package PKG=VERSION]...
         [--kselftest-source PKG --kselftest TARGET...]
EOF
	exit 2
}

log() { echo "build-image: $*" >&2; }
die() {
	echo "build-image: error: $*" >&2
	exit 1
}

OUT="" CACHE="" GUEST_DIR="" NAME="" KEY="" KERNEL_DEB="" KERNEL_FILE="" MODULES_DIR="" KERNEL_CONFIG=""
MISSING_MODULE=fail
MODULES=() BINARIES=() PACKAGES=() KSELFTESTS=() KSELFTEST_SOURCE=
while (($#)); do
	[[ $# -ge 2 ]] || usage
	case $1 in
	--out) OUT=$2 ;;
	--cache) CACHE=$2 ;;
	--guest-dir) GUEST_DIR=$2 ;;
	--name) NAME=$2 ;;
	--key) KEY=$2 ;;
	--kernel-deb) KERNEL_DEB=$2 ;;
	--kernel-file) KERNEL_FILE=$2 ;;
	--modules-dir) MODULES_DIR=$2 ;;
	--kernel-config) KERNEL_CONFIG=$2 ;;
	--missing-module) MISSING_MODULE=$2 ;;
	--module) MODULES+=("$2") ;;
	--binary) BINARIES+=("$2") ;;
	--package) PACKAGES+=("$2") ;;
	--kselftest-source) KSELFTEST_SOURCE=$2 ;;
	--kselftest) KSELFTESTS+=("$2") ;;
	*) usage ;;
	esac
	shift 2
done
[[ -n $OUT && -n $CACHE && -n $GUEST_DIR ]] || usage
[[ -n $KERNEL_DEB || -n $KERNEL_FILE ]] || usage
[[ $MISSING_MODULE == fail || $MISSING_MODULE == skip ]] || usage

# shellcheck source=images/needs.sh
. "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
# every host program this script runs, checked before anything is built
tools=(cpio depmod ldd dpkg-deb)
[[ -n $KERNEL_DEB ]] && tools+=(apt-get)
((${#KSELFTESTS[@]})) && tools+=(make cc rsync xz)
# the error line is what ktb shows: it names each missing program
missing=$(needs "the guest image" "${tools[@]}" 2>&1) || die "${missing//$'\n'/; }"

WORK=$OUT/work
ROOT=$WORK/initramfs
mkdir -p "$WORK" "$ROOT" "$CACHE/debs"
# image.c runs one build at a time (a lock): a download folder left now is
# from a build that was killed
rm -rf "$CACHE"/debs/.download.*
# the work tree is scratch: only the outputs stay in OUT
trap 'rm -rf "$WORK"' EXIT

# --- Debian packages ---------------------------------------------------------

# fetch_deb PKG=VERSION: print the cached .deb's path, downloading it first if
# needed. apt-get writes "1%3a7.2" for the epoch "1:7.2" in file names.
fetch_deb() {
	local pkg=${1%%=*} ver=${1#*=} dl f
	f=$(compgen -G "$CACHE/debs/${pkg}_${ver//:/%3a}_*.deb" | head -n1 || true)
	if [[ -z $f ]]; then
		log "downloading $pkg $ver"
		dl=$(mktemp -d "$CACHE/debs/.download.XXXXXX")
		# a private folder, then a rename: a parallel build never sees half a .deb
		if ! (cd "$dl" && apt-get download -q "$pkg=$ver" >&2); then
			rm -rf "$dl"
			die "apt-get download $pkg=$ver failed; if the package lists are stale, run 'apt-get update'"
		fi
		for f in "$dl"/*.deb; do mv -f "$f" "$CACHE/debs/"; done
		rm -rf "$dl"
		f=$(compgen -G "$CACHE/debs/${pkg}_${ver//:/%3a}_*.deb" | head -n1 || true)
		[[ -n $f ]] || die "apt-get download $pkg=$ver left no .deb in $CACHE/debs"
	fi
	echo "$f"
}

# --- kernel --------------------------------------------------------------------

KROOT=$WORK/kernel     # a tree with lib/modules/RELEASE, for depmod and modprobe
RELEASE=""
CONFIG_FROM="" # where OUT/config came from, for the manifest
BZIMAGE_SRC=""
VMLINUX_SRC=""

kernel_from_deb() {
	local deb
	deb=$(fetch_deb "$KERNEL_DEB")
	log "extracting $(basename "$deb")"
	dpkg-deb -x "$deb" "$KROOT"
	RELEASE=$(basename "$(compgen -G "$KROOT/lib/modules/*" | head -n1)")
	[[ -n $RELEASE ]] || die "$deb holds no lib/modules/RELEASE"
	BZIMAGE_SRC=$KROOT/boot/vmlinuz-$RELEASE
	[[ -f $BZIMAGE_SRC ]] || die "$deb holds no boot/vmlinuz-$RELEASE"
	if [[ -f $KROOT/boot/config-$RELEASE ]]; then
		cp "$KROOT/boot/config-$RELEASE" "$OUT/config"
		CONFIG_FROM="$(basename "$deb") boot/config-$RELEASE"
	fi
}

# bytes FILE OFFSET [LEN]: a slice of FILE (dd, not tail|head: with pipefail
# the SIGPIPE tail gets when head is done would fail the pipeline)
bytes() {
	if (($# > 2)); then
		dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" bs=1M status=none
	else
		dd if="$1" iflag=skip_bytes skip="$2" bs=1M status=none
	fi
}

# bytes LEN at OFFSET of FILE as one unsigned little-endian number
le_at() { od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' '; }

is_elf() { [[ $(bytes "$1" 0 4 | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; }
is_bzimage() { [[ $(bytes "$1" 514 4) == HdrS ]]; }

# The release string a bzImage carries: the header's kernel_version field
# points (from 0x200) at "6.1.0-57-amd64 (debian-kernel@...) #1 ...".
bzimage_release() {
	local ptr
	ptr=$(le_at "$1" $((0x20e)) 2)
	((ptr)) || return 0
	bytes "$1" $((ptr + 0x200)) 256 | tr '\0' '\n' | sed -n '1s/ .*//p'
}

vmlinux_release() {
	LC_ALL=C grep -aom1 'Linux version [^ ]*' "$1" | sed -n '1s/^Linux version //p' || true
}

# An installed modules tree is used in place when depmod has already run on
# it; otherwise it is copied, since depmod must not write into the user's tree.
kernel_modules_user() {
	local dir=$MODULES_DIR
	if [[ ! -e $dir/modules.order && ! -d $dir/kernel ]]; then
		[[ -n $RELEASE && -d $dir/$RELEASE ]] ||
			die "--modules-dir $dir holds neither modules of release ${RELEASE:-?} nor a $RELEASE/ folder"
		dir=$dir/$RELEASE
	fi
	[[ -n $RELEASE ]] || RELEASE=$(basename "$(realpath "$dir")")
	mkdir -p "$KROOT/lib/modules"
	if [[ -e $dir/modules.dep ]]; then
		ln -s "$(realpath "$dir")" "$KROOT/lib/modules/$RELEASE"
	else
		cp -r "$dir" "$KROOT/lib/modules/$RELEASE"
	fi
}

kernel_from_file() {
	[[ -f $KERNEL_FILE ]] || die "kernel $KERNEL_FILE: no such file"
	if is_elf "$KERNEL_FILE"; then
		VMLINUX_SRC=$KERNEL_FILE
		RELEASE=$(vmlinux_release "$KERNEL_FILE")
	elif is_bzimage "$KERNEL_FILE"; then
		BZIMAGE_SRC=$KERNEL_FILE
		RELEASE=$(bzimage_release "$KERNEL_FILE")
	else
		die "kernel $KERNEL_FILE is neither an ELF vmlinux nor a bzImage"
	fi
	[[ -z $MODULES_DIR ]] || kernel_modules_user
	# image.c found it beside the kernel (its build tree's .config, or
	# config-RELEASE in its folder)
	if [[ -n $KERNEL_CONFIG ]]; then
		cp "$KERNEL_CONFIG" "$OUT/config"
		CONFIG_FROM=$KERNEL_CONFIG
	fi
	[[ -n $RELEASE ]] || die "cannot tell the release of $KERNEL_FILE; pass --modules-dir"
}

# decompress_payload BZIMAGE OUT: the bzImage header (boot protocol 2.08+)
# says where the compressed kernel sits; its first bytes say how it was
# compressed. All but gzip end in a 4-byte size the tools must not see.
decompress_payload() {
	local bz=$1 out=$2 off len magic tool=""
	off=$((($(le_at "$bz" $((0x1f1)) 1) + 1) * 512 + $(le_at "$bz" $((0x248)) 4)))
	len=$(le_at "$bz" $((0x24c)) 4)
	magic=$(bytes "$bz" "$off" 6 | od -An -tx1 | tr -d ' \n')
	case $magic in
	fd377a585a00) tool="xz -dc --single-stream" len=$((len - 4)) ;;
	1f8b*) tool="gzip -dc" ;;
	28b52ffd*) tool="zstd -dcq" len=$((len - 4)) ;;
	02214c18*) tool="lz4 -dc" len=$((len - 4)) ;;
	*) log "unknown kernel compression (magic $magic): no vmlinux"; return 1 ;;
	esac
	command -v "${tool%% *}" >/dev/null || { log "no ${tool%% *} on this host: no vmlinux"; return 1; }
	# shellcheck disable=SC2086 # $tool is a command with its options
	bytes "$bz" "$off" "$len" | $tool >"$out"
}

# A vmlinux is only worth keeping when QEMU can boot it: ELF with the Xen
# PHYS32_ENTRY note (type 0x12) that marks the PVH entry point.
has_pvh_note() {
	command -v readelf >/dev/null || return 0
	readelf -n "$1" 2>/dev/null | grep -q 'Xen.*(0x00000012)'
}

kernel_outputs() {
	if [[ -n $BZIMAGE_SRC ]]; then
		cp "$BZIMAGE_SRC" "$OUT/bzImage"
		if decompress_payload "$BZIMAGE_SRC" "$WORK/vmlinux"; then
			VMLINUX_SRC=$WORK/vmlinux
		fi
	fi
	[[ -n $VMLINUX_SRC ]] || return 0
	if ! is_elf "$VMLINUX_SRC"; then
		log "the decompressed kernel is no ELF file: no vmlinux"
	elif ! has_pvh_note "$VMLINUX_SRC"; then
		log "vmlinux has no PVH entry note (CONFIG_PVH=n?): no vmlinux"
	else
		cp "$VMLINUX_SRC" "$OUT/vmlinux"
	fi
	ikconfig_extract "$VMLINUX_SRC"
}

# ikconfig_extract VMLINUX: the config the kernel carries (CONFIG_IKCONFIG),
# a gzip stream after the IKCFG_ST marker, as the kernel's own
# scripts/extract-ikconfig finds it. Only when no config came with the kernel.
ikconfig_extract() {
	local off
	[[ ! -e $OUT/config && -f $1 ]] || return 0
	off=$(LC_ALL=C grep -abo -m1 IKCFG_ST "$1" | head -n1 | cut -d: -f1 || true)
	[[ -n $off ]] || return 0
	# gzip stops at the stream's end and warns of what follows: not an error
	bytes "$1" $((off + 8)) | gzip -dc >"$WORK/ikconfig" 2>/dev/null || true
	if grep -q '^CONFIG_' "$WORK/ikconfig"; then
		mv "$WORK/ikconfig" "$OUT/config"
		CONFIG_FROM="IKCONFIG of ${KERNEL_FILE:-$KERNEL_DEB}"
	fi
}

# --- modules -----------------------------------------------------------------

# Every module with its dependencies (softdeps included), dependencies first,
# each once; modprobe says "builtin NAME" for built-ins, which need nothing.
# A kernel tree's config may leave a module out (--missing-module skip): the
# runner then skips the scenarios that need it, by the kernel's config.
resolve_modules() {
	local m line
	for m in "$@"; do
		if ! modprobe -d "$KROOT" -S "$RELEASE" --show-depends "$m" 2>"$WORK/modprobe.err"; then
			if grep -q 'not found' "$WORK/modprobe.err" && [[ $MISSING_MODULE == skip ]]; then
				log "warning: module $m: $RELEASE has it neither as a module nor built in: left out"
				continue
			fi
			grep -q 'not found' "$WORK/modprobe.err" &&
				die "module $m: $RELEASE has no such module, modular or built in"
			die "module $m: $(head -n1 "$WORK/modprobe.err")"
		fi
	done | while read -r line; do
		case $line in
		insmod\ *) line=${line#insmod }; echo "${line%% *}" ;;
		builtin\ *) ;;
		*) die "module resolver: unexpected line '$line'" ;;
		esac
	done | awk '!seen[$0]++'
}

# install_module SRC: copy into the initramfs, decompressed (busybox insmod
# may lack the decompressor); print the guest path.
install_module() {
	local src=$1 rel dst
	rel=${src#"$KROOT"}
	rel=${rel#"$(realpath "$KROOT/lib/modules/$RELEASE")"}
	[[ $rel == /lib/modules/* ]] || rel=/lib/modules/$RELEASE$rel
	dst=${rel%.xz}
	dst=${dst%.zst}
	dst=${dst%.gz}
	mkdir -p "$ROOT$(dirname "$dst")"
	case $src in
	*.ko.xz) xz -dc "$src" >"$ROOT$dst" ;;
	*.ko.zst) zstd -dcq "$src" >"$ROOT$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$ROOT$dst" ;;
	*) cp "$src" "$ROOT$dst" ;;
	esac
	echo "$dst"
}

install_modules() {
	local kmods=$KROOT/lib/modules/$RELEASE f mods=()
	mkdir -p "$ROOT/etc/ktb" "$ROOT/lib/modules/$RELEASE"
	: >"$ROOT/etc/ktb/modules"
	((${#MODULES[@]})) || return 0
	if [[ ! -d $kmods ]]; then
		# a user's kernel with its drivers built in needs no modules
		log "warning: no modules tree for $RELEASE (--modules): recipe modules left out"
		return 0
	fi
	[[ -e $kmods/modules.dep ]] || depmod -b "$KROOT" "$RELEASE"
	# through a file: a failed process substitution would go unnoticed
	resolve_modules "${MODULES[@]}" >"$WORK/modules.resolved"
	mapfile -t mods <"$WORK/modules.resolved"
	for f in "${mods[@]}"; do
		install_module "$f" >>"$ROOT/etc/ktb/modules"
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[[ ! -e $kmods/$f ]] || cp "$kmods/$f" "$ROOT/lib/modules/$RELEASE/"
	done
	write_module_needs >"$ROOT/etc/ktb/modules.needs"
	# modules.dep for the guest's own modprobe, covering what was copied
	depmod -b "$ROOT" "$RELEASE"
	log "$(wc -l <"$ROOT/etc/ktb/modules") modules for $RELEASE"
}

# modules.needs: for each module the recipe names, "NAME FILE...", the files
# it needs in load order (its own last; none when built in). init loads only
# what the modules it keeps need when the host leaves some out (ktb.nomod=,
# the machine has no device for them: docs/guest.md).
write_module_needs() {
	local m line files
	for m in "${MODULES[@]}"; do
		files=()
		while read -r line; do
			case $line in
			insmod\ *) line=${line#insmod }; files+=("$(basename "${line%% *}")") ;;
			esac
		done < <(modprobe -d "$KROOT" -S "$RELEASE" --show-depends "$m" 2>/dev/null)
		echo "${m//-/_}" "${files[@]}"
	done
}

# modules.txt: the installed modules by the names modprobe knows them by
# (the file name without .ko, '-' written '_', as the kernel does)
write_module_list() {
	local f
	while read -r f; do
		f=${f##*/}
		f=${f%.ko}
		echo "${f//-/_}"
	done <"$ROOT/etc/ktb/modules" >"$OUT/modules.txt"
}

# --- userspace ---------------------------------------------------------------

# install_file SRC DST: copy SRC to DST in the initramfs, replacing a busybox
# link there rather than writing through it.
install_file() {
	mkdir -p "$ROOT$(dirname "$2")"
	rm -f "$ROOT$2"
	cp -L "$1" "$ROOT$2"
}

# install_elf SRC DST: the program and every library ldd lists, each at the
# path ldd gives so the loader finds it without an ld.so.cache.
install_elf() {
	local src=$1 line lib
	install_file "$src" "$2"
	line=$(ldd "$src" 2>&1) || return 0   # "not a dynamic executable"
	while read -r line; do
		case $line in
		*"not found"*) die "$src needs ${line%% *}, which is not installed on this host" ;;
		*" => /"*) lib=${line#* => }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;
		esac
		[[ -e $ROOT$lib ]] || install_file "$lib" "$lib"
	done <<<"$line"
}

install_busybox() {
	local bb=/bin/busybox applet
	[[ -x $bb ]] || die "no $bb: apt-get install busybox-static"
	if ldd "$bb" >/dev/null 2>&1; then
		die "$bb is dynamically linked: apt-get install busybox-static"
	fi
	install_file "$bb" /bin/busybox
	# what "busybox --install -s" would do, done here so init needs no setup
	while read -r applet; do
		mkdir -p "$ROOT/$(dirname "$applet")"
		[[ -e $ROOT/$applet ]] || ln -s /bin/busybox "$ROOT/$applet"
	done < <("$bb" --list-full)
}

# The testbed's programs, as the build lists them in GUEST_DIR/programs
# (guest/CMakeLists.txt): init as /init, the others in /usr/bin.
install_guest() {
	local f
	local -a progs
	[[ -s $GUEST_DIR/programs ]] ||
		die "no $GUEST_DIR/programs (the guest programs' list): build first (cmake --build build)"
	mapfile -t progs <"$GUEST_DIR/programs"
	for f in "${progs[@]}"; do
		[[ -x $GUEST_DIR/$f ]] || die "no guest binary $GUEST_DIR/$f: build it (cmake --build build)"
	done
	for f in "${progs[@]}"; do
		if [[ $f == init ]]; then
			install_elf "$GUEST_DIR/init" /init
		else
			install_elf "$GUEST_DIR/$f" "/usr/bin/$f"
		fi
	done
}

install_binaries() {
	local b path
	for b in "${BINARIES[@]+"${BINARIES[@]}"}"; do
		path=$(command -v "$b" || true)
		[[ -n $path && -x $path ]] || die "binary $b: not found on this host"
		install_elf "$path" "$path"
	done
}

# Packages contribute their programs (bin/ and sbin/ folders), each with its
# libraries; documentation and configuration stay out.
install_packages() {
	local p deb dir f
	for p in "${PACKAGES[@]+"${PACKAGES[@]}"}"; do
		deb=$(fetch_deb "$p")
		dir=$WORK/pkg-${p%%=*}
		dpkg-deb -x "$deb" "$dir"
		while IFS= read -r f; do
			install_elf "$dir/$f" "/$f"
		done < <(cd "$dir" && find bin sbin usr/bin usr/sbin -type f -perm -u+x 2>/dev/null)
	done
}

# --- kernel selftests ---------------------------------------------------------

# Bumped when the way kselftests are built changes: it names their cache.
KSELFTEST_BUILD=2

# Built once per source package version and target list into
# $CACHE/kselftest/NAME/ (unpacking the 138 MB tarball's selftests costs
# ~10 s, building ~5 s), then copied into every image that wants them.
# Prints the folder: run_kselftest.sh, kselftest-list.txt, kselftest/, TARGET/.
kselftest_build() {
	local src=/usr/src/$KSELFTEST_SOURCE.tar.xz ver name dir tmp top paths=() t
	[[ -r $src ]] || die "no $src: apt-get install $KSELFTEST_SOURCE"
	ver=$(dpkg-query -W -f='${Version}' "$KSELFTEST_SOURCE" 2>/dev/null ||
		stat -c '%s-%Y' "$src")
	name=${KSELFTEST_SOURCE}_${ver//:/%3a}_$(IFS=+; echo "${KSELFTESTS[*]}")_b$KSELFTEST_BUILD
	dir=$CACHE/kselftest/$name
	if [[ ! -e $dir/kselftest-list.txt ]]; then
		log "building kselftests ${KSELFTESTS[*]} from $KSELFTEST_SOURCE $ver"
		mkdir -p "$CACHE/kselftest"
		tmp=$(mktemp -d "$CACHE/kselftest/.tmp-$name.XXXXXX")
		top=$KSELFTEST_SOURCE
		# the selftests' make needs its own folder, the targets', and the
		# tools' make helpers; nothing else of the tree
		paths=("$top/tools/testing/selftests/"{Makefile,lib.mk,run_kselftest.sh,kselftest*}
			"$top/tools/scripts/*" "$top/scripts/subarch.include")
		for t in "${KSELFTESTS[@]}"; do
			paths+=("$top/tools/testing/selftests/$t/*")
			# what a target's Makefile names outside its folder: vm's
			# LOCAL_HDRS (without it make takes vm_util.c for the
			# whole recipe of madv_populate and friends, and builds
			# nothing)
			case $t in vm) paths+=("$top/mm/gup_test.h") ;; esac
		done
		tar -xJf "$src" -C "$WORK" --wildcards "${paths[@]}" ||
			{ rm -rf "$tmp"; die "unpacking the selftests from $src failed"; }
		# TEST_GEN_FILES empty: each target's tests (TEST_GEN_PROGS, TEST_PROGS),
		# not the helper programs only its own scripts run (vm's
		# run_vmtests.sh wants some thirty, two of which need libnuma and
		# libcap); so vm gives madv_populate, soft-dirty, split_huge_page_test
		if ! make -s -C "$WORK/$top/tools/testing/selftests" TARGETS="${KSELFTESTS[*]}" \
			TEST_GEN_FILES= install INSTALL_PATH="$tmp" >&2; then
			rm -rf "$tmp"
			die "building kselftests ${KSELFTESTS[*]} failed"
		fi
		# the selftests' install goes on past a target whose make failed:
		# every test it lists must be there
		while IFS=: read -r t f; do
			[[ -e $tmp/$t/$f ]] || {
				rm -rf "$tmp"
				die "building kselftests ${KSELFTESTS[*]}: $t/$f is listed but was not built"
			}
		done <"$tmp/kselftest-list.txt"
		rm -rf "$dir"
		mv "$tmp" "$dir"
	fi
	echo "$dir"
}

# /usr/lib/kselftest in the guest: the runner, its list, each target's
# programs with their libraries. The runner runs each test under
# /usr/bin/timeout --foreground, which busybox's timeout lacks: coreutils'.
install_kselftests() {
	local dir f
	((${#KSELFTESTS[@]})) || return 0
	dir=$(kselftest_build)
	mkdir -p "$ROOT/usr/lib/kselftest"
	cp -r "$dir/." "$ROOT/usr/lib/kselftest/"
	while IFS= read -r f; do
		if is_elf "$dir/$f"; then install_elf "$dir/$f" "/usr/lib/kselftest/$f"; fi
	done < <(cd "$dir" && find . -type f -perm -u+x | sed 's|^\./||')
	install_elf /usr/bin/timeout /usr/bin/timeout
	log "kselftests: $(wc -l <"$dir/kselftest-list.txt") tests of ${KSELFTESTS[*]}"
}

install_etc() {
	mkdir -p "$ROOT"/{dev,proc,sys,run,tmp,root,mnt,etc,var/tmp}
	ln -sfn /run "$ROOT/var/run"    # qemu-ga and others put pid files there
	echo 'root:x:0:0:root:/root:/bin/sh' >"$ROOT/etc/passwd"
	echo 'root:x:0:' >"$ROOT/etc/group"
}

write_initrd() {
	local tmp=$WORK/initrd
	# -R 0:0: files belong to root in the guest whoever builds the image
	(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp.cpio"
	case $COMPRESS in
	none) mv "$tmp.cpio" "$OUT/initrd.img" ;;
	gzip) gzip -1 -n <"$tmp.cpio" >"$OUT/initrd.img" ;;
	lz4) lz4 -l -q -c "$tmp.cpio" >"$OUT/initrd.img" ;;
	zstd) zstd -q -c -3 "$tmp.cpio" >"$OUT/initrd.img" ;;
	esac
	log "initrd.img: $(stat -c %s "$OUT/initrd.img") bytes ($COMPRESS), $(stat -c %s "$tmp.cpio") unpacked"
}

# --- manifest ----------------------------------------------------------------

json_str() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

json_file_or_null() {
	if [[ -e $OUT/$1 ]]; then json_str "$1"; else printf null; fi
}

deb_versions() {
	local p sep=""
	for p in ${KERNEL_DEB:+"$KERNEL_DEB"} "${PACKAGES[@]+"${PACKAGES[@]}"}"; do
		printf '%s%s: %s' "$sep" "$(json_str "${p%%=*}")" "$(json_str "${p#*=}")"
		sep=", "
	done
}

# Written last: image.c treats a folder without manifest.json as unfinished.
write_manifest() {
	{
		printf '{\n  "name": %s,\n  "key": %s,\n' "$(json_str "$NAME")" "$(json_str "$KEY")"
		printf '  "release": %s,\n' "$(json_str "$RELEASE")"
		printf '  "vmlinux": %s,\n' "$(json_file_or_null vmlinux)"
		printf '  "bzimage": %s,\n' "$(json_file_or_null bzImage)"
		printf '  "initrd": "initrd.img",\n  "compression": %s,\n' "$(json_str "$COMPRESS")"
		printf '  "kernel_file": %s,\n' "$(json_str "$KERNEL_FILE")"
		printf '  "config": %s,\n' "$(json_file_or_null config)"
		printf '  "config_from": %s,\n' "$(json_str "$CONFIG_FROM")"
		printf '  "module_list": "modules.txt",\n'
		printf '  "packages": {%s},\n' "$(deb_versions)"
		printf '  "modules": %s\n}\n' "$(wc -l <"$ROOT/etc/ktb/modules")"
	} >"$OUT/manifest.json.tmp"
	mv "$OUT/manifest.json.tmp" "$OUT/manifest.json"
}

if [[ -n $KERNEL_DEB ]]; then kernel_from_deb; else kernel_from_file; fi
kernel_outputs
[[ -e $OUT/vmlinux || -e $OUT/bzImage ]] || die "no bootable kernel came out of ${KERNEL_FILE:-$KERNEL_DEB}"
install_busybox
install_modules
write_module_list
install_binaries
install_packages
install_guest
install_kselftests
install_etc
write_initrd
write_manifest
log "done ($RELEASE)"
