#include "disk.h"

#include "disk_bus.h"
#include "disk_path.h"
#include "hybrid_disk.h"
#include "multipath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The id becomes the device serial; NVMe serials hold at most 20 bytes. */
#define DISK_ID_MAX 20
/* q35's AHCI controller has six ports, ide.0 .. ide.5. */
#define SATA_PORTS 6

/* d's sector sizes in bytes, as its format (names.h) gives them */
static unsigned logical(const struct disk *d)
{
	return disk_sector_logical(d->sector);
}

static unsigned physical(const struct disk *d)
{
	return disk_sector_physical(d->sector);
}

/* What one disk's arguments need beyond the disk: which instance of its bus
 * it is, and whether the shared SCSI HBA exists yet. */
struct disk_ctx {
	struct argv *a;
	unsigned node; /* blockdev node d<node> */
	unsigned nth;  /* index among disks on the same bus */
	bool *scsi_hba;
	const struct hw_launch *l;
};

struct disk_bus_ops {
	unsigned max; /* disks this bus takes; 0: no limit */
	/* NULL: paths > 1 is refused (no multipath wiring for this bus yet) */
	int (*multipath_to_args)(const struct disk *d, struct disk_ctx *c);
	/* why QEMU cannot present d on this bus (NULL: it can); *key: field */
	const char *(*refuse)(const struct disk *d, const char **key);
	int (*to_args)(const struct disk *d, struct disk_ctx *c);
};

static const char *sata_refuse(const struct disk *d, const char **key)
{
	*key = "sector";
	if (d->sector == DISK_SECTOR_4KN)
		return "4kn on sata: QEMU's ide-hd cannot present 4096-byte logical sectors; "
		       "use virtio, scsi or nvme";
	return NULL;
}

static const char *nvme_refuse(const struct disk *d, const char **key)
{
	*key = "sector";
	if (d->sector == DISK_SECTOR_512E)
		return "512e on nvme: QEMU's nvme-ns reports 512/512 for 512e; use virtio, scsi or "
		       "sata";
	return NULL;
}

static const char *hybrid_refuse(const struct disk *d, const char **key)
{
	*key = "image";
	if (d->image)
		return "a hybrid disk starts empty; its back end takes no base image";
	*key = "size";
	if (d->size_bytes % (64 * HW_KIB))
		return "a hybrid disk's size is a multiple of 64K (its flash tier's chunk)";
	return NULL;
}

static int hybrid_to_args(const struct disk *d, struct disk_ctx *c)
{
	char *sock = machine_hybrid_path(c->l, d, "vhost"), *esc = sock ? hw_escape(sock) : NULL;
	int ret = -ENOMEM;

	if (!esc)
		goto out;
	/* the serial comes from the back end (GET_ID): vhost-user-blk has none */
	argv_add(c->a, "-chardev");
	argv_addf(c->a, "socket,id=hy%u,path=%s", c->node, esc);
	argv_add(c->a, "-device");
	ret = argv_addf(c->a, "vhost-user-blk-pci,chardev=hy%u,num-queues=1", c->node);
out:
	free(esc);
	free(sock);
	return ret;
}

static int virtio_to_args(const struct disk *d, struct disk_ctx *c)
{
	argv_add(c->a, "-device");
	return argv_addf(c->a,
			 "virtio-blk-pci,drive=d%u,serial=%s,logical_block_size=%u,"
			 "physical_block_size=%u",
			 c->node, d->id, logical(d), physical(d));
}

/* scsi-hd and ide-hd report rotation_rate=1 as "non-rotating"; left out, the
 * guest sees a rotating disk. */
static const char *rotation(const struct disk *d)
{
	return d->rotational ? "" : ",rotation_rate=1";
}

static int scsi_to_args(const struct disk *d, struct disk_ctx *c)
{
	if (!*c->scsi_hba) {
		argv_add_list(c->a,
			      (const char *const[]){ "-device", "virtio-scsi-pci,id=scsi0", NULL });
		*c->scsi_hba = true;
	}
	argv_add(c->a, "-device");
	return argv_addf(c->a,
			 "scsi-hd,bus=scsi0.0,drive=d%u,serial=%s,logical_block_size=%u,"
			 "physical_block_size=%u%s",
			 c->node, d->id, logical(d), physical(d), rotation(d));
}

