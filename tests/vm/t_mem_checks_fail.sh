# label: vm
# Each check the memory scenarios (paging, balloon, NUMA, HMAT) make fails,
# and says why, when what it guards is broken: the scenario files with one
# thing changed under each check (scenario, sed expression, what the failure
# must say). Where one boot can break several things at once, one row does,
# and its pattern names each failure.
. "$(dirname "$0")/lib.sh"
T=$'\t'
# PSI off: ktb-mem psi has nothing to report and says so, rather than 0 stall
ktb_run run --artifacts "$(artifacts)" --append psi=0 "$KTB_SRC/scenarios/paging-psi.yaml"
expect_rc 1
expect_out 'step 1 .*quiet before, PSI present'
expect_out 'cannot read /proc/pressure/memory'

mutations <<EOF_TABLE
paging-swap-4kn${T}s/swapon "\$dev"/:/; s/grep -c "^\$dev " \/proc\/swaps/echo 1/; s/--size 1.5x/--size 0.5x/${T}pswpout: expected >= 20000
paging-swap-4kn${T}s/--seed 7\$/--seed 7 --corrupt/${T}mismatches: expected 0, got 1
paging-swap-4kn${T}s/sector: 4kn/sector: 512n/${T}step 1 .*exit: expected 0, got 1
paging-zswap${T}s/echo 33 > /echo 0 > /; s/--seed 11\$/--seed 11 --corrupt/${T}mismatches: expected 0, got 2.*swap.mismatches: expected 0, got 1.*zswap.mismatches: expected 0, got 1.*pswpout_saved_pct: expected >= 40
paging-psi${T}s/^      ktb-mem psi --settle 2000/      (ktb-mem pressure --size 1.5x >\/dev\/null \&); ktb-mem psi --settle 6000/${T}step 1 .*psi_some_us: expected <= 100000
paging-psi${T}s/--size 1.5x --seed 3/--size 16M --seed 3/${T}psi_some_us: expected >= 500000
paging-psi${T}s/run: ktb-mem psi --settle 5000/run: (ktb-mem pressure --size 1.5x >\/dev\/null \&); ktb-mem psi --settle 5000/${T}step 3 .*psi_some_us: expected <= 100000
paging-thp${T}s/echo madvise >/echo never >/${T}stdout did not match
paging-thp${T}s/run: ktb-mem thp --size 16M/run: echo never > \/sys\/kernel\/mm\/transparent_hugepage\/enabled; ktb-mem thp --size 16M/${T}anon_huge_kb: expected >= 2048
balloon-resize${T}/^steps:/a\  - run: rmmod virtio_balloon${T}QEMU's balloon did not reach 256M
balloon-resize${T}/^steps:/a\  - run: ktb-mem hold --size 200M > /dev/null${T}step 2 .*QEMU's balloon did not reach 256M: actual [0-9]+ kB, [0-9]+ pages of 4 kB short
balloon-free-page-reporting${T}s/free_page_reporting: true/free_page_reporting: false/; s/within: 30s/within: 12s/${T}delta_mb: expected <= -100.*samples over 12s
balloon-free-page-reporting${T}/^steps:/a\  - run: mkdir -p /tmp/fill \&\& mount -t tmpfs -o size=200M none /tmp/fill \&\& (for i in \$(seq 100); do dd if=/dev/zero of=/tmp/fill/\$i bs=1M count=2; sleep 0.5; done) > /dev/null 2>\&1 \&${T}step 2 .*QEMU's RSS did not settle within 20s
balloon-free-page-reporting${T}s/--size 192M/--size 32M/; s/pages_verified: 49152/pages_verified: 8192/${T}step 3 .*delta_mb: expected >= 120
balloon-free-page-reporting-off${T}s/free_page_reporting: false/free_page_reporting: true/${T}step 5 .*delta_mb: expected >= -30
balloon-under-pressure${T}s/--seed 9\$/--seed 9 --corrupt/${T}step 3 .*mismatches: expected 0, got 1
balloon-under-pressure${T}s/run: ktb-mem check/run: kill -9 \$(cat \/run\/ktb-mem\/pid); sleep 0.5; ktb-mem check/${T}step 3 .*alive: expected true, got false
numa-4node-asym${T}/^        distances:/s/34/35/g${T}distances: expected
numa-4node-asym${T}s/--node 2 --size 16M\$/--node 2 --size 16M --corrupt/${T}step 3 .*pages_on_node: expected 4096, got [0-9]*; json pages_elsewhere: expected 0
numa-4node-asym${T}s/^      - \[22, 28, 10, 34\]/      - [22, 28, 10, 40]/; s/^      - \[28, 22, 34, 10\]/      - [28, 22, 40, 10]/; s/- {memory: 128M}$/- {memory: 96M}/; s/memory: 640M/memory: 576M/${T}step 1 .*distances: expected.*nodes.2.memory_mb: expected >= 100, got
numa-memoryless${T}s/{cpus: \[0, 1\], memory: 320M}/{cpus: [0], memory: 320M}/; s/- {memory: 192M}/- {cpus: [1], memory: 192M}/${T}nodes.1.cpus: expected
numa-memoryless${T}s/ktb-mem bind --node 1 --size 32M/ktb-mem bind --node 1 --size 32M --corrupt/${T}step 2 .*pages_on_node: expected 8192, got 8191
numa-memoryless${T}s/--node 0 --size 32M\$/--node 0 --size 32M --corrupt/${T}step 3 .*pages_on_node: expected 8192, got 8191
numa-hmat${T}s/{initiator: 1, target: 1, latency: 15/{initiator: 1, target: 1, latency: 25/; s/{initiator: 0, target: 0, latency: 10, bandwidth: 10G}/{initiator: 0, target: 0, latency: 10, bandwidth: 9G}/; s/size: 16M, level: 1/size: 32M, level: 1/; s/policy: write-through/policy: write-back/${T}nodes.0.access0.read_bandwidth: expected 10240, got 9216.*nodes.1.access0.read_latency: expected 15, got 25.*nodes.2.caches.0.size: expected 16777216, got 33554432.*write_policy: expected 1, got 0
EOF_TABLE
exit 0
