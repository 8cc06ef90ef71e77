# label: cli
# ktb doctor, nothing built or booted: it lists every program packages.txt
# names (each with its package, suite or test, ok or MISSING as a search of
# PATH and the sbin folders finds it) and every package without a program
# (as dpkg has it); the apt-get lines name exactly the packages of what is
# missing, ktb's and the tests' apart; exit 125 only when something ktb
# needs is missing. Without --probe it reads the cached KVM and virtiofsd
# verdicts and writes nothing: with an empty cache it says "not probed yet";
# --probe (here with KTB_ACCEL=tcg, which needs no KVM probe and so no
# image) probes virtiofsd and caches the verdict, which doctor then reads.
. "$(dirname "$0")/lib.sh"

pkgs=$KTB_SRC/packages.txt
export XDG_CACHE_HOME=$work/cache
unset KTB_VIRTIOFSD KTB_ACCEL

# a PATH with a few of the programs: the rest is missing unless in an sbin
# folder, which doctor also searches
mkdir -p "$work/bin"
for p in cc qemu-img shellcheck; do
	real=$(command -v "$p") || fail "needs $p here"
	ln -s "$real" "$work/bin/$p"
done
found() { # CMD: doctor's rule
	local d
	for d in "$work/bin" /usr/local/sbin /usr/sbin /sbin; do
		[ -f "$d/$1" ] && [ -x "$d/$1" ] && return 0
	done
	return 1
}
installed() { # PKG: bootstrap's rule
	dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qx installed
}

rc=0
PATH=$work/bin "$KTB" doctor >"$out" 2>&1 </dev/null || rc=$?
want_suite="" want_test="" rows=0
while read -r pkg for cmds _; do
	case $pkg in '' | '#'*) continue ;; esac
	[ -n "${for:-}" ] || continue
	if [ "${cmds:--}" = - ]; then
		if installed "$pkg"; then st=ok; else st=MISSING; fi
		grep -Eq "^  $pkg +$for +$st\$" "$out" || fail "no row '$pkg $for $st'"
		rows=$((rows + 1))
	else
		st=ok
		for c in ${cmds//,/ }; do
			if found "$c"; then s=ok; else s=MISSING st=MISSING; fi
			grep -Eq "^  $c +$pkg +$for +$s\$" "$out" || fail "no row '$c $pkg $for $s'"
			rows=$((rows + 1))
		done
	fi
	if [ "$st" = MISSING ]; then
		if [ "$for" = test ]; then want_test+=" $pkg"; else want_suite+=" $pkg"; fi
	fi
done <"$pkgs"
[ "$rows" -gt 40 ] || fail "only $rows rows checked: packages.txt not read?"
[ "$(grep -Ec '^  [^ ]+ +([^ ]+ +)?(suite|test) +(ok|MISSING|unknown.*)$' "$out")" -eq "$rows" ] ||
	fail "doctor lists rows packages.txt does not have"
# the install lines: the missing packages, once each, in packages.txt's order
want_suite=$(echo "$want_suite" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')
want_test=$(echo "$want_test" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')
[ -n "$want_suite" ] || fail "nothing ktb needs is missing from PATH=$work/bin?"
got=$(sed -n 's/^  apt-get install -y --no-install-recommends \(.*\)    # ktb needs these$/\1/p' "$out")
[ "$got " = "$want_suite" ] || fail "ktb's install line: '$got', expected '$want_suite'"
got=$(sed -n 's/^  apt-get install -y --no-install-recommends \(.*\)    # the tests need these$/\1/p' "$out")
[ "$got${got:+ }" = "$want_test" ] || fail "the tests' install line: '$got', expected '$want_test'"
expect_rc 125

# nothing probed yet, nothing built, nothing written
[ -e /dev/kvm ] && expect_out "^  KVM +not probed yet; ktb doctor --probe$"
vfsd=$(for f in /usr/libexec/virtiofsd /usr/lib/qemu/virtiofsd; do [ -x "$f" ] && echo "$f" && break; done)
[ -z "$vfsd" ] || expect_out "^  virtiofsd +$vfsd: not probed yet; ktb doctor --probe$"
[ -z "$(find "$work/cache" -type f 2>/dev/null)" ] ||
	fail "ktb doctor wrote to the cache: $(find "$work/cache" -type f)"

# --probe: with KTB_ACCEL=tcg no KVM probe, so no image; virtiofsd probed
KTB_ACCEL=tcg ktb_run doctor --probe
expect_out "^  KVM +not used: KTB_ACCEL=tcg"
[ ! -e "$work/cache/ktb/images" ] || fail "doctor --probe built an image though KTB_ACCEL=tcg"
if [ -n "$vfsd" ]; then
	[ -f "$work/cache/ktb/virtiofsd.json" ] || fail "--probe cached no virtiofsd verdict"
	expect_out "^  virtiofsd +$vfsd: (serves|cannot serve here) \("
	verdict=$(grep -E "^  virtiofsd " "$out" | sed 's/; from the cache//')
	ktb_run doctor
	expect_out "^  virtiofsd +$vfsd: (serves|cannot serve here) \(.*; from the cache\)"
	[ "$(grep -E "^  virtiofsd " "$out" | sed 's/; from the cache//')" = "$verdict" ] ||
		fail "the cached verdict is not the probed one"
fi
# a cached KVM verdict for this host kernel is read, one for another is not
if [ -e /dev/kvm ]; then
	printf '{"host_release": "%s", "verdict": "broken", "why": "planted", "probed_unix": 0}\n' \
		"$(uname -r)" >"$work/cache/ktb/kvm.json"
	ktb_run doctor
	expect_out "^  KVM +broken \(planted; probed \?\): scenarios run under TCG$"
	printf '{"host_release": "0.0-other", "verdict": "works", "why": "planted"}\n' \
		>"$work/cache/ktb/kvm.json"
	ktb_run doctor
	expect_out "^  KVM +not probed yet on this host kernel \(the cached verdict is for 0.0-other\)"
fi
ktb_run doctor --no-such
expect_rc 2
exit 0
