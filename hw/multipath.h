/* Multipath and zoned disks: the checks and the extra QEMU devices for
 * `paths: N` and `zoned:`; disk.c calls in here (docs/storage.md). */
#ifndef KTB_HW_MULTIPATH_H
#define KTB_HW_MULTIPATH_H

#include <stddef.h>

#include "argv.h"

/* paths and zoned on disk i */
int disk_mp_validate(struct disk *d, unsigned i, struct hw_error *err);
int disk_mp_nvme_args(const struct disk *d, unsigned node, struct argv *a);
int disk_mp_scsi_args(const struct disk *d, unsigned node, struct argv *a);
/* ",zoned=true,..." for an nvme-ns option string, "" when not zoned. */
const char *disk_zoned_opts(const struct disk *d, char *buf, size_t len);

/* The -device option string of path p of multipath disk i (the nvme
 * controller or scsi-hd behind that path), as the command line has it and
 * device_add takes it back; its id after "id=". 0, or -EINVAL when disk i
 * has no path p. */
int machine_path_device(const struct machine *m, unsigned i, unsigned p, char *buf, size_t len);

#endif
