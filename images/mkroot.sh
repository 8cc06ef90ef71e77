#!/bin/bash
# A Debian root file system from a recipe (release, packages), built with
# mmdebstrap's minbase variant: what a fresh Debian machine has, plus the
# packages asked for. The fresh-machine test (tests/vm/t_fresh.sh) uses it
# as "a user's fresh machine".
#
# No daemon a package would start is started: the root has a policy-rc.d
# that refuses them (exit 101), for the build and for whatever is installed
# into it later.
set -euo pipefail

usage() {
	cat >&2 <<EOF
usage: mkroot.sh --out DIR [--release NAME] [--include PKG[,PKG...]] [--deb-cache DIR]
                 [--source FILE]...
  --out DIR        the root to create (absent or empty)
  --release NAME   the Debian release (default bookworm, Debian 12)
  --include PKGS   packages beyond minbase, comma-separated
  --deb-cache DIR  .deb files to offer apt in the root instead of downloading
                   them again (a download cache only: nothing is installed
                   from it that apt in the root did not choose)
  --source FILE    an apt sources file (one-line or deb822 .sources) for the
                   root instead of deb.debian.org's release; repeatable
EOF
	exit 2
}

out="" release=bookworm include="" debs="" sources=()
while (($#)); do
	[[ $# -ge 2 ]] || usage
	case $1 in
	--out) out=$2 ;;
	--release) release=$2 ;;
	--include) include=$2 ;;
	--deb-cache) debs=$2 ;;
	--source) sources+=("$2") ;;
	*) usage ;;
	esac
	shift 2
done
[[ -n $out ]] || usage
[[ ! -e $out ]] || [[ -z $(ls -A "$out") ]] || {
	echo "mkroot: $out exists and is not empty" >&2
	exit 2
}
# shellcheck source=images/needs.sh
. "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
needs "a Debian root" mmdebstrap || exit 1
[[ $(id -u) -eq 0 ]] || {
	echo "mkroot: a root file system for a chroot is built as root" >&2
	exit 1
}
mkdir -p "$out"

# offer_debs DIR: the offered .debs in DIR's archive folder, as hard links
# where the file system allows (no copy); apt there uses a file whose hash
# matches what it chose, and downloads the rest.
offer_debs() {
	mkdir -p "$1/var/cache/apt/archives"
	find "$debs" -maxdepth 1 -name '*.deb' -exec cp -l -n -t "$1/var/cache/apt/archives/" {} + \
		2>/dev/null ||
		find "$debs" -maxdepth 1 -name '*.deb' -exec cp -n -t "$1/var/cache/apt/archives/" {} +
}

hooks=()
if [[ -n $debs ]]; then
	[[ -d $debs ]] || { echo "mkroot: no folder $debs (--deb-cache)" >&2; exit 2; }
	hooks+=(--setup-hook="$(declare -f offer_debs); debs='$debs'; offer_debs \"\$1\"")
fi
# dpkg without fsync (force-unsafe-io, kept in the root): the root is scratch
mmdebstrap --quiet --mode=root --variant=minbase --dpkgopt=force-unsafe-io ${include:+--include="$include"} \
	"${hooks[@]}" "$release" "$out" "${sources[@]}"
# mmdebstrap cleans its archive folder and restores the policy-rc.d it found
# at the end: both are set up again for what runs in the root later
[[ -z $debs ]] || offer_debs "$out"
printf '#!/bin/sh\n# no daemon starts in this root (images/mkroot.sh)\nexit 101\n' \
	>"$out/usr/sbin/policy-rc.d"
chmod 755 "$out/usr/sbin/policy-rc.d"
