/* The virtiofsd daemons of a machine's virtiofs shares (one per share,
 * hw/share.c decides which shares): the VM starts them before QEMU, waits
 * until each one's vhost-user socket is there, and stops and reaps them
 * after QEMU, on errors and signals too, so no daemon outlives the run. */
#ifndef KTB_VIRTIOFS_PROCS_H
#define KTB_VIRTIOFS_PROCS_H

#include <stdint.h>

#include "machine.h"
#include "proc.h"

struct virtiofs_procs {
	struct proc p[MACHINE_MAX_SHARES];
	unsigned n;
};

/* Start a virtiofsd for every virtiofs share of m, each logging to
 * log_dir/virtiofsd-ktbN.log, and wait until each listens. 0, or -errno
 * with why (len bytes) filled; the ones started are in vp either way. */
int virtiofs_start(struct virtiofs_procs *vp, const struct machine *m, const struct hw_launch *l,
		   const char *log_dir, int64_t deadline, char *why, size_t len);
/* SIGTERM, then SIGKILL; each one reaped. */
void virtiofs_stop(struct virtiofs_procs *vp);

#endif
