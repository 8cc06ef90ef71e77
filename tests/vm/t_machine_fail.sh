# label: vm
# The machine step fails when the guest sees less than the scenario
# declares: for each kind of check, a kernel argument (ktb run --append)
# that hides that part, or, where no kernel argument can change what a
# device presents (a disk's size, block sizes, rotation, zoned model), a
# QEMU started through a wrapper that changes that one device property. The
# failure must name the step, the part and the likely cause.
. "$(dirname "$0")/lib.sh"
S=$KTB_SRC/scenarios

# append_fails SCENARIO APPEND PATTERN
append_fails() {
	ktb_run run --artifacts "$(artifacts)" --append "$2" "$S/$1.yaml"
	[ "$rc" -eq 1 ] || fail "$1 with $2: expected exit 1, got $rc"
	expect_out "$3"
}

append_fails smoke maxcpus=1 \
	'step machine .*CPUs online: declared 2, the guest sees 1 \(maxcpus=1 on the command line\?\)'
append_fails smoke mem=300M \
	'step machine .*memory present \(KiB\): declared 523704\.\.524288, the guest sees 3068[0-9]{2} \(mem=300M on the command line\?\)'
append_fails numa-2node numa=off \
	'step machine .*NUMA nodes: declared 2, the guest sees 1 \(numa=off on the command line\?\)'
append_fails numa-hmat numa=nohmat \
	'step machine .*node 0 read_latency from node 0 \(ns\): declared 10, the guest sees nothing \(numa=nohmat on the command line\?\)'
append_fails disk-4kn-nvme module_blacklist=nvme \
	'step machine .*disk data \(nvme, 64M\): declared, the guest has none \(module_blacklist=nvme on the command line\?\)'
# the testbed's own list never names a declared part's driver; a caller's
# list that does hides the disk, and is named
append_fails disk-4kn-scsi ktb.nomod=virtio_scsi \
	'step machine .*disk data \(scsi, 64M\): declared, the guest has none \(ktb.nomod=virtio_scsi on the command line\?\)'
append_fails mp-nvme-failover nvme_core.multipath=N \
	'step machine .*disk data multipath kind: declared "nvme", the guest sees nothing \(nvme_core.multipath=N on the command line\?\)'
append_fails balloon-resize module_blacklist=virtio_balloon \
	'step machine .*virtio balloon \(driven by virtio_balloon\): declared true, the guest sees false \(module_blacklist=virtio_balloon on the command line\?\)'
append_fails s4-hibernate nohibernate \
	'step machine .*S4 \(platform in /sys/power/disk\): declared true, the guest sees false \(nohibernate on the command line\?\)'
append_fails share-9p module_blacklist=9p \
	'step machine .*share ktb0 mounted at its guest path: declared, the guest has none; share ktb1 mounted at its guest path: declared, the guest has none'
if virtiofs_here; then
	append_fails share-virtiofs module_blacklist=virtiofs \
		'step machine .*share ktb0 mounted at its guest path: declared, the guest has none$'
fi
append_fails s3-basic acpi=off \
	'step machine .*S3 \(deep in /sys/power/mem_sleep\): declared true, the guest sees false \(acpi=off on the command line\?\)'

# No kernel argument changes what QEMU presents: a wrapper named like QEMU,
# first in PATH, edits one device's properties (and halves the disk image)
# and starts the real QEMU.
real_qemu=$(command -v qemu-system-x86_64) || fail "qemu-system-x86_64 not found"
mkdir -p "$work/bin"
cat >"$work/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do
	case \$a in
	*filename=*)
		f=\${a#*filename=}; f=\${f%%,*}
		[ -f "\$f" ] && truncate -s 32M "\$f" ;;
	esac
	a=\${a//logical_block_size=4096,physical_block_size=4096/logical_block_size=512,physical_block_size=512}
	a=\${a//,rotation_rate=1/}
	a=\${a//,zoned=true/,zoned=false}
	args+=("\$a")
done
exec "$real_qemu" "\${args[@]}"
EOF
chmod +x "$work/bin/qemu-system-x86_64"
PATH=$work/bin:$PATH append_fails disk-4kn-scsi "" \
	'step machine .*disk data size \(bytes\): declared 67108864, the guest sees 33554432; disk data logical block size: declared 4096, the guest sees 512; disk data physical block size: declared 4096, the guest sees 512; disk data rotational: declared false, the guest sees true'
PATH=$work/bin:$PATH append_fails zoned-nvme "" \
	'step machine .*disk zns zoned model: declared "host-managed", the guest sees "none"'

# machine.unverified turns a part off: the scenario passes on a guest that
# sees less there, and the step says what it left out
dst=$(mutate smoke 's/^  memory: 512M$/  memory: 512M\n  unverified: [cpus]/')
ktb_run run --artifacts "$(artifacts)" --append maxcpus=1 "$dst"
expect_rc 0
res=$(result_of smoke-broken)
tr -d ' \n' <"$res" | grep -q '"name":"machine","status":"pass","message":"notchecked(machine.unverified):cpus"' ||
	fail "the machine step does not say cpus was not checked: $(cat "$res")"
tr -d ' \n' <"$res" | grep -q '"unverified":\["cpus"\]' || fail "data.unverified is not [cpus]"

# a part the step does not know is bad input, named by file, line and field
dst=$(mutate smoke 's/^  memory: 512M$/  memory: 512M\n  unverified: [cpu]/')
ktb_run list "$dst"
expect_rc 2
expect_out 'smoke-broken.yaml:[0-9]+:[0-9]+: machine.unverified'
exit 0
