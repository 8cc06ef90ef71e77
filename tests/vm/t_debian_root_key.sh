# label: cli
# A Debian root's cache key (images/debian-root.sh --key) is the recipe and
# the versions apt resolves: the same recipe over the same package lists
# gives the same key from two empty caches; another package, or one
# package at another version, gives another; a package apt does not know
# and a release it has no lists for are refused with the reason. Builds
# nothing.
. "$(dirname "$0")/lib.sh"
s=$KTB_SRC/images/debian-root.sh

key() {
	rc=0
	"$s" --cache "$1" --key "${@:2}" >"$out" 2>&1 || rc=$?
	expect_rc 0
	tail -n1 "$out"
}

a=$(key "$work/a" --package fio)
b=$(key "$work/b" --package fio)
[[ $a =~ ^[0-9a-f]{40}$ ]] || fail "no key: $a"
[ "$a" = "$b" ] || fail "one recipe, two keys from two caches: $a $b"
[ "$(key "$work/a" --package fio)" = "$a" ] || fail "the key changed on a second ask"
c=$(key "$work/c" --package fio --package xfsprogs)
[ "$c" != "$a" ] || fail "another package, the same key"
# the same recipe, one package resolved at another version
memo=$(ls "$work/b/roots"/resolved-*)
grep -q '^fio ' "$memo" || fail "fio's version is not among the resolved ones: $(cat "$memo")"
sed -i 's/^\(fio \)\(.*\)$/\1\2+ktb1/' "$memo"
d=$(key "$work/b" --package fio)
[ "$d" != "$a" ] || fail "fio at another version, the same key"

rc=0
"$s" --cache "$work/a" --key --package ktb-no-such-package >"$out" 2>&1 || rc=$?
expect_rc 2
expect_out 'Unable to locate package ktb-no-such-package'
rc=0
"$s" --cache "$work/a" --key --release ktb-no-release >"$out" 2>&1 || rc=$?
expect_rc 2
expect_out 'no package lists for ktb-no-release'
rc=0
"$s" --cache "$work/a" --key --package 'Bad_Name' >"$out" 2>&1 || rc=$?
expect_rc 2
expect_out "'Bad_Name' is no Debian package name"
exit 0
