/* The facts ktb-probe reports, one function per section. Each writes its
 * members into the JSON object the caller has opened; root prefixes /sys and
 * /proc (empty in the guest, a fake tree in unit tests). */
#ifndef KTB_GUEST_FACTS_H
#define KTB_GUEST_FACTS_H

#include "json_out.h"

#include <stdint.h>

/* All return 0 or -errno; on error they may have written some members. */
int facts_kernel(const char *root, struct json_out *j);
int facts_cpus(const char *root, struct json_out *j);
int facts_memory(const char *root, struct json_out *j);
int facts_disks(const char *root, struct json_out *j);
int facts_numa(const char *root, struct json_out *j);
int facts_sleep(const char *root, struct json_out *j);

/* The memory present in each node (KiB), the "present" pages of every zone
 * of /proc/zoneinfo: what the firmware handed the kernel, less what a
 * mem= cut took; the kernel's own allocations count as present. Fills
 * present_kb[0..max) and returns the highest node id + 1, or -errno. */
int facts_zoneinfo(const char *root, uint64_t *present_kb, int max);

/* One disk object's members; -ENOENT when no disk has that id. */
int facts_disk(const char *root, const char *id, struct json_out *j);

#endif
