/* Multipath and zoned disks: the checks and the extra QEMU devices for
 * `paths: N` (an NVMe subsystem with one controller per PCIe root port, or N
 * virtio-scsi HBAs each with a scsi-hd on the same block node) and for
 * `zoned:` (a ZNS namespace). disk.c calls in here; see docs/storage.md. */
#include "multipath.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "disk_bus.h"
/* scsi-hd paths of one disk share a WWN (NAA 5) so the guest sees one LU. */
#define MP_WWN_BASE 0x5000c50000000000ull

static const char *mp_field(char *buf, size_t len, unsigned i, const char *key)
{
	snprintf(buf, len, "machine.disks[%u].%s", i, key);
	return buf;
}

static int mp_check_paths(const struct disk *d, unsigned i, struct hw_error *err)
{
	char f[64];

	if (d->paths > MACHINE_MAX_PATHS)
		return hw_fail(err, mp_field(f, sizeof(f), i, "paths"),
			       "%u paths; a disk takes at most %d", d->paths, MACHINE_MAX_PATHS);
	if (!d->multipath)
		return 0;
	mp_field(f, sizeof(f), i, "multipath");
	if (disk_bus_info(d->bus)->multipath == DISK_MP_NVME)
		return hw_fail(err, f,
			       "an nvme disk uses the kernel's native NVMe multipath, "
			       "which has no mode; drop multipath");
	if (d->paths < 2)
		return hw_fail(err, f, "multipath needs paths: 2 or more");
	if (!multipath_mode_name(d->multipath->mode) ||
	    !multipath_no_path_name(d->multipath->no_path))
		return hw_fail(err, f, "unknown mode or no_path");
	return 0;
}

static int mp_check_zoned(struct disk *d, unsigned i, struct hw_error *err)
{
	struct zoned *z = d->zoned;
	char f[64], a[32], b[32];
	int ret;

	if (!z)
		return 0;
	if (!disk_bus_info(d->bus)->zoned)
		return hw_fail(err, mp_field(f, sizeof(f), i, "zoned"),
			       "zoned disks are NVMe ZNS namespaces here; use bus: nvme");
	mp_field(f, sizeof(f), i, "zoned.zone_size");
	ret = hw_size_field(z->zone_size, &z->zone_size_bytes, f, err);
	if (ret < 0)
		return ret;
	if (z->zone_size_bytes % HW_MIB)
		return hw_fail(err, f, "%s is not a whole number of megabytes",
			       hw_size_str(z->zone_size_bytes, a, sizeof(a)));
	if (d->size_bytes % z->zone_size_bytes)
		return hw_fail(err, f,
			       "%s does not divide the disk's %s into whole zones; "
			       "make the size a multiple of the zone size",
			       hw_size_str(z->zone_size_bytes, a, sizeof(a)),
			       hw_size_str(d->size_bytes, b, sizeof(b)));
	return 0;
}

int disk_mp_validate(struct disk *d, unsigned i, struct hw_error *err)
{
	int ret = mp_check_paths(d, i, err);

	return ret ? ret : mp_check_zoned(d, i, err);
}

const char *disk_zoned_opts(const struct disk *d, char *buf, size_t len)
{
	buf[0] = '\0';
	/* zone capacity defaults to the zone size; no open/active limits */
	if (d->zoned)
		snprintf(buf, len, ",zoned=true,zoned.zone_size=%lluM",
			 (unsigned long long)(d->zoned->zone_size_bytes / HW_MIB));
	return buf;
}

static int mp_nvme_path(const struct disk *d, unsigned node, unsigned p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "nvme,serial=%s,subsys=d%uss,id=d%uc%u,bus=d%urp%u", d->id, node,
			 node, p, node, p);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

static int mp_scsi_path(const struct disk *d, unsigned node, unsigned p, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "scsi-hd,bus=d%uhba%u.0,scsi-id=%u,id=d%up%u,drive=d%u,"
			 "serial=%s,wwn=0x%llx,share-rw=on,logical_block_size=%u,"
			 "physical_block_size=%u%s",
			 node, p, p, node, p, node, d->id, MP_WWN_BASE + node + 1,
			 disk_sector_logical(d->sector), disk_sector_physical(d->sector),
			 d->rotational ? "" : ",rotation_rate=1");

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* One pcie-root-port per controller, so each path can be unplugged alone;
 * chassis numbers are unique across the machine. */
int disk_mp_nvme_args(const struct disk *d, unsigned node, struct argv *a)
{
	char dev[256], z[64];
	int ret;

	argv_add(a, "-device");
	argv_addf(a, "nvme-subsys,id=d%uss,nqn=%s", node, d->id);
	for (unsigned p = 0; p < d->paths; p++) {
		unsigned chassis = 1 + node * MACHINE_MAX_PATHS + p;

		argv_add(a, "-device");
		argv_addf(a, "pcie-root-port,id=d%urp%u,chassis=%u,slot=%u", node, p, chassis,
			  chassis);
		ret = mp_nvme_path(d, node, p, dev, sizeof(dev));
		if (ret)
			return ret;
		argv_add(a, "-device");
		argv_add(a, dev);
	}
	argv_add(a, "-device");
	return argv_addf(a,
			 "nvme-ns,bus=d%uc0,drive=d%u,nsid=1,shared=on,logical_block_size=%u,"
			 "physical_block_size=%u%s",
			 node, node, disk_sector_logical(d->sector),
			 disk_sector_physical(d->sector), disk_zoned_opts(d, z, sizeof(z)));
}

/* An HBA per path and the path's target id = its index, which is how the
 * guest tells the paths apart (they share serial and WWN). */
int disk_mp_scsi_args(const struct disk *d, unsigned node, struct argv *a)
{
	char dev[320];
	int ret;

	for (unsigned p = 0; p < d->paths; p++) {
		argv_add(a, "-device");
		argv_addf(a, "virtio-scsi-pci,id=d%uhba%u", node, p);
		ret = mp_scsi_path(d, node, p, dev, sizeof(dev));
		if (ret)
			return ret;
		argv_add(a, "-device");
		argv_add(a, dev);
	}
	return a->err;
}

int machine_path_device(const struct machine *m, unsigned i, unsigned p, char *buf, size_t len)
{
	const struct disk *d = i < m->disks_count ? &m->disks[i] : NULL;

	if (!d || d->paths < 2 || p >= d->paths)
		return -EINVAL;
	switch (disk_bus_info(d->bus)->multipath) {
	case DISK_MP_NVME:
		return mp_nvme_path(d, i, p, buf, len);
	case DISK_MP_DM:
		return mp_scsi_path(d, i, p, buf, len);
	case DISK_MP_NONE:
		break;
	}
	return -EINVAL;
}
