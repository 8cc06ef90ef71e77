# label: cli
# QEMU acceptance check for hw/: every machine below goes through
# machine_validate + machine_create_disks + machine_to_argv, then QEMU 7.2 is
# started with exactly those arguments (kernel-less, paused with -S, serial to
# null, an extra QMP monitor on stdio), asked for qmp_capabilities, for the
# guest-visible block geometry via info qtree, then quit. A machine passes when
# QEMU exits 0 and answered quit. A negative control (4Kn ide-hd) must fail.
set -u
: "${HW_ARGV_DUMP:?set HW_ARGV_DUMP to the argv_dump test helper}"
W=$(mktemp -d "${TMPDIR:-/tmp}/ktb-qc-XXXXXX"); trap 'rm -rf "$W"' EXIT
truncate -s 64M "$W/base.raw"; qemu-img create -q -f qcow2 "$W/base.qcow2" 64M
QMP='{"execute":"qmp_capabilities"}
{"execute":"human-monitor-command","arguments":{"command-line":"info qtree"}}
{"execute":"human-monitor-command","arguments":{"command-line":"info numa"}}
{"execute":"quit"}'
fails=0
run() { # name, args...
	local name=$1; shift
	local out
	out=$(printf '%s\n' "$QMP" | timeout 20 "$@" -S -qmp stdio 2>"$W/$name.err")
	local rc=$?
	if [ $rc -eq 0 ] && grep -q '"return": {}' <<<"$out" && ! grep -q '"error"' <<<"$out"; then
		echo "$name: accepted"
		printf '%s' "$out" > "$W/$name.out"
	else
		echo "$name: REFUSED (rc $rc) $(head -c 300 "$W/$name.err")"; return 1
	fi
}
for c in base disks overlay numa hmat balloon s3 s3s4 multipath; do
	mkdir -p "$W/$c"
	mapfile -t args < <("$HW_ARGV_DUMP" "$c" "$W/$c" "$W/$c/qga.sock" "$W/base.raw" "$W/base.qcow2") || { echo "$c: dump failed"; fails=$((fails+1)); continue; }
	# the harness reads the console on stdout; here stdout is the QMP monitor
	for i in "${!args[@]}"; do [ "${args[$i]}" = stdio ] && args[i]=null; done
	run "$c" "${args[@]}" || fails=$((fails+1))
done
# guest-visible geometry as QEMU built it (from info qtree of "disks")
sed 's/\\r\\n/\n/g' "$W/disks.out" | awk '
	/dev: (virtio-blk-device|scsi-hd|nvme-ns|nvme|ide-hd)/ { if (d) print d; d = $2 }
	/dev: / && !/dev: (virtio-blk-device|scsi-hd|nvme-ns|nvme|ide-hd)/ { if (d) print d; d = "" }
	d && /serial = |logical_block_size = |physical_block_size = |rotation_rate = / {
		gsub(/\\"/, ""); d = d " " $1 "=" $3 }
	END { if (d) print d }'
# multipath and zoned as QEMU built them: a controller per path sharing the
# serial (their shared namespaces hang off the subsystem, which info qtree
# leaves out), scsi-hd paths sharing serial and WWN, a zoned namespace
sed 's/\\r\\n/\n/g; s/\\"//g' "$W/multipath.out" | awk '
	/dev: (nvme-ns|nvme|scsi-hd)/ { if (d) print d; d = $2 " " $3 " " $4 }
	/dev: / && !/dev: (nvme-ns|nvme|scsi-hd)/ { if (d) print d; d = "" }
	d && /serial = |shared = |zoned = |zoned.zone_size = |wwn = |share-rw = / { d = d " " $1 "=" $3 }
	END { if (d) print d }'
n=$(grep -o 'dev: nvme, id \\"d[01]c[0-3]\\"' "$W/multipath.out" | sort -u | wc -l)
[ "$n" -eq 6 ] || { echo "multipath: $n of 6 NVMe path controllers in info qtree"; fails=$((fails+1)); }
# the NUMA topology as QEMU built it
grep -o '"return": "[0-9]* nodes[^"]*"' "$W/numa.out" | sed 's/\\r\\n/\n/g'
# negative control: the check must be able to fail
if run neg-sata-4kn qemu-system-x86_64 -machine q35 -nodefaults -display none -blockdev driver=file,node-name=d0,filename="$W/base.raw" -device ide-hd,bus=ide.0,drive=d0,logical_block_size=4096,physical_block_size=4096 2>/dev/null; then
	echo "negative control accepted: the check is blind"; fails=$((fails+1))
else echo "negative control refused, as it must be"; fi
echo "failures: $fails"; exit $((fails > 0))