static int nvme_to_args(const struct disk *d, struct disk_ctx *c)
{
	char z[64];

	argv_add(c->a, "-device");
	argv_addf(c->a, "nvme,serial=%s,id=nvme%u", d->id, c->nth);
	argv_add(c->a, "-device");
	return argv_addf(c->a,
			 "nvme-ns,bus=nvme%u,drive=d%u,nsid=1,logical_block_size=%u,"
			 "physical_block_size=%u%s",
			 c->nth, c->node, logical(d), physical(d),
			 disk_zoned_opts(d, z, sizeof(z)));
}

static int nvme_mp_to_args(const struct disk *d, struct disk_ctx *c)
{
	return disk_mp_nvme_args(d, c->node, c->a);
}

static int scsi_mp_to_args(const struct disk *d, struct disk_ctx *c)
{
	return disk_mp_scsi_args(d, c->node, c->a);
}

static int sata_to_args(const struct disk *d, struct disk_ctx *c)
{
	argv_add(c->a, "-device");
	return argv_addf(c->a,
			 "ide-hd,bus=ide.%u,drive=d%u,serial=%s,logical_block_size=%u,"
			 "physical_block_size=%u%s",
			 c->nth, c->node, d->id, logical(d), physical(d), rotation(d));
}

static const struct disk_bus_ops disk_buses[] = {
	[DISK_BUS_VIRTIO] = { .to_args = virtio_to_args },
	[DISK_BUS_SCSI] = { .multipath_to_args = scsi_mp_to_args, .to_args = scsi_to_args },
	[DISK_BUS_NVME] = { .multipath_to_args = nvme_mp_to_args,
			    .refuse = nvme_refuse,
			    .to_args = nvme_to_args },
	[DISK_BUS_SATA] = { .max = SATA_PORTS, .refuse = sata_refuse, .to_args = sata_to_args },
	[DISK_BUS_HYBRID] = { .refuse = hybrid_refuse, .to_args = hybrid_to_args },
};

_Static_assert(sizeof(disk_buses) / sizeof(disk_buses[0]) == DISK_BUS_COUNT,
	       "a bus in names.h without its QEMU devices here");

static const char *disk_field(char *buf, size_t len, unsigned i, const char *key)
{
	snprintf(buf, len, "machine.disks[%u]%s%s", i, key ? "." : "", key ? key : "");
	return buf;
}

static bool disk_id_valid(const char *id)
{
	size_t len = strlen(id);

	if (!len || len > DISK_ID_MAX)
		return false;
	return strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") ==
	       len;
}

static int disk_check_id(const struct machine *m, unsigned i, struct hw_error *err)
{
	const char *id = m->disks[i].id ? m->disks[i].id : "";
	char f[64];

	disk_field(f, sizeof(f), i, "id");
	if (!disk_id_valid(id))
		return hw_fail(err, f,
			       "\"%s\" is not a disk id; use 1 to %d letters, digits, "
			       "'_' or '-' (it becomes the device serial)",
			       id, DISK_ID_MAX);
	for (unsigned j = 0; j < i; j++) {
		if (!strcmp(m->disks[j].id, id))
			return hw_fail(err, f,
				       "\"%s\" is already the id of machine.disks[%u]; "
				       "give each disk its own id",
				       id, j);
	}
	return 0;
}

static int disk_check_size(struct disk *d, unsigned i, struct hw_error *err)
{
	char f[64], sz[32];
	int ret;

	disk_field(f, sizeof(f), i, "size");
	ret = hw_size_field(d->size, &d->size_bytes, f, err);
	if (ret < 0)
		return ret;
	/* the physical size is a multiple of the logical one for every geometry */
	if (d->size_bytes % physical(d))
		return hw_fail(err, f,
			       "%s is not a multiple of the %s disk's %u-byte sectors; "
			       "round it to a multiple of %u",
			       hw_size_str(d->size_bytes, sz, sizeof(sz)),
			       disk_sector_name(d->sector), physical(d), physical(d));
	return 0;
}

