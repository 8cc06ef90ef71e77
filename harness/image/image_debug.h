/* ktb image build --debug: the debug files of an image's Debian kernel,
 * for findings in file:line. Debian ships the kernel's DWARF apart, in
 * linux-image-RELEASE-dbg (some 860 MB for 6.1); images/debug-files.sh
 * downloads it and unpacks only the vmlinux and the .ko files of the
 * modules the image holds (its modules.txt) into IMAGE/debug/:
 *
 *   debug/vmlinux          usr/lib/debug/boot/vmlinux-RELEASE
 *   debug/modules/X.ko     each module's, by its file name (dm-multipath.ko)
 *   debug/manifest.json    the package, its version, the modules found
 *   debug/debug.log        the script's output
 *
 * The folder is made beside it and renamed into place once complete; the
 * .deb is removed. docs/debugging.md, "Stacks in file:line". */
#ifndef KTB_IMAGE_DEBUG_H
#define KTB_IMAGE_DEBUG_H

#include <stdbool.h>
#include <stddef.h>

struct image;

/* "linux-image-RELEASE-dbg=VERSION", the debug package of img's Debian
 * kernel (the kernel package's version: Debian builds both from one
 * source), malloc'd; NULL for a user's own kernel. */
char *image_debug_package(const struct image *img);

/* Fetch and unpack img's debug files unless they are there, then fill
 * img->debug_*. 0; -EINVAL when img's kernel is no Debian package; -EIO
 * with err saying what failed (the package unknown to apt, the download,
 * the disk full) and what to run. Its output goes to the terminal with
 * verbose, else to debug.log (kept as IMAGE/debug.failed.log on failure). */
int image_debug_ensure(struct image *img, bool verbose, char *err, size_t errlen);

#endif
