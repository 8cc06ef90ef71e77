# label: cli
# ktb list and ktb run --list are one selection, nothing booted: for the
# same options (-t, -n, -x, --shard, scenario files and folders) they print
# the same lines, and what they print is what the selection means (the
# tags, the names); a selection of nothing is exit 2 in both. Listing is
# pure: ktb run --list asks no virtiofsd whether it can serve (the
# preflight a run makes for a writable share), and neither lists nor ktb
# list write anything to the cache.
. "$(dirname "$0")/lib.sh"

lib=$KTB_SRC/scenarios
# same ARGS...: ktb list ARGS and ktb run --list ARGS agree, exit 0
same() {
	ktb_run list "$@"
	expect_rc 0
	cp "$out" "$work/list"
	ktb_run run --list "$@"
	expect_rc 0
	cmp -s "$out" "$work/list" || fail "ktb list $* and ktb run --list $* differ:
$(diff "$work/list" "$out")"
	[ -s "$out" ] || fail "ktb list $* printed nothing"
}

same
same "$lib"
same -x own-kernel
grep -q '^kunit-boot ' "$out" && fail "-x own-kernel kept kunit-boot"
[ "$(wc -l <"$out")" -eq "$(($(find "$lib" -maxdepth 1 -name '*.yaml' | wc -l) - 1))" ] ||
	fail "-x own-kernel left out more than kunit-boot"
same -t storage
awk '{print $2}' "$out" | grep -v 'storage' && fail "-t storage listed a scenario without the tag"
same -t storage -t pm -x 4kn
grep -Eq '^[^ ]+ +\[[^]]*\b4kn\b' "$out" && fail "-x 4kn kept a 4kn scenario"
same -n 'disk-*' "$lib"
awk '{print $1}' "$out" | grep -v '^disk-' && fail "-n 'disk-*' listed another name"
same -n 'disk-*' -n smoke --shard 2/3
same "$lib/smoke.yaml" "$lib/disk-4kn-nvme.yaml"
[ "$(awk '{print $1}' "$out" | tr '\n' ' ')" = "smoke disk-4kn-nvme " ] ||
	fail "two files: $(cat "$out")"

for args in "list" "run --list"; do
	# shellcheck disable=SC2086 # one or two words
	ktb_run $args -x own-kernel -n kunit-boot "$lib"
	expect_rc 2
	expect_out "^ktb ${args% *}: no scenario matches the -t/-n/-x filters"
done

# pure: a virtiofsd that records being started, and a cache of our own
cat >"$work/virtiofsd" <<EOF2
#!/bin/sh
touch "$work/virtiofsd-ran"
exit 1
EOF2
chmod +x "$work/virtiofsd"
export KTB_VIRTIOFSD=$work/virtiofsd XDG_CACHE_HOME=$work/cache
for args in "run --list" "list"; do
	# shellcheck disable=SC2086 # two words
	ktb_run $args "$lib/share-virtiofs.yaml"
	expect_rc 0
	expect_out '^share-virtiofs '
	[ ! -e "$work/virtiofsd-ran" ] || fail "ktb $args started a virtiofsd"
	[ ! -e "$work/cache" ] || fail "ktb $args wrote to the cache: $(find "$work/cache")"
done
exit 0
