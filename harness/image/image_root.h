/* A Debian root for the guest to run on (guest.root debian, ktb boot
 * --root debian, docs/guest.md): images/debian-root.sh builds it with
 * mmdebstrap, cached under $CACHE/roots/KEY by the recipe and the package
 * versions apt resolves, and handed to the guest as a read-only disk. */
#ifndef KTB_IMAGE_ROOT_H
#define KTB_IMAGE_ROOT_H

#include <stddef.h>

/* The root holding packages[0..n) beyond minbase (and the testbed's own
 * few), built unless cached: *dir its folder (malloc'd). The script's
 * messages (a build under way, what is wrong) go to stderr as it runs. 0,
 * -EINVAL (a package apt does not know, a bad name) or -EIO (the build
 * failed or cannot run here, not as root); err then says why. */
int image_debian_root(char *const *packages, unsigned n, char **dir, char *err, size_t errlen);

/* The root folder dir (image_debian_root's) as the guest mounts it, an
 * ext4 image beside it (images/root-disk.sh), made unless there: *disk its
 * path (malloc'd). 0 or -EIO with err saying why. */
int image_root_disk(const char *dir, char **disk, char *err, size_t errlen);

#endif
