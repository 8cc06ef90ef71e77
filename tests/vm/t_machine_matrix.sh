# label: vm
# jobs: 2
# The machine step is exact on every machine: a matrix of clean machines
# (256M to 8G, RAM above the 4G hole, 1 to 4 NUMA nodes, uneven and
# memory-only nodes, balloon, disks on every bus, multipath, S3 through
# SeaBIOS and PVH) must pass it, and cuts a few MB deep (mem=, a node made
# smaller by memmap= or by a QEMU wrapper, a disk moved to another bus by a
# QEMU wrapper) must fail it,
# naming what was declared and what the guest sees. Each scenario is the
# machine step and one trivial step; they run two at a time.
. "$(dirname "$0")/lib.sh"
m=$work/matrix
mkdir -p "$m"

# machine NAME: a scenario of that name whose machine: body is stdin
machine() {
	{
		printf 'name: %s\ntimeout: 180s\nmachine:\n' "$1"
		cat
		printf 'steps:\n  - run: "true"\n'
	} >"$m/$1.yaml"
}

machine mx-256m <<'Y'
  memory: 256M
Y
machine mx-512m-s3 <<'Y'
  memory: 512M
  sleep: [s3]
Y
# the machine the issue found: node 1's MemTotal was 421 MB
machine mx-1g-2node-nvme4kn-s3 <<'Y'
  cpus: 2
  memory: 1G
  sleep: [s3]
  numa:
    nodes:
      - {cpus: [0], memory: 512M}
      - {cpus: [1], memory: 512M}
  disks:
    - {id: d, bus: nvme, size: 64M, sector: 4kn}
Y
# 2.75G and up: q35 keeps 2G below the 4G hole, the rest above it
machine mx-3g-3node-memonly <<'Y'
  cpus: 2
  memory: 3G
  numa:
    nodes:
      - {cpus: [0], memory: 1G}
      - {cpus: [1], memory: 1G}
      - {memory: 1G}
Y
machine mx-8g-2node-s3 <<'Y'
  cpus: 2
  memory: 8G
  sleep: [s3]
  numa:
    nodes:
      - {cpus: [0], memory: 5G}
      - {cpus: [1], memory: 3G}
Y
machine mx-2815m <<'Y'
  memory: 2815M
Y
machine mx-4node-uneven <<'Y'
  cpus: 2
  memory: 1G
  numa:
    nodes:
      - {cpus: [0], memory: 640M}
      - {cpus: [1], memory: 128M}
      - {memory: 192M}
      - {memory: 64M}
Y
machine mx-balloon-disks <<'Y'
  memory: 768M
  balloon: {free_page_reporting: true}
  disks:
    - {id: v, bus: virtio, size: 64M, sector: 4kn}
    - {id: s, bus: scsi, size: 64M, sector: 512e, rotational: true}
    - {id: a, bus: sata, size: 64M}
    - {id: n, bus: nvme, size: 64M}
Y
machine mx-multipath-s3 <<'Y'
  memory: 512M
  sleep: [s3]
  balloon: {}
  disks:
    - {id: nm, bus: nvme, size: 64M, paths: 2}
    - {id: sm, bus: scsi, size: 64M, paths: 2, multipath: {mode: bio, no_path: fail}}
    - {id: sq, bus: scsi, size: 64M, paths: 3}
Y

ktb_run run -j 2 --artifacts "$(artifacts)" "$m"/*.yaml
[ "$rc" -eq 0 ] || fail "a clean machine failed the machine step (exit $rc)"

# cut_fails NAME APPEND PATTERN: the machine with APPEND on the kernel command
# line fails the machine step with PATTERN
cut_fails() {
	ktb_run run --artifacts "$(artifacts)" --append "$2" "$m/$1.yaml"
	[ "$rc" -eq 1 ] || fail "$1 with $2: expected exit 1, got $rc"
	expect_out "$3"
}

# mem= limits physical addresses: 4M under the top of RAM, below the hole
# and above it (8G: 2G below 4G, 6G from 4G up to 10G)
cut_fails mx-512m-s3 mem=508M \
	'step machine .*memory present \(KiB\): declared 523704\.\.524288, the guest sees 5198[0-9]{2} \(mem=508M on the command line\?\)'
cut_fails mx-8g-2node-s3 mem=10236M \
	'step machine .*memory present \(KiB\): declared 8388024\.\.8388608, the guest sees 838[0-9]{4} \(mem=10236M on the command line\?\); node 1 memory present \(KiB\): declared 3145728\.\.3145728, the guest sees 3141632 \(mem=10236M'
# 4M reserved inside node 1 (768M): that node is smaller, node 0 is not
# shellcheck disable=SC2016 # the $ is memmap's own, for the kernel
cut_fails mx-1g-2node-nvme4kn-s3 'memmap=4M$0x30000000' \
	'step machine .*memory present \(KiB\): declared 1047960\.\.1048576, the guest sees 10[0-9]{5} \(memmap=4M\$0x30000000 on the command line\?\); node 1 memory present \(KiB\): declared 524064\.\.524288, the guest sees 5200[0-9]{2} \(memmap=4M'

# No kernel argument moves a disk to another bus: a wrapper named like
# QEMU, first in PATH, turns each NVMe controller and namespace into a
# virtio-blk device with the same serial and geometry, and lets virtio_blk
# load (the guest loads only the declared machine's drivers, ktb.nomod=;
# without it the guest would have no such disk at all).
real_qemu=$(command -v qemu-system-x86_64) || fail "qemu-system-x86_64 not found"
mkdir -p "$work/bin"
cat >"$work/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
serial=
for a in "\$@"; do
	a=\${a/ktb.nomod=virtio_blk,/ktb.nomod=}
	case \$a in
	nvme,serial=*)
		serial=\${a#nvme,serial=}; serial=\${serial%%,*}
		unset 'args[\${#args[@]}-1]'
		continue ;;
	nvme-ns,*)
		a=virtio-blk-pci,serial=\$serial,\${a#nvme-ns,bus=*,}
		a=\${a/,nsid=1/} ;;
	esac
	args+=("\$a")
done
exec "$real_qemu" "\${args[@]}"
EOF
chmod +x "$work/bin/qemu-system-x86_64"
PATH=$work/bin:$PATH cut_fails mx-1g-2node-nvme4kn-s3 "" \
	'step machine .*disk d bus: declared "nvme", the guest sees "virtio"'

# A node made smaller where no kernel argument reaches: the wrapper moves
# 8M of node 1's RAM to node 0 (the machine's total stays 1G)
mkdir -p "$work/bin-numa"
cat >"$work/bin-numa/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do
	a=\${a/,size=536870912,id=m0/,size=545259520,id=m0}
	a=\${a/,size=536870912,id=m1/,size=528482304,id=m1}
	args+=("\$a")
done
exec "$real_qemu" "\${args[@]}"
EOF
chmod +x "$work/bin-numa/qemu-system-x86_64"
PATH=$work/bin-numa:$PATH cut_fails mx-1g-2node-nvme4kn-s3 "" \
	'step machine .*node 0 memory present \(KiB\): declared 523896\.\.524288, the guest sees 532[0-9]{3}; node 1 memory present \(KiB\): declared 524064\.\.524288, the guest sees 51[56][0-9]{3}'
exit 0