static int disk_check_bus(const struct disk *d, unsigned i, unsigned on_bus, struct hw_error *err)
{
	const struct disk_bus_ops *bus = &disk_buses[d->bus];
	const char *key = NULL, *why = bus->refuse ? bus->refuse(d, &key) : NULL;
	char f[64];

	if (why)
		return hw_fail(err, disk_field(f, sizeof(f), i, key), "%s", why);
	if (d->paths > 1 && !bus->multipath_to_args)
		return hw_fail(err, disk_field(f, sizeof(f), i, "paths"),
			       "paths > 1 on %s: QEMU gives this bus one path per disk; use nvme "
			       "(native NVMe multipath) or scsi (dm-multipath)",
			       disk_bus_name(d->bus));
	if (bus->max && on_bus > bus->max)
		return hw_fail(err, disk_field(f, sizeof(f), i, "bus"),
			       "more than %u %s disks; the bus has %u ports, put the others "
			       "on another bus",
			       bus->max, disk_bus_name(d->bus), bus->max);
	return 0;
}

static int disk_validate(struct machine *m, unsigned i, unsigned *on_bus, struct hw_error *err)
{
	struct disk *d = &m->disks[i];
	char f[64];
	int ret;

	if ((unsigned)d->bus >= DISK_BUS_COUNT)
		return hw_fail(err, disk_field(f, sizeof(f), i, "bus"), "unknown bus");
	if ((unsigned)d->sector >= DISK_SECTOR_COUNT)
		return hw_fail(err, disk_field(f, sizeof(f), i, "sector"), "unknown sector size");
	ret = disk_check_id(m, i, err);
	if (!ret)
		ret = disk_check_size(d, i, err);
	if (!ret)
		ret = disk_check_bus(d, i, ++on_bus[d->bus], err);
	if (!ret)
		ret = disk_mp_validate(d, i, err);
	if (!ret)
		ret = hybrid_validate(d, i, err);
	return ret;
}

int disks_validate(struct machine *m, struct hw_error *err)
{
	unsigned on_bus[DISK_BUS_COUNT] = { 0 };
	int ret;

	if (m->disks_count > MACHINE_MAX_DISKS)
		return hw_fail(err, "machine.disks", "%u disks; a machine takes at most %d",
			       m->disks_count, MACHINE_MAX_DISKS);
	for (unsigned i = 0; i < m->disks_count; i++) {
		ret = disk_validate(m, i, on_bus, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int disk_blockdev(const struct disk *d, unsigned node, const struct hw_launch *l,
			 struct argv *a)
{
	char *path = machine_disk_path(l, d), *esc = path ? hw_escape(path) : NULL;
	int ret = -ENOMEM;

	if (!esc)
		goto out;
	ret = argv_add(a, "-blockdev");
	if (ret < 0)
		goto out;
	if (d->image)
		ret = argv_addf(a,
				"driver=qcow2,node-name=d%u,file.driver=file,"
				"file.filename=%s,cache.direct=off",
				node, esc);
	else
		ret = argv_addf(a, "driver=file,node-name=d%u,filename=%s,cache.direct=off", node,
				esc);
out:
	free(esc);
	free(path);
	return ret;
}

int disks_to_args(const struct machine *m, const struct hw_launch *l, struct argv *a,
		  struct hw_error *err)
{
	unsigned on_bus[DISK_BUS_COUNT] = { 0 };
	bool scsi_hba = false;
	int ret;

	for (unsigned i = 0; i < m->disks_count; i++) {
		const struct disk *d = &m->disks[i];
		struct disk_ctx c = { a, i, on_bus[d->bus]++, &scsi_hba, l };
		char f[64];

		if (!disk_buses[d->bus].to_args)
			return hw_fail(err, disk_field(f, sizeof(f), i, "bus"),
				       "no QEMU device for bus %s", disk_bus_name(d->bus));
		/* a hybrid disk's blocks live in its back end, not in QEMU */
		/* a back end serves it: QEMU has no block node of its own */
		ret = disk_bus_info(d->bus)->backend ? 0 : disk_blockdev(d, i, l, a);
		if (!ret)
			ret = (d->paths > 1 ? disk_buses[d->bus].multipath_to_args
					    : disk_buses[d->bus].to_args)(d, &c);
		if (ret < 0)
			return ret;
	}
	return 0;
}
