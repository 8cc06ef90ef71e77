/* Finding the scenario's disks inside the guest. The host sets each disk's
 * serial to its scenario id; this module reads serials and geometry from
 * sysfs at call time, so it sees disks that appeared after boot. */
#ifndef KTB_GUEST_DISK_H
#define KTB_GUEST_DISK_H

#include <stdbool.h>
#include <stdint.h>

#define DISK_MAX 64

/* dm multipath devices made by init carry this uuid prefix (multipathd's
 * own); disk_scan() tells them from plain dm devices by it. */
#define MPATH_UUID_PREFIX "mpath-"

struct disk_info {
	char name[32];	    /* vda, sda, nvme0n1 */
	char dev[48];	    /* /dev/vda */
	char id[128];	    /* the serial, trimmed; "" when the disk has none */
	char transport[16]; /* virtio, scsi, nvme, ata, dm, md, unknown */
	char bus[16];	    /* transport, or for a dm device its first path's */
	char zoned[32];	    /* none, host-aware, host-managed */
	char majmin[24];    /* "253:0" */
	uint64_t size_bytes;
	uint32_t logical_block_size;
	uint32_t physical_block_size;
	uint32_t nr_zones;
	bool rotational;
	unsigned unread; /* DISK_UNREAD_*: queue attributes sysfs did not give */
};

/* The queue attributes above hold a default when their file cannot be read
 * (512, false, "none", 0); these bits say so, and ktb-probe reports them as
 * null, so that a check for 512 or "none" cannot pass on a missing file. */
enum {
	DISK_UNREAD_LBS = 1 << 0,
	DISK_UNREAD_PBS = 1 << 1,
	DISK_UNREAD_ROTATIONAL = 1 << 2,
	DISK_UNREAD_ZONED = 1 << 3,
	DISK_UNREAD_ZONES = 1 << 4,
};

/* root prefixes "/sys" (empty in the guest, a fake tree in unit tests). */

/* Reads what sysfs says about block device name. 0 or -errno. */
int disk_info_read(const char *root, const char *name, struct disk_info *d);

/* Lists the disks (no loop, ram, zram, optical or hidden multipath-path
 * devices), sorted by name. Returns how many or -errno. */
int disk_scan(const char *root, struct disk_info *out, int max);

/* Finds the disk whose serial is id. 0 or -ENOENT. */
int disk_find(const char *root, const char *id, struct disk_info *d);

#endif
