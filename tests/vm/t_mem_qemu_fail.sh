# label: vm
# The memory scenarios' checks that no scenario edit or kernel argument can
# reach, failing when QEMU presents something else than the scenario
# declares: a QEMU started through a wrapper, first in PATH, that rewrites
# some of its arguments (as t_machine_fail.sh and t_machine_matrix.sh do)
# and starts the real one. The machine step must name each NUMA and balloon
# fact that differs, declared and seen; a balloon that cannot grow back to
# the declared size must fail its step.
. "$(dirname "$0")/lib.sh"
T=$'\t'
S=$KTB_SRC/scenarios
real_qemu=$(command -v qemu-system-x86_64) || fail "qemu-system-x86_64 not found"

# wrapper DIR SED: $work/DIR/qemu-system-x86_64 passes each argument through
# the sed expression SED (one argument a line) to the real QEMU
wrapper() {
	mkdir -p "$work/$1"
	cat >"$work/$1/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do
	args+=("\$(printf '%s\n' "\$a" | sed -e '$2')")
done
exec "$real_qemu" "\${args[@]}"
EOF
	chmod +x "$work/$1/qemu-system-x86_64"
}

# numa-4node-asym: CPU 1 moved to node 0 (node 1 keeps its memory, so the
# guest still numbers it 1) and 8M of node 2's RAM moved to node 3. Four
# mismatches, as many as the message names (the rest are in the data).
wrapper bin-4node 's/^node,nodeid=0,cpus=0,memdev=m0$/node,nodeid=0,cpus=0-1,memdev=m0/
s/^node,nodeid=1,cpus=1,memdev=m1$/node,nodeid=1,memdev=m1/
s/^memory-backend-ram,size=134217728,id=m2$/memory-backend-ram,size=125829120,id=m2/
s/^memory-backend-ram,size=134217728,id=m3$/memory-backend-ram,size=142606336,id=m3/'
PATH=$work/bin-4node:$PATH must_fail "$S/numa-4node-asym.yaml" \
	'step machine .*node 0 CPUs: declared \[0\], the guest sees \[0,1\]; node 1 CPUs: declared \[1\], the guest sees \[\]; node 2 memory present \(KiB\): declared [0-9]+\.\.[0-9]+, the guest sees 12[0-9]{4}; node 3 memory present \(KiB\): declared [0-9]+\.\.[0-9]+, the guest sees 1[34][0-9]{4}'

# numa-hmat: node 0's distance to node 2 (one way), node 0's bandwidth from
# its own CPUs (read and write) and node 2's memory-side cache size
wrapper bin-hmat 's/^dist,src=0,dst=2,val=30$/dist,src=0,dst=2,val=31/
s/^\(hmat-lb,initiator=0,target=0,.*,bandwidth=\)10240M$/\19216M/
s/^hmat-cache,node-id=2,size=16777216,/hmat-cache,node-id=2,size=33554432,/'
PATH=$work/bin-hmat:$PATH must_fail "$S/numa-hmat.yaml" \
	'step machine .*node 0 distances: declared \[10,20,30\], the guest sees \[10,20,31\]; node 0 read_bandwidth from node 0 \(MB/s\): declared 10240, the guest sees 9216; node 0 write_bandwidth from node 0 \(MB/s\): declared 10240, the guest sees 9216; node 2 level-1 memory-side cache size: declared 16777216, the guest sees 33554432'

# a balloon device that does not offer free page reporting
wrapper bin-fpr 's/^\(virtio-balloon-pci,.*\),free-page-reporting=on$/\1,free-page-reporting=off/'
PATH=$work/bin-fpr:$PATH must_fail "$S/balloon-free-page-reporting.yaml" \
	'step machine .*balloon free page reporting: declared true, the guest sees false'

# 4M less RAM than the 384M declared (machine.unverified: [memory] turns the
# machine step's memory check off, so the balloon step is the one to see
# it): QEMU caps a balloon target at its RAM, so growing back to 384M stops
# 1024 pages short, which is what each grow-back step must say. The shrink
# before it still reaches its target. The step's timeout cut to 10s: a
# grow back takes 0.3-0.7 s (docs/memory.md#balloon), and this one never
# gets there.
wrapper bin-ram 's/^384M$/380M/'
PATH=$work/bin-ram:$PATH mutations <<EOF_TABLE
balloon-resize${T}s/^  memory: 384M\$/  memory: 384M\n  unverified: [memory]/; s/^    balloon: 384M\$/    balloon: 384M\n    timeout: 10s/${T}step 2 .*QEMU's balloon did not reach 384M: actual 389120 kB, 1024 pages of 4 kB short
balloon-under-pressure${T}s/^  memory: 384M\$/  memory: 384M\n  unverified: [memory]/; s/^    balloon: 384M\$/    balloon: 384M\n    timeout: 10s/${T}step 4 .*QEMU's balloon did not reach 384M: actual 389120 kB, 1024 pages of 4 kB short
memory-pressure-balloon${T}s/^  memory: 384M\$/  memory: 384M\n  unverified: [memory]/; s/^    balloon: 384M\$/    balloon: 384M\n    timeout: 10s/${T}step 4 .*QEMU's balloon did not reach 384M: actual 389120 kB, 1024 pages of 4 kB short
EOF_TABLE
exit 0
