/* The back ends of a machine's hybrid disks (ktb-hybrid, one per disk): the
 * VM starts them before QEMU and stops them after it, and the runner asks
 * them for stats and, on a power loss, to drop their volatile caches. */
#ifndef KTB_HYBRID_PROCS_H
#define KTB_HYBRID_PROCS_H

#include <jansson.h>
#include <stdint.h>

#include "machine.h"
#include "sidecar.h"

/* The ktb-hybrid binary: $KTB_HYBRID, else the one built beside ktb. */
const char *hybrid_binary(void);
/* Start a back end for every hybrid disk (into sc) and wait until each
 * listens. The number started, or -errno with why (len bytes) filled; those
 * started are in sc either way (sidecars_stop: SIGTERM, a clean stop that
 * writes the cache out, then SIGKILL). */
int hybrid_start(struct sidecars *sc, const struct machine *m, const struct hw_launch *l,
		 const char *log_dir, int64_t deadline, char *why, size_t len);
/* One control request to disk d's back end; the reply, or NULL. */
json_t *hybrid_ctl(const struct hw_launch *l, const struct disk *d, const char *cmd);
/* Every hybrid disk's stats ({"ID": {...}}), or NULL when none answers. */
json_t *hybrid_stats_all(const struct machine *m, const struct hw_launch *l);

#endif
