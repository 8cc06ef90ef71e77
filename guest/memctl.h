/* memctl: ktb-mem's memory-controller commands, run from ktb-mem's main.
 *   memcg     a pattern load in a fresh cgroup v2 group with memory.max,
 *             memory.high and memory.swap.max, watched from outside it
 *   psi-wait  PSI triggers (system-wide and a group's memory.pressure),
 *             pressure started after a quiet spell, when poll() woke
 *   pagecache a pattern file written and read back, and the page cache's
 *             huge page counters (a tmpfs mounted huge=always)
 *   compact   free memory fragmented on purpose, huge pages tried before
 *             and after compact_memory, the compaction counters
 * Each prints one JSON object on stdout. A counter the kernel lacks is
 * null, never 0, so no check can pass on it.
 * Returns the exit status: 0 measured, 1 mismatches or failure, 2 usage. */
#ifndef KTB_GUEST_MEMCTL_H
#define KTB_GUEST_MEMCTL_H

#include <stdbool.h>

/* true when argv[1] names a memctl command */
bool memctl_is_op(const char *op);
int memctl_main(int argc, char **argv);

#endif
