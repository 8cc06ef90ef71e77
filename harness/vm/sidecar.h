/* The helper processes the qemu back end starts before QEMU and stops after
 * it (a hybrid disk's ktb-hybrid, a share's virtiofsd): each spawned with
 * its stderr in a log of its own, waited for until it listens on its
 * socket, then stopped and reaped, on errors and signals too, so none
 * outlives the run. hybrid.c and virtiofs.c say what to start; this is
 * how. */
#ifndef KTB_SIDECAR_H
#define KTB_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "proc.h"

#define SIDECAR_MAX (MACHINE_MAX_DISKS + MACHINE_MAX_SHARES)

struct sidecars {
	struct {
		struct proc p;
		int stop_ms; /* the grace between SIGTERM and SIGKILL */
	} v[SIDECAR_MAX];
	unsigned n;
};

/* Start argv (stderr appended to log) after removing sock, and wait until
 * sock exists. On failure why says "WHAT exited with status 1 (see LOG)" or
 * "WHAT did not listen in time (see LOG)", or that it could not start. A
 * process started is in sc either way, for sidecars_stop. 0 or -errno. */
int sidecar_start(struct sidecars *sc, char *const *argv, const char *log, const char *sock,
		  int stop_ms, const char *what, int64_t deadline, char *why, size_t len);
/* SIGTERM each, in the order started, SIGKILL after its grace; reaped. */
void sidecars_stop(struct sidecars *sc);

#endif
