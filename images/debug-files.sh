#!/bin/bash
# The debug files of a Debian kernel for `ktb image build --debug`: from its
# linux-image-RELEASE-dbg package, only the vmlinux and the .ko files of the
# modules an image holds, unpacked into OUT:
#
#   OUT/vmlinux              usr/lib/debug/boot/vmlinux-RELEASE
#   OUT/modules/NAME.ko      each module's, by its own file name
#   OUT/manifest.json        the package, its version, the modules found
#
# Called by harness/image/image_debug.c, which renames OUT into place as
# IMAGE/debug once this succeeds; the .deb is removed at the end (one
# already in CACHE/debs is used and left there). Run by hand only to debug.
set -euo pipefail

# Free space wanted in OUT before the download: 6.1.0-57's package is
# 860 MB, the vmlinux in it 605 MB and the default image's 46 modules 75 MB
# (docs/debugging.md); a margin over their sum.
NEED_MB=2048

usage() {
	cat <<EOF
usage: debug-files.sh --out DIR --cache DIR --package PKG=VERSION --release RELEASE
         --modules FILE
EOF
	exit 2
}

log() { echo "debug-files: $*" >&2; }
die() {
	echo "debug-files: error: $*" >&2
	exit 1
}

OUT="" CACHE="" PACKAGE="" RELEASE="" MODULES=""
while (($#)); do
	[[ $# -ge 2 ]] || usage
	case $1 in
	--out) OUT=$2 ;;
	--cache) CACHE=$2 ;;
	--package) PACKAGE=$2 ;;
	--release) RELEASE=$2 ;;
	--modules) MODULES=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ -n $OUT && -n $PACKAGE && -n $RELEASE && -n $MODULES ]] || usage
[[ $PACKAGE == *=* ]] || usage
PKG=${PACKAGE%%=*} VER=${PACKAGE#*=}

# shellcheck source=images/needs.sh
. "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
missing=$(needs "ktb image build --debug" apt-get dpkg-deb tar 2>&1) ||
	die "${missing//$'\n'/; }"
[[ -r $MODULES ]] || die "no module list $MODULES"

AGAIN="then ktb image build --debug again"
WORK=$OUT/work
mkdir -p "$WORK"
# only the outputs stay in OUT (and the .deb downloaded into it goes)
trap 'rm -rf "$WORK"' EXIT

no_space() {
	die "no space left on the disk of $OUT ($1): the debug package needs about $NEED_MB MB" \
		"while it is unpacked; free some there (or set XDG_CACHE_HOME to a folder on a" \
		"larger disk), $AGAIN"
}

# --- the package ---------------------------------------------------------------

avail=$(df -Pk "$OUT" | awk 'NR == 2 {print int($4 / 1024)}')
[[ -z $avail ]] || ((avail >= NEED_MB)) || no_space "$avail MB free"

# fetch: print the .deb's path, downloading it into WORK unless the cache
# has it (apt-get writes the epoch's ':' as "%3a" in file names)
fetch() {
	local f
	f=$(compgen -G "${CACHE:-/nonexistent}/debs/${PKG}_${VER//:/%3a}_*.deb" | head -n1 || true)
	if [[ -n $f ]]; then
		echo "$f"
		return
	fi
	log "downloading $PKG $VER"
	mkdir -p "$WORK/dl"
	if ! (cd "$WORK/dl" && apt-get download -q "$PKG=$VER") >"$WORK/apt.log" 2>&1; then
		cat "$WORK/apt.log" >&2
		grep -q 'No space left' "$WORK/apt.log" && no_space "apt-get download $PKG=$VER"
		if grep -Eq "Unable to locate package|Can't find a package|Version .* was not found" \
			"$WORK/apt.log"; then
			die "apt knows no $PKG=$VER, the debug package of kernel $RELEASE: run" \
				"'apt-get update', $AGAIN; if apt still knows none, the archive no longer" \
				"has it (Debian keeps the debug packages of its current kernels): an image" \
				"of a current kernel (--kernel ABI) has one"
		fi
		die "apt-get download $PKG=$VER failed: $(grep -E '^(E|W|Err):' "$WORK/apt.log" |
			tail -n1 || true); check the network and apt's sources (apt-get update)," \
			"$AGAIN"
	fi
	f=$(compgen -G "$WORK/dl/${PKG}_*.deb" | head -n1 || true)
	[[ -n $f ]] || die "apt-get download $PKG=$VER left no .deb"
	echo "$f"
}

