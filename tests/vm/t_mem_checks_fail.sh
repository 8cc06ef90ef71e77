# label: vm
# jobs: 2
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
expect_out 'step 1 .*quiet before, PSI present.*psi_some_us: expected <= 100000, got nothing'
expect_out 'cannot read /proc/pressure/memory'

# Cause first where one exists (the machine, a kernel argument, the guest
# command or its arguments); --corrupt is ktb-mem's self-test (one page
# spoilt, or bound elsewhere, so its verifier must see it). Where a check
# can only fail after an earlier one, the mutant turns the earlier one off
# (machine.unverified, or its clause dropped), as said above each such row.
# A guest whose memory keeps moving fills 100M (or 48M) at once before its
# slow fill: free pages the host already backs (the initrd's, freed at boot;
# more of them since the guest loads only its machine's modules) absorb the
# first allocations without moving QEMU's RSS, and the settle would end there.
mutations <<EOF_TABLE
paging-swap-4kn${T}s/swapon "\$dev"/:/; s/grep -c "^\$dev " \/proc\/swaps/echo 1/; s/--size 1.5x/--size 0.5x/${T}step 2 .*pages_verified: expected >= 60000, got [0-9]+.*pswpout: expected >= 20000, got [0-9]+.*pswpin: expected >= 20000, got [0-9]+.*pgmajfault: expected >= 1000, got [0-9]+
paging-swap-4kn${T}s/--seed 7\$/--seed 7 --corrupt/${T}step 2 .*mismatches: expected 0, got 1
paging-swap-4kn${T}s/sector: 4kn/sector: 512n/${T}step 1 .*exit: expected 0, got 1; stdout did not match
paging-swap-4kn${T}s/swapon "\$dev"/:/${T}step 1 .*stdout did not match /\^1\\\$/: "0
paging-zswap${T}s/swapon "\$dev"/:/${T}step 1 .*stdout did not match /\^1.*lzo/: "0
paging-zswap${T}s/echo 33 > /echo 0 > /; s/--seed 11\$/--seed 11 --corrupt/${T}step 2 .*mismatches: expected 0, got 2.*swap.mismatches: expected 0, got 1.*zswap.mismatches: expected 0, got 1.*pswpout_saved_pct: expected >= 40
paging-zswap${T}s/--size 1.25x --seed 11/--size 0.4x --seed 11/${T}step 2 .*swap.pages_verified: expected >= 50000, got [0-9]+.*swap.pswpout: expected >= 20000, got [0-9]+
paging-psi${T}s/^      ktb-mem psi --settle 2000/      (ktb-mem pressure --size 1.5x >\/dev\/null \&); ktb-mem psi --settle 6000/${T}step 1 .*psi_some_us: expected <= 100000
paging-psi${T}s/--size 1.5x --seed 3/--size 16M --seed 3 --corrupt/${T}step 2 .*mismatches: expected 0, got 1.*psi_some_us: expected >= 500000, got [0-9]+.*psi_full_us: expected >= 100000, got [0-9]+.*psi_some_avg10: expected >= 5, got
paging-psi${T}s/run: ktb-mem psi --settle 5000/run: (ktb-mem pressure --size 1.5x >\/dev\/null \&); ktb-mem psi --settle 5000/${T}step 3 .*psi_some_us: expected <= 100000.*psi_some_avg10_drop: expected >= 1, got
paging-thp${T}s/echo madvise >/echo never >/${T}step 1 .*stdout did not match
paging-thp${T}s/run: ktb-mem thp --size 16M/run: echo never > \/sys\/kernel\/mm\/transparent_hugepage\/enabled; ktb-mem thp --size 12M/${T}step 2 .*size_kb: expected 16384, got 12288.*anon_huge_kb: expected >= 2048, got 0.*meminfo_anon_huge_kb: expected >= 2048, got 0
balloon-resize${T}/^steps:/a\  - run: rmmod virtio_balloon${T}step 2 .*QEMU's balloon did not reach 256M
balloon-resize${T}/^steps:/a\  - run: ktb-mem hold --size 200M > /dev/null${T}step 2 .*QEMU's balloon did not reach 256M: actual [0-9]+ kB, [0-9]+ pages of 4 kB short
balloon-resize${T}/^steps:/a\  - run: rmmod virtio_balloon; (sleep 22; modprobe virtio_balloon) > /dev/null 2>\&1 \&${T}step 2 .*target_ms: expected <= 20000, got 2[0-9]{4}
balloon-resize${T}s/^machine:\$/kernel:\n  cmdline: "crashkernel=80M"\nmachine:/${T}step 1 .*memtotal_mb: expected >= 100, got [0-9]+
balloon-resize${T}s/^machine:\$/kernel:\n  cmdline: "crashkernel=80M"\nmachine:/; /^        memtotal_mb: {ge: 100, le: 256}\$/d${T}step 2 .*memtotal_mb: expected >= 228, got [0-9]+
balloon-free-page-reporting${T}s/free_page_reporting: true/free_page_reporting: false/; s/within: 30s/within: 12s/${T}step 4 .*delta_mb: expected <= -100.*samples over 12s
balloon-free-page-reporting${T}/^steps:/a\  - run: mkdir -p /tmp/fill; mount -t tmpfs -o size=300M none /tmp/fill; dd if=/dev/zero of=/tmp/fill/0 bs=1M count=100 2> /dev/null; (for i in \$(seq 100); do dd if=/dev/zero of=/tmp/fill/\$i bs=1M count=2; sleep 0.5; done) > /dev/null 2>\&1 \&${T}step 2 .*QEMU's RSS did not settle within 20s
balloon-free-page-reporting${T}s/--size 192M --seed 5/--size 192M --seed 5 --corrupt/${T}step 2 .*mismatches: expected 0, got 1.*pages_verified: expected 49152, got 49151
balloon-free-page-reporting${T}s/--size 192M/--size 32M/; s/pages_verified: 49152/pages_verified: 8192/${T}step 3 .*delta_mb: expected >= 120
balloon-free-page-reporting-off${T}s/free_page_reporting: false/free_page_reporting: true/${T}step 5 .*delta_mb: expected >= -30
balloon-free-page-reporting-off${T}/^steps:/a\  - run: mkdir -p /tmp/fill; mount -t tmpfs -o size=160M none /tmp/fill; dd if=/dev/zero of=/tmp/fill/0 bs=1M count=48 2> /dev/null; (for i in \$(seq 50); do dd if=/dev/zero of=/tmp/fill/\$i bs=1M count=2; sleep 0.5; done) > /dev/null 2>\&1 \&${T}step 2 .*QEMU's RSS did not settle within 20s
balloon-free-page-reporting-off${T}s/--size 192M --seed 5/--size 192M --seed 5 --corrupt/${T}step 2 .*mismatches: expected 0, got 1.*pages_verified: expected 49152, got 49151
balloon-free-page-reporting-off${T}s/--size 192M/--size 32M/; s/pages_verified: 49152/pages_verified: 8192/${T}step 3 .*delta_mb: expected >= 120
balloon-under-pressure${T}s/--size 128M --seed 9\$/--size 64M --seed 9/${T}step 1 .*pages: expected 32768, got 16384
balloon-under-pressure${T}s/timeout: 90s/timeout: 15s/; /^  - name: shrink to 192M under the holder\$/i\  - run: rmmod virtio_balloon${T}step 3 .*QEMU's balloon did not reach 192M: actual 393216 kB
balloon-under-pressure${T}s/--seed 9\$/--seed 9 --corrupt/${T}step 3 .*mismatches: expected 0, got 1.*pages_verified: expected 32768, got 32767
balloon-under-pressure${T}s/run: ktb-mem check/run: kill -9 \$(cat \/run\/ktb-mem\/pid); sleep 0.5; ktb-mem check/${T}step 3 .*alive: expected true, got false
numa-4node-asym${T}/^        distances:/s/34/35/g${T}step 1 .*distances: expected
numa-4node-asym${T}s/^machine:\$/kernel:\n  cmdline: "numa=off"\nmachine:/; s/^  memory: 640M\$/  memory: 640M\n  unverified: [numa]/${T}step 1 .*node_count: expected 4, got 1.*nodes.0.cpus: expected \[0\], got \[0,1\].*nodes.1.cpus: expected \[1\], got nothing.*nodes.2.cpus: expected \[\], got nothing.*nodes.3.cpus: expected \[\], got nothing.*nodes.0.memory_mb: expected <= 192, got [0-9]+.*nodes.1.memory_mb: expected >= 150, got nothing.*nodes.3.memory_mb: expected >= 64, got nothing
numa-4node-asym${T}s/--node 3 --size 16M\$/--node 3 --size 16M --corrupt/${T}step 2 .*pages_on_node: expected 4096, got [0-9]+; json pages_elsewhere: expected 0, got [1-9][0-9]*
numa-4node-asym${T}s/--node 2 --size 16M\$/--node 2 --size 16M --corrupt/${T}step 3 .*pages_on_node: expected 4096, got [0-9]*; json pages_elsewhere: expected 0
numa-4node-asym${T}s/^      - \[22, 28, 10, 34\]/      - [22, 28, 10, 40]/; s/^      - \[28, 22, 34, 10\]/      - [28, 22, 40, 10]/; s/- {memory: 128M}\$/- {memory: 96M}/; s/memory: 640M/memory: 576M/${T}step 1 .*distances: expected.*nodes.2.memory_mb: expected >= 100, got
numa-memoryless${T}s/{cpus: \[0, 1\], memory: 320M}/{cpus: [0], memory: 192M}/; s/- {memory: 192M}/- {cpus: [1], memory: 256M}\n      - {memory: 64M}/; s/^    distances: \[\[10, 28\], \[28, 10\]\]\$/    distances: [[10, 30, 30], [30, 10, 30], [30, 30, 10]]/${T}step 1 .*node_count: expected 2, got 3.*nodes.0.cpus: expected \[0,1\], got \[0\].*nodes.1.cpus: expected \[\], got \[1\].*distances: expected \[\[10,28\],\[28,10\]\], got \[\[10,30,30\],\[30,10,30\],\[30,30,10\]\].*nodes.0.memory_mb: expected >= 200, got [0-9]+.*nodes.1.memory_mb: expected <= 192, got [0-9]+
numa-memoryless${T}s/ktb-mem bind --node 1 --size 32M/ktb-mem bind --node 1 --size 16M --corrupt/${T}step 2 .*pages: expected 8192, got 4096.*pages_on_node: expected 8192, got 4095.*pages_elsewhere: expected 0, got 1
numa-memoryless${T}s/--node 0 --size 32M\$/--node 0 --size 16M --corrupt/${T}step 3 .*pages: expected 8192, got 4096.*pages_on_node: expected 8192, got 4095.*pages_elsewhere: expected 0, got 1
numa-hmat${T}s/^machine:\$/kernel:\n  cmdline: "numa=off"\nmachine:/; s/^  memory: 512M\$/  memory: 512M\n  unverified: [numa, hmat]/${T}step 1 .*node_count: expected 3, got 1.*nodes.2.cpus: expected \[\], got nothing.*distances: expected \[\[10,20,30\],\[20,10,25\],\[30,25,10\]\], got \[\[10\]\]
numa-hmat${T}s/{initiator: 0, target: 0, latency: 10, bandwidth: 10G}/{initiator: 0, target: 0, latency: 12, bandwidth: 9G}/; s/{initiator: 1, target: 1, latency: 15, bandwidth: 8G}/{initiator: 1, target: 1, latency: 25, bandwidth: 7G}/; s/{initiator: 0, target: 2, latency: 80, bandwidth: 2G}/{initiator: 0, target: 2, latency: 90, bandwidth: 1G}/; s/{node: 2, size: 16M, level: 1, associativity: direct, policy: write-back, line: 64}/{node: 2, size: 32M, level: 1, associativity: complex, policy: write-through, line: 128}/; s/{node: 1, size: 8M, level: 1, associativity: direct, policy: write-through, line: 128}/{node: 1, size: 4M, level: 1, associativity: direct, policy: write-back, line: 64}/${T}step 1 .*nodes.0.access0.read_latency: expected 10, got 12.*nodes.0.access0.write_latency: expected 10, got 12.*nodes.0.access0.read_bandwidth: expected 10240, got 9216.*nodes.1.access0.read_latency: expected 15, got 25.*nodes.1.access0.read_bandwidth: expected 8192, got 7168.*nodes.2.access0.read_latency: expected 80, got 90.*nodes.2.access0.write_bandwidth: expected 2048, got 1024.*nodes.2.caches.0.size: expected 16777216, got 33554432.*nodes.2.caches.0.line_size: expected 64, got 128.*nodes.2.caches.0.indexing: expected 0, got 1.*nodes.2.caches.0.write_policy: expected 0, got 1.*nodes.1.caches.0.size: expected 8388608, got 4194304.*nodes.1.caches.0.line_size: expected 128, got 64.*nodes.1.caches.0.write_policy: expected 1, got 0
EOF_TABLE
exit 0
