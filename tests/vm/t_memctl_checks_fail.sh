# label: vm
# jobs: 2
# Each check of the memory-controller and large-page scenarios
# (memcg-limit, memory-pressure-notify, memory-pressure-balloon,
# pagecache-thp, compaction-thp) fails, and says why, when what it guards is
# broken: the scenario files with one thing changed under each check
# (scenario, sed expression, what the failure must say), in the style of
# t_mem_checks_fail.sh.
. "$(dirname "$0")/lib.sh"
T=$'\t'
# no memory controller: ktb-mem memcg says so rather than report 0 events
ktb_run run --artifacts "$(artifacts)" --append cgroup_disable=memory "$KTB_SRC/scenarios/memcg-limit.yaml"
expect_rc 1
expect_out 'step 1 .*OOM-killed inside its group.*exit: expected 0, got 1.*max_kb: expected 65536, got nothing'
expect_out 'no cgroup v2 memory controller'
# PSI off: no trigger can be registered, and psi-wait says so
ktb_run run --artifacts "$(artifacts)" --append psi=0 "$KTB_SRC/scenarios/memory-pressure-notify.yaml"
expect_rc 1
expect_out 'step 1 .*exit: expected 0, got 1.*load_start_ms: expected >= 2000, got nothing'
expect_out 'trigger .* on /proc/pressure/memory'
# the same for the background poller: it dies unarmed and says so
ktb_run run --artifacts "$(artifacts)" --append psi=0 "$KTB_SRC/scenarios/memory-pressure-balloon.yaml"
expect_rc 1
expect_out 'step 1 .*exit: expected 0, got 1.*armed: expected true, got nothing'
expect_out 'died before it was armed'

