/* What the hw/ files share among themselves and nobody else needs: error
 * filling, size formatting, option escaping, and the per-part validate and
 * to_args entry points that machine.c orchestrates. */
#ifndef KTB_HW_INTERNAL_H
#define KTB_HW_INTERNAL_H

#include "machine.h"

#define HW_KIB (1ull << 10)
#define HW_MIB (1ull << 20)

/* Fill err (field, then a printf-style message) and return -EINVAL. */
int hw_fail(struct hw_error *err, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parse a size into *out, reporting problems against field. */
int hw_size_field(const char *s, uint64_t *out, const char *field, struct hw_error *err);

/* "512M", "1G", "1536K": the largest binary unit that divides n exactly. */
const char *hw_size_str(uint64_t n, char *buf, size_t len);

/* s with every ',' doubled, as QEMU's option parser wants. Caller frees;
 * NULL on ENOMEM. */
char *hw_escape(const char *s);

int disks_validate(struct machine *m, struct hw_error *err);
int disks_to_args(const struct machine *m, const struct hw_launch *l, struct argv *a,
		  struct hw_error *err);
/* multipath.c: paths and zoned on one disk */
int disk_mp_validate(struct disk *d, unsigned i, struct hw_error *err);
int disk_mp_nvme_args(const struct disk *d, unsigned node, struct argv *a);
int disk_mp_scsi_args(const struct disk *d, unsigned node, struct argv *a);
const char *disk_zoned_opts(const struct disk *d, char *buf, size_t len);
int numa_validate(struct machine *m, struct hw_error *err);
int numa_to_args(const struct machine *m, struct argv *a);
int hmat_validate(const struct numa *nu, struct hw_error *err);
int hmat_to_args(const struct numa *nu, struct argv *a);
int balloon_to_args(const struct machine *m, struct argv *a);
/* disk i's hybrid: settings (hybrid_disk.c) */
int hybrid_validate(struct disk *d, unsigned i, struct hw_error *err);
/* Shared guest RAM for vhost-user back ends when the machine has one. */
int hybrid_memory_args(const struct machine *m, struct argv *a);
int sleep_validate(const struct machine *m, struct hw_error *err);
int sleep_to_args(const struct machine *m, struct argv *a);

#endif
