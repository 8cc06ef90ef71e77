/* The back ends of a machine's hybrid disks (ktb-hybrid, one per disk): the
 * VM starts them before QEMU and stops them after it, and the runner asks
 * them for stats and, on a power loss, to drop their volatile caches. */
#ifndef KTB_HYBRID_PROCS_H
#define KTB_HYBRID_PROCS_H

#include <jansson.h>
#include <stdint.h>

#include "machine.h"
#include "proc.h"

struct hybrid_procs {
	struct proc p[MACHINE_MAX_DISKS];
	unsigned n;
};

/* The ktb-hybrid binary: $KTB_HYBRID, else the one built beside ktb. */
const char *hybrid_binary(void);
/* Start a back end for every hybrid disk and wait until each listens.
 * 0, or -errno with why (len bytes) filled. */
int hybrid_start(struct hybrid_procs *hp, const struct machine *m, const struct hw_launch *l,
		 const char *log_dir, int64_t deadline, char *why, size_t len);
/* SIGTERM (a clean stop: the back end writes its cache out), then SIGKILL. */
void hybrid_stop(struct hybrid_procs *hp);
/* One control request to disk d's back end; the reply, or NULL. */
json_t *hybrid_ctl(const struct hw_launch *l, const struct disk *d, const char *cmd);

#endif
