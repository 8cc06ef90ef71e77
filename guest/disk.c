#include "disk.h"

#include "protocol.h"
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const disk_skip_prefixes[] = { "loop", "ram", "zram", "sr", "fd", NULL };

/* VPD page 0x80 (unit serial number): a 4-byte header whose last byte is the
 * length, then the ASCII serial, space-padded. */
static int disk_read_vpd80(const char *path, char *buf, size_t len)
{
	unsigned char raw[256];
	size_t n;
	FILE *f;

	f = fopen(path, "rbe");
	if (!f)
		return -errno;
	n = fread(raw, 1, sizeof(raw), f);
	fclose(f);
	if (n < 4 || raw[1] != 0x80)
		return -EINVAL;
	n = n - 4 < raw[3] ? n - 4 : raw[3];
	if (n >= len)
		n = len - 1;
	memcpy(buf, raw + 4, n);
	buf[n] = '\0';
	return 0;
}

/* The controller serial of an NVMe namespace "nvme<N>n<M>" (or of a
 * controller path "nvme<N>c<C>n<M>"). A multipath head lives under its
 * subsystem, whose number N names no controller: the subsystem has the
 * serial all its controllers share. */
static int disk_read_nvme_serial(const char *root, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], *slash;
	unsigned ctrl;

	snprintf(path, sizeof(path), "%s/sys/block/%s", root, name);
	if (realpath(path, real) && strstr(real, "/nvme-subsystem/") &&
	    (slash = strrchr(real, '/'))) {
		snprintf(slash, sizeof(real) - (size_t)(slash - real), "/serial");
		if (sysfs_read(real, buf, len) > 0)
			return 1;
	}
	if (sscanf(name, "nvme%u", &ctrl) != 1)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/sys/class/nvme/nvme%u/serial", root, ctrl);
	return sysfs_read(path, buf, len);
}

static bool disk_is_mpath_dm(const char *root, const char *name)
{
	char path[PATH_MAX], uuid[128];

	snprintf(path, sizeof(path), "%s/sys/block/%s/dm/uuid", root, name);
	return sysfs_read(path, uuid, sizeof(uuid)) > 0 &&
	       !strncmp(uuid, MPATH_UUID_PREFIX, strlen(MPATH_UUID_PREFIX));
}

/* The first entry of /sys/block/<name>/<sub> (slaves, holders), or "". */
static void disk_first_link(const char *root, const char *name, const char *sub, char *buf,
			    size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/block/%s/%s", root, name, sub);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] != '.') {
			size_t n = strnlen(de->d_name, len - 1);

			memcpy(buf, de->d_name, n);
			buf[n] = '\0';
			break;
		}
	}
	if (dir)
		closedir(dir);
}

static void disk_read_serial(const char *root, const char *name, char *buf, size_t len);

/* A dm-multipath device stands for the drive its paths lead to: it takes
 * their serial, so the scenario id finds the multipath device. */
static int disk_read_dm_serial(const char *root, const char *name, char *buf, size_t len)
{
	char slave[64];

	if (!disk_is_mpath_dm(root, name))
		return -ENOENT;
	disk_first_link(root, name, "slaves", slave, sizeof(slave));
	if (!slave[0] || !strncmp(slave, "dm-", 3))
		return -ENOENT;
	disk_read_serial(root, slave, buf, len);
	return buf[0] ? 0 : -ENOENT;
}

/* Where each kind of disk keeps its serial: virtio-blk in the disk's own
 * directory, NVMe on the controller (or subsystem, for a multipath head),
 * SCSI and SATA in VPD page 0x80 or, for some drivers, "device/serial". */
static void disk_read_serial(const char *root, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX], *trimmed;

	snprintf(path, sizeof(path), "%s/sys/block/%s/serial", root, name);
	if (sysfs_read(path, buf, len) > 0)
		goto trim;
	snprintf(path, sizeof(path), "%s/sys/block/%s/device/vpd_pg80", root, name);
	if (!disk_read_vpd80(path, buf, len) && buf[0])
		goto trim;
	snprintf(path, sizeof(path), "%s/sys/block/%s/device/serial", root, name);
	if (sysfs_read(path, buf, len) > 0)
		goto trim;
	if (!strncmp(name, "nvme", 4) && disk_read_nvme_serial(root, name, buf, len) > 0)
		goto trim;
	if (!strncmp(name, "dm-", 3) && !disk_read_dm_serial(root, name, buf, len))
		return;
	buf[0] = '\0';
	return;
trim:
	trimmed = sysfs_trim(buf);
	memmove(buf, trimmed, strlen(trimmed) + 1);
}

static const char *disk_transport_by_name(const char *name)
{
	if (!strncmp(name, "vd", 2))
		return "virtio";
	if (!strncmp(name, "nvme", 4))
		return "nvme";
	if (!strncmp(name, "sd", 2))
		return "scsi";
	if (!strncmp(name, "dm-", 3))
		return "dm";
	if (!strncmp(name, "md", 2))
		return "md";
	return "unknown";
}

/* The device path in /sys/devices tells the bus. Order matters: a SATA disk
 * sits under an ata port and a SCSI target, a virtio-scsi disk under a virtio
 * device and a SCSI target. */
static const char *disk_transport(const char *root, const char *name)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *devs;

	snprintf(path, sizeof(path), "%s/sys/block/%s", root, name);
	if (!realpath(path, real))
		return disk_transport_by_name(name);
	devs = strstr(real, "/devices/");
	if (!devs)
		return disk_transport_by_name(name);
	if (strstr(devs, "/virtual/"))
		return disk_transport_by_name(name);
	if (strstr(devs, "/ata"))
		return "ata";
	if (strstr(devs, "/target"))
		return "scsi";
	if (strstr(devs, "/nvme"))
		return "nvme";
	if (strstr(devs, "/virtio"))
		return "virtio";
	return disk_transport_by_name(name);
}

