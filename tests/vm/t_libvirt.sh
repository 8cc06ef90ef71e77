# label: vm
# jobs: 2
# The libvirt backend gives the same verdicts as the qemu backend: smoke,
# s3-basic, a scsi and a sata disk scenario, the NUMA scenario, share-9p
# (a read-only and a read-write host folder: <filesystem>) and
# share-virtiofs (libvirt's virtiofs <filesystem>, shared memfd RAM) run both ways (each backend two at a time), every step has the same status, the same
# metrics are measured, and no domain is left behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libvirt_lib.sh"
scen=()
for s in smoke s3-basic disk-4kn-scsi disk-512e numa-2node share-9p share-virtiofs; do
	scen+=("$KTB_SRC/scenarios/$s.yaml")
done

ktb_run run -j 2 --artifacts "$work/a-qemu" --json "$work/qemu.json" "${scen[@]}"
# Where virtiofsd cannot serve (a chroot: the fresh root's CI run) ktb
# skips share-virtiofs on both back ends, saying so; it is then left out
# of the comparison, named. Any other skip fails.
novfs=
if only_virtiofs_skips; then
	echo "note: virtiofsd cannot serve on this host; share-virtiofs is left out" >&2
	novfs=1
	rc=0
	scen=("${scen[@]/*share-virtiofs.yaml/}")
	mapfile -t scen < <(printf '%s\n' "${scen[@]}" | grep .)
fi
expect_rc 0
ktb_run run --backend libvirt -j 2 \
	--artifacts "$work/a-libvirt" --json "$work/libvirt.json" "${scen[@]}"
expect_rc 0

# verdicts: scenario and step statuses, and which metrics exist
verdicts() {
	python3 - "$1" "$novfs" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["scenarios"]:
    if sys.argv[2] and s["name"] == "share-virtiofs":
        continue
    print(s["name"], s["status"], sorted(s.get("metrics", {})))
    for st in s.get("steps", []):
        print(" ", st["name"], st["status"], st.get("exit_code"))
PY
}
verdicts "$work/qemu.json" >"$work/v-qemu.txt"
verdicts "$work/libvirt.json" >"$work/v-libvirt.txt"
diff -u "$work/v-qemu.txt" "$work/v-libvirt.txt" >&2 || fail "the backends disagree"
grep -q "suspend_ms" "$work/v-libvirt.txt" || fail "s3-basic measured no suspend through libvirt"

# it really ran under libvirt: the domain it was given, and libvirt's QEMU log
for s in smoke s3-basic; do
	dir=$(dirname "$(find "$work/a-libvirt" -path "*/$s/result.json")")
	grep -q "<domain type=" "$dir/domain.xml" || fail "$s: no domain.xml"
	grep -q "starting up libvirt" "$dir/qemu.log" || fail "$s: qemu.log is not libvirt's"
	grep -q "ktb: guest ready" "$dir/console.log" || fail "$s: the console was not collected"
done
# the shares went through libvirt's own <filesystem>, not extra arguments
dir=$(dirname "$(find "$work/a-libvirt" -path "*/share-9p/result.json")")
grep -q "<filesystem type='mount' accessmode='squash'>" "$dir/domain.xml" ||
	fail "share-9p: no <filesystem> in domain.xml"
grep -q '"mount_tag":"ktb1"' "$dir/qemu.log" || fail "share-9p: libvirt's QEMU has no ktb1 export"
if [ -z "$novfs" ]; then
	dir=$(dirname "$(find "$work/a-libvirt" -path "*/share-virtiofs/result.json")")
	grep -q "<driver type='virtiofs'/>" "$dir/domain.xml" ||
		fail "share-virtiofs: no virtiofs <filesystem> in domain.xml"
	grep -q "vhost-user-fs-pci" "$dir/qemu.log" || fail "share-virtiofs: libvirt's QEMU has no vhost-user-fs"
fi
[ -z "$(libvirt_left)" ] || fail "domains left behind: $(libvirt_left)"
exit 0
