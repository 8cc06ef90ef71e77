/* What each disk bus is, beyond the QEMU devices that present it (hw/disk.c
 * renders those): how the guest sees it, what its guest driver needs in the
 * kernel, how it takes several paths, what libvirt can do with it. One row
 * per bus (disk_bus.c); the rest of hw/, the harness and the steps ask the
 * row instead of naming buses. */
#ifndef KTB_HW_DISK_BUS_H
#define KTB_HW_DISK_BUS_H

#include <stdbool.h>
#include <stddef.h>

#include "names.h"

/* How a disk with paths > 1 is put together. */
enum disk_mp {
	DISK_MP_NONE, /* one path only (refused at validation) */
	DISK_MP_NVME, /* native NVMe multipath: one namespace, a controller per path */
	DISK_MP_DM,   /* a disk per path, dm-multipath over them in the guest */
};

#define DISK_BUS_KOPTS_MAX 4

struct disk_bus_info {
	/* the bus the guest's kernel finds it on, as ktb-probe names it (a
	 * dm-multipath device: its paths') */
	const char *guest_bus;
	/* how the guest sees it when the host's device is another kind, or NULL */
	const char *guest_note;
	/* the guest kernel's options (module, or NULL: built in) for its driver */
	struct {
		const char *option, *module;
	} kopts[DISK_BUS_KOPTS_MAX];
	enum disk_mp multipath;
	bool zoned;	     /* can be a zoned (ZNS) namespace */
	bool rotation;	     /* its device tells the guest whether it rotates */
	bool backend;	     /* served by a ktb-hybrid back end over vhost-user */
	bool libvirt;	     /* the libvirt renderer can present it */
	bool libvirt_virtio; /* libvirt's target is vdX on bus virtio (else sdX) */
	/* the <controller> model libvirt needs for it once, or NULL */
	const char *libvirt_controller;
};

/* The row of bus b (never NULL for a valid b). */
const struct disk_bus_info *disk_bus_info(enum disk_bus b);

#endif
