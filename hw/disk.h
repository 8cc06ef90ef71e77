/* A machine's disks: each checked against what its bus can present, and
 * turned into -blockdev/-device arguments (multipath.h and hybrid_disk.h
 * do the rest). */
#ifndef KTB_HW_DISK_H
#define KTB_HW_DISK_H

#include "argv.h"

int disks_validate(struct machine *m, struct hw_error *err);
int disks_to_args(const struct machine *m, const struct hw_launch *l, struct argv *a,
		  struct hw_error *err);

#endif
