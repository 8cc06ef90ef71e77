/* Disks on bus hybrid: their settings, the shared guest RAM their back end
 * needs, and the command line of that back end (ktb-hybrid). */
#ifndef KTB_HW_HYBRID_DISK_H
#define KTB_HW_HYBRID_DISK_H

#include <stdbool.h>

#include "argv.h"

/* disk i's hybrid: settings */
int hybrid_validate(struct disk *d, unsigned i, struct hw_error *err);
/* Shared guest RAM for vhost-user back ends when the machine has one. */
int hybrid_memory_args(const struct machine *m, struct argv *a);
/* True when some disk is on bus hybrid (guest RAM must then be shared). */
bool machine_has_hybrid(const struct machine *m);
/* True when a vhost-user back end maps guest RAM (a hybrid disk's or a
 * virtiofs share's virtiofsd): the RAM must then be shared memory. */
bool machine_shared_ram(const struct machine *m);
/* The argument vector that starts disk d's back end (argv[0] is binary). */
int hybrid_backend_argv(const struct disk *d, const struct hw_launch *l, const char *binary,
			struct argv *out);

#endif
