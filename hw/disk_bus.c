#include "disk_bus.h"

static const struct disk_bus_info disk_bus_rows[] = {
	[DISK_BUS_VIRTIO] = { .guest_bus = "virtio",
			      .kopts = { { "CONFIG_VIRTIO_BLK", "virtio_blk" } },
			      .libvirt = true,
			      .libvirt_virtio = true },
	[DISK_BUS_SCSI] = { .guest_bus = "scsi",
			    .kopts = { { "CONFIG_SCSI", "scsi_mod" },
				       { "CONFIG_BLK_DEV_SD", "sd_mod" },
				       { "CONFIG_SCSI_VIRTIO", "virtio_scsi" } },
			    .multipath = DISK_MP_DM,
			    .rotation = true,
			    .libvirt = true,
			    .libvirt_controller = "virtio-scsi" },
	[DISK_BUS_NVME] = { .guest_bus = "nvme",
			    .kopts = { { "CONFIG_BLK_DEV_NVME", "nvme" } },
			    .multipath = DISK_MP_NVME,
			    .zoned = true },
	/* a SATA disk sits on libata */
	[DISK_BUS_SATA] = { .guest_bus = "ata",
			    .kopts = { { "CONFIG_SCSI", "scsi_mod" },
				       { "CONFIG_BLK_DEV_SD", "sd_mod" },
				       { "CONFIG_ATA", "libata" },
				       { "CONFIG_SATA_AHCI", "ahci" } },
			    .rotation = true,
			    .libvirt = true },
	/* vhost-user-blk on the host, virtio-blk in the guest */
	[DISK_BUS_HYBRID] = { .guest_bus = "virtio",
			      .guest_note = "vhost-user-blk: virtio-blk in the guest",
			      .kopts = { { "CONFIG_VIRTIO_BLK", "virtio_blk" } },
			      .backend = true },
};

_Static_assert(sizeof(disk_bus_rows) / sizeof(disk_bus_rows[0]) == DISK_BUS_COUNT,
	       "a row per bus in names.h");

const struct disk_bus_info *disk_bus_info(enum disk_bus b)
{
	static const struct disk_bus_info none = { .guest_bus = "?" };

	return (unsigned)b < DISK_BUS_COUNT ? &disk_bus_rows[b] : &none;
}
