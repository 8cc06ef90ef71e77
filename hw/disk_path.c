/* Where a run's disk files live: one directory, hw_launch.disk_dir, named
 * after the disk's id. */
#include "disk_path.h"

#include <stdio.h>

char *machine_hybrid_path(const struct hw_launch *l, const struct disk *d, const char *ext)
{
	char *p;

	if (asprintf(&p, "%s/%s.%s", l->disk_dir ? l->disk_dir : ".", d->id, ext) < 0)
		return NULL;
	return p;
}

/* The image is a disk file like a hybrid disk's others, named by its format. */
char *machine_disk_path(const struct hw_launch *l, const struct disk *d)
{
	return machine_hybrid_path(l, d, d->image ? "qcow2" : "img");
}
