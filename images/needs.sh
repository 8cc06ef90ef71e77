# shellcheck shell=bash
# Sourced by images/build-image.sh, tests/vm/minimal_kernel.sh and bench/:
# before a build, the host programs it runs, each missing one named with
# the Debian package that brings it (from packages.txt, the one list).
#
#   needs WHAT CMD...: returns 1 after one line on stderr per missing CMD,
#   "WHAT needs CMD, which is not installed: apt-get install PKG".

needs_packages_txt=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/packages.txt

# needs_package CMD: the package whose "commands" column lists CMD, or "".
needs_package() {
	[ -r "$needs_packages_txt" ] || return 0
	awk -v cmd="$1" '!/^#/ && NF >= 3 {
		n = split($3, c, ",")
		for (i = 1; i <= n; i++) if (c[i] == cmd) { print $1; exit }
	}' "$needs_packages_txt"
}

needs() {
	local what=$1 cmd pkg rc=0
	shift
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 && continue
		pkg=$(needs_package "$cmd")
		echo "$what needs $cmd, which is not installed: apt-get install ${pkg:-(the package with $cmd)}" >&2
		rc=1
	done
	return $rc
}