mutations <<EOF_TABLE
memcg-limit${T}s/--max 64M --high 62M --seed 5/--max 256M --high 250M --seed 5/${T}step 1 .*max_kb: expected 65536, got 262144.*high_kb: expected 63488, got 256000.*load_killed: expected true, got false.*current_max_kb: expected <= 65536.*peak_kb: expected <= 65536.*events.high: expected >= 1, got 0.*events.max: expected >= 1.*events.oom: expected >= 1, got 0.*events.oom_kill: expected 1, got 0
memcg-limit${T}s/--size 32M --seed 8/--size 32M --seed 8 --corrupt/${T}step 2 .*mismatches: expected 0, got 1
memcg-limit${T}s/run: ktb-mem memcg --size 96M --max 64M --high 62M/run: dmesg -n 1; ktb-mem memcg --size 96M --max 64M --high 62M/${T}step 1 .*finding: expected a kernel report whose title matches /\^memcg OOM kill: ktb-mem\\$/ during the step; none was printed
memcg-limit${T}s/run: ktb-mem memcg --size 96M --max 64M --swap-max 16M --seed 7/run: dmesg -n 1; ktb-mem memcg --size 96M --max 64M --swap-max 16M --seed 7/${T}step 4 .*finding: expected a kernel report
memcg-limit${T}s/--high 62M --seed 5/--high 62M --seed 5 --corrupt/${T}step 1 .*outside_mismatches: expected 0, got 1
memcg-limit${T}s/--swap-max 128M --seed 6/--swap-max 128M --seed 6 --corrupt/${T}step 3 .*exit: expected 0, got 1.*mismatches: expected 0, got 1.*outside_mismatches: expected 0, got 1
memcg-limit${T}s/swapon "\$dev"/:/; s/--swap-max 128M --seed 6/--swap-max 128M --seed 6 --timeout 10000/${T}step 3 .*exit: expected 0, got 1.*load_completed: expected true, got false.*mismatches: expected 0, got null.*swap_current_max_kb: expected >= 32768, got 0
memcg-limit${T}s/--high 48M --swap-max 128M --seed 6/--swap-max 16M --seed 6/${T}step 3 .*swap_max_kb: expected 131072, got 16384.*load_completed: expected true, got false.*events.oom: expected 0, got [1-9]
memcg-limit${T}s/--max 64M --high 48M --swap-max 128M/--max 64M --swap-max 120M/${T}step 3 .*swap_max_kb: expected 131072, got 122880.*peak_kb: expected <= 53248.*current_max_kb: expected <= 53248.*events.high: expected >= 1, got 0.*events.max: expected 0
memcg-limit${T}s/--swap-max 16M --seed 7/--swap-max 64M --seed 7/${T}step 4 .*swap_max_kb: expected 16384, got 65536.*load_killed: expected true, got false.*swap_current_max_kb: expected <= 16384
memcg-limit${T}s/--size 96M --max 64M --swap-max 16M --seed 7/--size 96M --max 128M --swap-max 16M --seed 7 --corrupt/${T}step 4 .*load_killed: expected true, got false.*current_max_kb: expected <= 65536, got [0-9]+.*events.oom_kill: expected 1, got 0.*outside_mismatches: expected 0, got 1
memcg-limit${T}s/run: ktb-mem memcg --size 96M --max 64M --swap-max 16M/run: swapoff -a; ktb-mem memcg --size 96M --max 64M --swap-max 16M/${T}step 4 .*swap_current_max_kb: expected >= 8192, got 0
memory-pressure-notify${T}s/^      ktb-mem psi-wait --group/      (ktb-mem pressure --size 1.5x >\/dev\/null \&); sleep 6; ktb-mem psi-wait --group/${T}step 1 .*system.early_wakeups: expected 0, got [1-9]
memory-pressure-notify${T}s/--max 48M --size 96M --quiet 2000/--max 48M --size 16M --quiet 1000/${T}step 1 .*load_start_ms: expected >= 2000, got 10[0-9][0-9].*system.fired: expected true, got false.*system.latency_ms: expected <= 10000, got null.*system.after_stall_ms: expected <= 2000, got null.*cgroup.fired: expected true, got false.*cgroup.latency_ms: expected <= 10000, got null.*cgroup.after_stall_ms: expected <= 2000, got null
memory-pressure-notify${T}s/--size 1.5x --quiet 2000 --timeout 30000/--size 0.2x --quiet 2000 --timeout 8000/${T}step 2 .*system.fired: expected true, got false.*system.latency_ms: expected <= 30000, got null.*system.after_stall_ms: expected <= 2000, got null
memory-pressure-notify${T}s/run: ktb-mem psi-wait --size 1.5x/run: ktb-mem psi-wait --group ktb-psi2 --size 1.5x/${T}step 2 .*cgroup: expected null, got \{
memory-pressure-notify${T}s/run: ktb-mem psi-wait --size 1.5x/run: (ktb-mem pressure --size 1x >\/dev\/null \&); sleep 6; ktb-mem psi-wait --size 1.5x/${T}step 2 .*system.early_wakeups: expected 0, got [1-9]
pagecache-thp${T}s/huge=always,size=96M/huge=never,size=96M/${T}step 1 .*stdout did not match
pagecache-thp${T}s/--file \/mnt\/huge\/data/--file \/mnt\/small\/other/${T}step 2 .*shmem_huge_kb: expected >= 30720, got 0.*thp_file_alloc: expected >= 15, got 0.*thp_file_mapped: expected >= 15, got 0
pagecache-thp${T}s/--size 32M --seed 3/--size 32M --seed 3 --corrupt/${T}step 2 .*exit: expected 0, got 1.*mismatches: expected 0, got 1.*mmap_mismatches: expected 0, got 1.*pages_verified: expected 8192, got 8191
pagecache-thp${T}s/--size 32M --seed 4/--size 32M --seed 4 --corrupt/${T}step 3 .*exit: expected 0, got 1.*mismatches: expected 0, got 1.*mmap_mismatches: expected 0, got 1.*pages_verified: expected 8192, got 8191
pagecache-thp${T}s/huge=never,size=96M/huge=always,size=96M/${T}step 3 .*shmem_huge_kb: expected 0, got 32768.*thp_file_alloc: expected 0, got 16.*thp_file_mapped: expected 0, got 16
compaction-thp${T}s/run: ktb-mem compact --size 1x --try 64M\$/run: ktb-mem compact --size 8M --try 64M/${T}step 2 .*free_2m_fragmented: expected <= 12, got.*huge_pct_before: expected <= 40, got.*compact_rounds: expected >= 1, got 0
compaction-thp${T}s/run: ktb-mem compact --size 1x --try 64M\$/run: ktb-mem compact --size 1x --try 64M --no-compact/${T}step 2 .*compact_rounds: expected >= 1, got 0.*during_compact.compact_migrate_scanned: expected >= 1000, got 0.*during_compact.compact_isolated: expected >= 1000, got 0.*free_2m_built: expected >= 1, got 0
compaction-thp${T}s/run: ktb-mem compact --size 1x --try 64M\$/run: v=\$(grep migrate_scanned \/proc\/vmstat); (while [ "\$(grep migrate_scanned \/proc\/vmstat)" = "\$v" ]; do sleep 0.05; done; echo never > \/sys\/kernel\/mm\/transparent_hugepage\/enabled) \& ktb-mem compact --size 1x --try 64M/${T}step 2 .*huge_pct_of_possible: expected >= 50, got 0
compaction-thp${T}s/echo madvise > \/sys\/kernel\/mm\/transparent_hugepage\/defrag/echo never > \/sys\/kernel\/mm\/transparent_hugepage\/defrag/${T}step 3 .*during_before.compact_stall: expected >= 1, got 0.*during_before.compact_migrate_scanned: expected >= 1, got 0
compaction-thp${T}s/echo never > \/sys\/kernel\/mm\/transparent_hugepage\/defrag/echo always > \/sys\/kernel\/mm\/transparent_hugepage\/defrag/${T}step 1 .*stdout did not match
memory-pressure-balloon${T}s/^      ktb-mem psi-wait --external/      (ktb-mem pressure --size 1x >\/dev\/null \&); sleep 6; ktb-mem psi-wait --external/${T}step 1 .*early_wakeups: expected 0, got [1-9]
memory-pressure-balloon${T}s/json: {armed: true, early_wakeups: 0}/json: {armed: true}/; s/^      ktb-mem psi-wait --external\(.*\)\$/      ktb-mem pressure --size 1x > \/dev\/null \& sleep 6; ktb-mem psi-wait --external\1; wait/${T}step 3 .*system.early_wakeups: expected 0, got [1-9]
memory-pressure-balloon${T}s/timeout: 90s/timeout: 15s/; /^  - name: the balloon squeezes the guest to 192M\$/i\  - run: rmmod virtio_balloon${T}step 3 .*QEMU's balloon did not reach 192M: actual 393216 kB
memory-pressure-balloon${T}s/balloon: 192M/balloon: 320M/; s/--quiet 2000 --timeout 90000/--quiet 2000 --timeout 8000/${T}step 3 .*system.fired: expected true, got false.*system.after_stall_ms: expected <= 2000, got null
memory-pressure-balloon${T}s/--seed 9 > \/dev\/null/--seed 9 --corrupt > \/dev\/null/${T}step 5 .*mismatches: expected 0, got 1.*pages_verified: expected 32768, got 32767
memory-pressure-balloon${T}s/run: ktb-mem check/run: kill -9 \$(cat \/run\/ktb-mem\/pid); sleep 0.5; ktb-mem check/${T}step 5 .*alive: expected true, got false
EOF_TABLE
exit 0
