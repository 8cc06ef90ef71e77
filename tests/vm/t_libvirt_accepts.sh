# label: cli
# libvirt acceptance check for hw/libvirt_xml.c: each machine below is
# rendered as a domain, created paused (no kernel) on the real daemon, and
# the devices QEMU built under libvirt (info qtree: disk serials, sector
# sizes, rotation; info numa; info cpus) are compared with
# those QEMU builds from machine_to_argv() for the same machine. Negative
# controls: the renderer refuses nvme, and libvirt refuses a bad disk bus.
. "$(dirname "$0")/lib.sh"
: "${HW_DOMAIN_DUMP:?set HW_DOMAIN_DUMP to the domain_dump test helper}"
"$KTB_SRC/tests/vm/libvirtd.sh" || fail "could not start libvirtd"
V="virsh -c qemu:///system"
names=()
trap 'st=$?; for n in "${names[@]}"; do $V destroy "$n" >/dev/null 2>&1; done; lib_exit "$st"' EXIT

# serial/sector/rotation of every disk, the CPUs, the NUMA nodes
facts() {
	tr -d '\r' | awk '
	/dev: (virtio-blk-device|scsi-hd|ide-hd)/ { if (d) print d; d = $2 }
	/dev: / && !/dev: (virtio-blk-device|scsi-hd|ide-hd)/ { if (d) print d; d = "" }
	d && /serial = |logical_block_size = |physical_block_size = |rotation_rate = / {
		gsub(/"/, ""); d = d " " $1 "=" $3 }
	/CPU #[0-9]+:/ { sub(/^[ *]+/, ""); print $1 $2 }
	/dev: (bochs-display|VGA|virtio-gpu-pci|virtio-vga|cirrus-vga|qxl)/ { print "display " $2 }
	/^node [0-9]+ (cpus|size):/ { print }
	/^[0-9]+ nodes/ { print }
	END { if (d) print d }' | sort
}

QMP='{"execute":"qmp_capabilities"}
{"execute":"human-monitor-command","arguments":{"command-line":"info qtree"}}
{"execute":"human-monitor-command","arguments":{"command-line":"info numa"}}
{"execute":"human-monitor-command","arguments":{"command-line":"info cpus"}}
{"execute":"quit"}'

for c in base disks numa s3 s3s4 bochs vga virtio-gpu; do
	mkdir -p "$work/$c-q" "$work/$c-l"
	# QEMU alone, from machine_to_argv()
	mapfile -t args < <("$HW_DOMAIN_DUMP" "$c" "$work/$c-q" x argv) || fail "$c: argv dump failed"
	for i in "${!args[@]}"; do [ "${args[$i]}" = stdio ] && args[i]=null; done
	printf '%s\n' "$QMP" | timeout 30 "${args[@]}" -S -qmp stdio 2>"$work/$c.err" |
		sed 's/\\r\\n/\n/g; s/\\"/"/g; s/^{"return": "//' | facts >"$work/$c.qemu" ||
		fail "$c: QEMU refused its own arguments: $(head -c 300 "$work/$c.err")"
	# the same machine as a libvirt domain
	name="ktb-accepts-$$-$c"
	"$HW_DOMAIN_DUMP" "$c" "$work/$c-l" "$name" >"$work/$c.xml" || fail "$c: XML dump failed"
	$V create --paused "$work/$c.xml" >"$work/$c.lverr" 2>&1 ||
		fail "$c: libvirt refused the domain: $(cat "$work/$c.lverr")"
	names+=("$name")
	{ $V qemu-monitor-command "$name" --hmp 'info qtree'
	  $V qemu-monitor-command "$name" --hmp 'info numa'
	  $V qemu-monitor-command "$name" --hmp 'info cpus'; } | facts >"$work/$c.libvirt"
	$V destroy "$name" >/dev/null
	[ -s "$work/$c.qemu" ] || fail "$c: no facts from QEMU"
	diff -u "$work/$c.qemu" "$work/$c.libvirt" >&2 ||
		fail "$c: libvirt's QEMU built a different machine"
	echo "$c: the same under libvirt ($(wc -l <"$work/$c.qemu") facts)"
done
grep -q "logical_block_size=4096 physical_block_size=4096 serial=s4kn rotation_rate=1" \
	"$work/disks.libvirt" || fail "the 4Kn SCSI disk lost its geometry"
grep -q "^3 nodes" "$work/numa.libvirt" || fail "the NUMA machine has not 3 nodes"
grep -q "^display bochs-display," "$work/bochs.libvirt" || fail "the bochs machine has no bochs-display"
grep -q "^display" "$work/base.libvirt" && fail "a machine without display got one under libvirt"

# negative controls
"$HW_DOMAIN_DUMP" nvme "$work" x >"$work/nvme.xml" 2>"$work/nvme.err" &&
	fail "the renderer accepted an nvme disk"
grep -q "machine.disks\[0\].bus: the libvirt renderer cannot present nvme" "$work/nvme.err" ||
	fail "nvme refusal says: $(cat "$work/nvme.err")"
sed "s/bus='virtio'/bus='nosuchbus'/; s/ktb-accepts-$$-disks/ktb-accepts-$$-neg/" \
	"$work/disks.xml" >"$work/neg.xml"
names+=("ktb-accepts-$$-neg")
$V create --paused "$work/neg.xml" >/dev/null 2>&1 && fail "libvirt accepted a bad disk bus: the check is blind"
exit 0
