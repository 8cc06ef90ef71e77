/* Multipath disks in the guest: the paths of a native NVMe head or of a
 * dm-multipath device, read from sysfs (and `dmsetup status` for dm's own
 * view of each path), and the dm table init builds for a SCSI multipath
 * disk. Path numbers match the scenario's: the NVMe controller id, the SCSI
 * target id. */
#ifndef KTB_GUEST_MPATH_H
#define KTB_GUEST_MPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "disk.h"

#define MPATH_MAX 8

struct mpath_path {
	int path;      /* scenario path number; -1 unknown */
	char name[32]; /* sdb, nvme0c1n1 */
	char majmin[24];
	char state[32]; /* SCSI device state, NVMe controller state */
	char dm;	/* 'A', 'F', or 0 when dm was not asked */
	bool active;
};

struct mpath_info {
	char kind[8];  /* "nvme" or "dm"; "" when not multipath */
	char name[64]; /* dm name, or the NVMe head */
	char mode[8];  /* rq, bio, native */
	int npaths, nactive;
	struct mpath_path paths[MPATH_MAX];
};

/* What sysfs under root says about disk d's paths; dm_status is the output
 * of `dmsetup status NAME` or NULL. 0 (kind "" when d is not multipath). */
int mpath_read(const char *root, const struct disk_info *d, const char *dm_status,
	       struct mpath_info *mp);

/* The SCSI target id of block device name (its device is "H:C:T:L"), or -1. */
int mpath_scsi_target(const char *root, const char *name);

/* "queue" when a dm-multipath table line (`dmsetup table`) has the
 * queue_if_no_path feature, "fail" when it has not, NULL when table is no
 * multipath line. */
const char *mpath_dm_no_path(const char *table);

/* 'A' or 'F' for majmin in a dm-multipath status line, 0 when absent. */
char mpath_dm_state(const char *status, const char *majmin);

/* The dm-multipath table line for paths (MAJ:MIN each) of a disk of
 * sectors 512-byte sectors; bio: queue_mode bio; queue: queue_if_no_path. */
int mpath_dm_table(char *buf, size_t len, uint64_t sectors, bool bio, bool queue,
		   const char *const *majmin, int n);

#endif