deb=$(fetch)

# --- what to take out of it ----------------------------------------------------

# In the package: usr/lib/debug/boot/vmlinux-RELEASE, and each module at
# usr/lib/debug/lib/modules/RELEASE/kernel/PATH/NAME.ko. modules.txt names
# modules as the kernel does ('-' written '_'), their files may have either.
VMLINUX=./usr/lib/debug/boot/vmlinux-$RELEASE
MODDIR=./usr/lib/debug/lib/modules/$RELEASE
members=("$VMLINUX")
names=()
while read -r m; do
	[[ -n $m ]] || continue
	[[ $m =~ ^[A-Za-z0-9_-]+$ ]] || die "$MODULES: '$m' is not a module name"
	names+=("$m")
	members+=("$MODDIR/*/${m//_/[-_]}.ko")
done <"$MODULES"

# One pass over the whole archive (the modules are all over it: xz, some
# 50 s of CPU for the 5.6 GB of 6.1's); a pattern tar does not find is a
# module without debug file, said below, not a failure.
log "unpacking vmlinux-$RELEASE and ${#names[@]} modules from $(basename "$deb")"
mkdir -p "$WORK/x"
set +e
dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$WORK/x" --no-same-owner --no-same-permissions --wildcards -f - \
		"${members[@]}" 2>"$WORK/tar.err"
st=("${PIPESTATUS[@]}")
set -e
if grep -q 'No space left' "$WORK/tar.err"; then
	no_space "unpacking $(basename "$deb")"
fi
if ((st[0] != 0)) || grep -v -e 'Not found in archive' -e 'Exiting with failure status' \
	"$WORK/tar.err" | grep -q .; then
	cat "$WORK/tar.err" >&2
	die "unpacking $deb failed (dpkg-deb exit ${st[0]}, tar exit ${st[1]}):" \
		"$(grep -v 'Not found in archive' "$WORK/tar.err" | head -n1)"
fi
[[ -f $WORK/x/$VMLINUX ]] || die "$(basename "$deb") holds no ${VMLINUX#./}"

mv "$WORK/x/$VMLINUX" "$OUT/vmlinux"
mkdir -p "$OUT/modules"
found=0 absent=()
for m in "${names[@]}"; do
	f=$(find "$WORK/x/$MODDIR" -name "${m//_/[-_]}.ko" -print -quit 2>/dev/null || true)
	if [[ -n $f ]]; then
		mv "$f" "$OUT/modules/"
		found=$((found + 1))
	else
		absent+=("$m")
	fi
done
((${#absent[@]} == 0)) ||
	log "warning: no debug file of module(s) ${absent[*]} in $(basename "$deb"): their frames stay undecoded"

# --- the record -----------------------------------------------------------------

json_str() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

{
	printf '{\n  "package": %s,\n  "version": %s,\n' "$(json_str "$PKG")" "$(json_str "$VER")"
	printf '  "release": %s,\n  "vmlinux": "vmlinux",\n' "$(json_str "$RELEASE")"
	printf '  "modules": %d,\n  "modules_missing": [' "$found"
	sep=""
	for m in "${absent[@]+"${absent[@]}"}"; do
		printf '%s%s' "$sep" "$(json_str "$m")"
		sep=", "
	done
	printf ']\n}\n'
} >"$OUT/manifest.json"
log "done: vmlinux ($(du -m "$OUT/vmlinux" | cut -f1) MB) and $found module files ($(du -sm "$OUT/modules" | cut -f1) MB)"
