/* `ktb-probe machine`: one document of everything the machine step compares
 * with the scenario's machine (CPUs, memory, NUMA and HMAT, disks, sleep
 * states, the balloon, the kernel command line). root prefixes /sys and
 * /proc as in facts.h. */
#ifndef KTB_GUEST_FACTS_MACHINE_H
#define KTB_GUEST_FACTS_MACHINE_H

#include "json_out.h"

/* The virtio balloon: device (a virtio device of type 5 exists), driver
 * (virtio_balloon is bound to it), free_page_reporting (the feature was
 * negotiated). Members of the caller's object; 0 always. */
int facts_balloon(const char *root, struct json_out *j);
/* The 9p and virtiofs mounts, as the member "shares": [{tag, path, fstype,
 * readonly}]. */
int facts_shares(const char *root, struct json_out *j);

/* s3 ("deep" in /sys/power/mem_sleep) and s4 ("platform" in /sys/power/disk)
 * as booleans, after facts_sleep's members. */
int facts_sleep_offered(const char *root, struct json_out *j);

/* The whole document, as one object. 0, or -errno when a section failed
 * (the document is complete either way). */
int facts_machine(const char *root, struct json_out *j);

#endif
