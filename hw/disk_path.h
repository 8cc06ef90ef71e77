/* Where a run's disk files live under hw_launch.disk_dir: the disk image
 * itself, and a hybrid disk's back-end sockets and flash file. Callers free
 * what these return (NULL on ENOMEM). */
#ifndef KTB_HW_DISK_PATH_H
#define KTB_HW_DISK_PATH_H

#include "model.h"

/* Path of disk d's image under l->disk_dir. */
char *machine_disk_path(const struct hw_launch *l, const struct disk *d);

/* Hybrid disks are served by a ktb-hybrid process per disk: its vhost-user
 * socket, control socket and flash file (ext "vhost", "ctl", "flash"); the
 * platter is machine_disk_path(). */
char *machine_hybrid_path(const struct hw_launch *l, const struct disk *d, const char *ext);

#endif
