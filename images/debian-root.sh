#!/bin/bash
# The Debian root a guest runs on (guest.root debian, ktb boot --root debian,
# docs/guest.md): images/mkroot.sh's minbase root with the packages asked
# for, cached under CACHE/roots/KEY. KEY hashes the recipe (release and
# packages), these two scripts, and the version of every package the root
# will hold, resolved from apt's package lists before anything is built:
# the same recipe over the same lists is the same root, a package that
# moves on is a new one. The resolved versions and what was installed are
# in KEY/manifest.json. Prints the root's folder on stdout (the last line).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
	cat >&2 <<EOF
usage: debian-root.sh --cache DIR [--release NAME] [--package PKG]... [--key] [--deb-cache DIR]
  --cache DIR      the ktb cache (the root goes to DIR/roots/KEY/root)
  --release NAME   the Debian release (default bookworm, Debian 12); it must be
                   one apt on this host knows, whose lists resolve the versions
  --package PKG    a package beyond minbase and the testbed's own; repeatable
  --key            print the key only; build nothing
  --deb-cache DIR  .deb files to offer apt in the root (images/mkroot.sh)
  --log FILE       its messages (what it builds, what is wrong) appended to FILE
                   too, the last one saying why when it fails
EOF
	exit 2
}

cache="" release=bookworm key_only=false debs="" log="" pkgs=()
while (($#)); do
	case $1 in
	--key) key_only=true; shift; continue ;;
	esac
	[[ $# -ge 2 ]] || usage
	case $1 in
	--cache) cache=$2 ;;
	--release) release=$2 ;;
	--package) pkgs+=("$2") ;;
	--deb-cache) debs=$2 ;;
	--log) log=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ -n $cache ]] || usage

# say MESSAGE: on stderr, and in the log for whoever started us
say() {
	echo "debian-root: $*" >&2
	[[ -z $log ]] || echo "$*" >>"$log"
}
[[ $release =~ ^[a-z][a-z0-9-]*$ ]] || {
	say "'$release' is no release name; give one such as bookworm"
	exit 2
}

# What the testbed's steps run in a guest beyond minbase: dmsetup (multipath
# steps), modprobe and ps for people at the shell.
base=(dmsetup kmod procps)
for p in "${pkgs[@]}"; do
	[[ $p =~ ^[a-z0-9][a-z0-9+.-]+$ ]] || {
		say "'$p' is no Debian package name"
		exit 2
	}
done
mapfile -t wanted < <(printf '%s\n' "${base[@]}" "${pkgs[@]}" | sort -u)

# shellcheck source=images/needs.sh
. "$here/needs.sh"
needs "a Debian root" apt-get apt-cache sha256sum || exit 1
mkdir -p "$cache/roots"

# The release's lists: its Release file must be among apt's lists (the
# suite named in a sources file, or apt-get update not yet run).
lists=/var/lib/apt/lists
compgen -G "$lists/*_dists_${release}_InRelease" >/dev/null ||
	compgen -G "$lists/*_dists_${release}_Release" >/dev/null || {
	say "apt on this host has no package lists for $release; add it to apt's sources and run apt-get update, or give --release one it has"
	exit 2
}

# resolve: "package version" for every package minbase and the wanted ones
# bring, as apt would choose them for an empty system. Kept per lists state
# and recipe in CACHE/roots/resolved-*: apt takes seconds for it.
resolve() {
	local req
	mapfile -t req < <(apt-cache dumpavail | awk '
		/^Package:/ { p = $2 }
		/^Priority: required/ || /^Essential: yes/ { print p }' | sort -u)
	apt-get -s -q -o Dir::State::status=/dev/null -o APT::Install-Recommends=false \
		install "${req[@]}" apt "${wanted[@]}" 2>"$1" |
		awk '/^Inst / { v = $3; gsub(/^\(/, "", v); print $2, v }' | sort -u
}

fp=$( {
	stat -c '%n %s %Y' "$lists"/*_Packages* /etc/apt/preferences.d/* 2>/dev/null || true
	printf '%s\n' "$release" "${wanted[@]}"
} | sha256sum | cut -c1-32)
memo=$cache/roots/resolved-$fp
if [[ ! -s $memo ]]; then
	resolve "$memo.err.$$" >"$memo.tmp.$$" || true
	if [[ ! -s $memo.tmp.$$ ]]; then
		say "apt cannot resolve the packages for $release: $(grep -m1 '^E:' "$memo.err.$$" || head -n1 "$memo.err.$$")"
		rm -f "$memo.tmp.$$" "$memo.err.$$"
		exit 2
	fi
	rm -f "$memo.err.$$"
	mv "$memo.tmp.$$" "$memo"
fi
for p in "${wanted[@]}"; do
	grep -q "^$p " "$memo" || {
		say "package $p: apt knows no such package for $release"
		exit 2
	}
done

key=$( {
	echo "release $release"
	printf 'package %s\n' "${wanted[@]}"
	sha256sum "$here/debian-root.sh" "$here/mkroot.sh" | cut -d' ' -f1
	cat "$memo"
} | sha256sum | cut -c1-40)
if $key_only; then
	echo "$key"
	exit 0
fi
dir=$cache/roots/$key
if [[ -s $dir/manifest.json ]]; then
	echo "$dir/root"
	exit 0
fi

[[ $(id -u) -eq 0 ]] || {
	say "a Debian root is built as root (mmdebstrap); run ktb as root once to build it, or use --root host"
	exit 1
}
exec 9>"$cache/roots/.lock"
flock 9
if [[ -s $dir/manifest.json ]]; then # built while we waited
	echo "$dir/root"
	exit 0
fi
tmp=$cache/roots/$key.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf --one-file-system "$tmp"' EXIT
start=$(date +%s)
say "building $release with ${pkgs[*]:-no package} (${#wanted[@]} beyond minbase) into $dir"
# the host's own apt sources, so the root gets what the lists resolved
srcs=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[[ -s $f ]] && srcs+=(--source "$f")
done
include=$(IFS=,; echo "${wanted[*]}")
"$here/mkroot.sh" --out "$tmp/root" --release "$release" --include "$include" \
	${debs:+--deb-cache "$debs"} "${srcs[@]}" >&2 || {
	say "mmdebstrap could not build the root (its messages are above)"
	exit 1
}
# the .debs mkroot.sh offers apt (--deb-cache: this host's kernels and
# packages, hard links) are left in the root for apt's later use there; a
# guest has none, and in the root's disk image they would be copies
find "$tmp/root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -delete
secs=$(($(date +%s) - start))
size=$(du -sb "$tmp/root" | cut -f1)
{
	printf '{\n  "key": "%s",\n  "release": "%s",\n  "build_s": %d,\n  "size_bytes": %d,\n' \
		"$key" "$release" "$secs" "$size"
	printf '  "packages": [%s],\n' "$(printf '"%s",' "${wanted[@]}" | sed 's/,$//')"
	printf '  "resolved": {%s},\n' "$(awk '{printf "%s\"%s\": \"%s\"", (NR > 1 ? ", " : ""), $1, $2}' "$memo")"
	# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
	printf '  "installed": {%s}\n}\n' "$(chroot "$tmp/root" dpkg-query -W -f '${Package} ${Version}\n' |
		sort | awk '{printf "%s\"%s\": \"%s\"", (NR > 1 ? ", " : ""), $1, $2}')"
} >"$tmp/manifest.json"
mv "$tmp" "$dir"
trap - EXIT
say "built in ${secs} s, $((size / 1048576)) MiB"
echo "$dir/root"