static void disk_read_queue(const char *root, struct disk_info *d)
{
	char path[PATH_MAX];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/sys/block/%s/queue/logical_block_size", root, d->name);
	if (sysfs_read_u64(path, &v))
		d->unread |= DISK_UNREAD_LBS;
	d->logical_block_size = d->unread & DISK_UNREAD_LBS ? 512 : (uint32_t)v;
	snprintf(path, sizeof(path), "%s/sys/block/%s/queue/physical_block_size", root, d->name);
	if (sysfs_read_u64(path, &v))
		d->unread |= DISK_UNREAD_PBS;
	d->physical_block_size = d->unread & DISK_UNREAD_PBS ? d->logical_block_size : (uint32_t)v;
	snprintf(path, sizeof(path), "%s/sys/block/%s/queue/rotational", root, d->name);
	if (sysfs_read_u64(path, &v))
		d->unread |= DISK_UNREAD_ROTATIONAL;
	d->rotational = !(d->unread & DISK_UNREAD_ROTATIONAL) && v;
	snprintf(path, sizeof(path), "%s/sys/block/%s/queue/nr_zones", root, d->name);
	if (sysfs_read_u64(path, &v))
		d->unread |= DISK_UNREAD_ZONES;
	d->nr_zones = d->unread & DISK_UNREAD_ZONES ? 0 : (uint32_t)v;
	snprintf(path, sizeof(path), "%s/sys/block/%s/queue/zoned", root, d->name);
	if (sysfs_read(path, d->zoned, sizeof(d->zoned)) <= 0) {
		d->unread |= DISK_UNREAD_ZONED;
		strcpy(d->zoned, "none");
	}
}

int disk_info_read(const char *root, const char *name, struct disk_info *d)
{
	char path[PATH_MAX];
	uint64_t sectors;
	int ret;

	memset(d, 0, sizeof(*d));
	if (strlen(name) >= sizeof(d->name))
		return -ENAMETOOLONG;
	strcpy(d->name, name);
	snprintf(d->dev, sizeof(d->dev), "/dev/%s", name);
	/* size counts 512-byte sectors whatever the logical block size */
	snprintf(path, sizeof(path), "%s/sys/block/%s/size", root, name);
	ret = sysfs_read_u64(path, &sectors);
	if (ret)
		return ret;
	d->size_bytes = sectors * 512;
	snprintf(path, sizeof(path), "%s/sys/block/%s/dev", root, name);
	if (sysfs_read(path, d->majmin, sizeof(d->majmin)) < 0)
		d->majmin[0] = '\0';
	disk_read_queue(root, d);
	disk_read_serial(root, name, d->id, sizeof(d->id));
	strcpy(d->transport, disk_transport(root, name));
	strcpy(d->bus, d->transport);
	if (!strcmp(d->transport, "dm")) { /* a multipath device: the bus its paths are on */
		char slave[64];

		disk_first_link(root, name, "slaves", slave, sizeof(slave));
		if (slave[0])
			strcpy(d->bus, disk_transport(root, slave));
	}
	return 0;
}

/* Multipath NVMe shows each path as a hidden "nvmeXcYnZ" disk beside the
 * head; only the head is usable. Likewise a path that a dm-multipath device
 * holds is listed through that device. */
static bool disk_wanted(const char *root, const char *name)
{
	char path[PATH_MAX], holder[64];
	uint64_t hidden;
	int i;

	if (name[0] == '.')
		return false;
	for (i = 0; disk_skip_prefixes[i]; i++)
		if (!strncmp(name, disk_skip_prefixes[i], strlen(disk_skip_prefixes[i])))
			return false;
	disk_first_link(root, name, "holders", holder, sizeof(holder));
	if (holder[0] && disk_is_mpath_dm(root, holder))
		return false;
	/* the disk the guest's root is on (guest/root.c), not the machine's */
	if (!strncmp(name, "vd", 2)) {
		char serial[64];

		disk_read_serial(root, name, serial, sizeof(serial));
		if (!strcmp(serial, KTB_ROOT_SERIAL))
			return false;
	}
	snprintf(path, sizeof(path), "%s/sys/block/%s/hidden", root, name);
	return sysfs_read_u64(path, &hidden) || !hidden;
}

static int disk_cmp(const void *a, const void *b)
{
	const struct disk_info *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	/* vdz before vdaa, as the kernel names them */
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

int disk_scan(const char *root, struct disk_info *out, int max)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "%s/sys/block", root);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (n < max && (de = readdir(dir))) {
		if (!disk_wanted(root, de->d_name))
			continue;
		if (!disk_info_read(root, de->d_name, &out[n]))
			n++;
	}
	closedir(dir);
	qsort(out, n, sizeof(*out), disk_cmp);
	return n;
}

int disk_find(const char *root, const char *id, struct disk_info *d)
{
	struct disk_info *all;
	int n, i, ret = -ENOENT;

	all = calloc(DISK_MAX, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n = disk_scan(root, all, DISK_MAX);
	for (i = 0; i < n; i++) {
		if (all[i].id[0] && !strcmp(all[i].id, id)) {
			*d = all[i];
			ret = 0;
			break;
		}
	}
	free(all);
	return n < 0 ? n : ret;
}
