/* The direct bzImage (docs/guest.md, "How the kernel starts"): a kernel's
 * bzImage whose compressed payload is replaced by a small loader
 * (guest/boot/direct.S) and the vmlinux's segments as they are. SeaBIOS and
 * the kernel's own real-mode setup start it as they start the bzImage, so a
 * machine that sleeps in S3 can use it, but nothing is decompressed under
 * TCG: the loader copies the segments into place and enters the kernel
 * through its PVH entry. */
#ifndef KTB_IMAGE_DIRECT_H
#define KTB_IMAGE_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct image;

/* beside the image's bzImage, made the first time a machine boots it */
#define IMAGE_DIRECT_FILE "bzImage.direct"
/* where the kernel's setup jumps (code32_start) and the loader runs */
#define IMAGE_DIRECT_BASE 0x100000u
/* the loader's table, after its code and data, from the payload's start */
#define IMAGE_DIRECT_TABLE 0x3000u
#define IMAGE_DIRECT_MAX_SEGS 16u
#define IMAGE_DIRECT_MAGIC 0x6b42544bu /* "KTBk" */

/* the loader's bytes (generated from guest/boot/direct.S at build time) */
extern const unsigned char image_direct_loader[];
extern const size_t image_direct_loader_size;

/* Writes out from bzimage (its real-mode setup) and vmlinux (its PT_LOAD
 * segments and PVH entry): 0 and *top (the first address above everything
 * the boot writes below the initrd), or -errno with why naming what this
 * kernel lacks (no PVH entry, a segment that would have to move down). out
 * appears whole or not at all. */
int image_direct_make(const char *bzimage, const char *vmlinux, const char *out, uint64_t *top,
		      char *why, size_t whylen);

/* A direct bzImage made with this ktb's loader: 0 and its *top; -EINVAL
 * when path holds another loader (an older ktb's) or none; -errno. */
int image_direct_top(const char *path, uint64_t *top);

/* Whether QEMU's initrd of initrd_bytes, which it puts at the top of the
 * low_bytes of RAM below 4 GiB, lies above top. */
bool image_direct_fits(uint64_t top, uint64_t low_bytes, uint64_t initrd_bytes);

/* img's direct bzImage, made beside its bzImage the first time it is
 * asked for: NULL (why says so) when the image has no vmlinux with a PVH
 * entry, when this kernel cannot be packed, when the file cannot be
 * written, or when KTB_DIRECT_BOOT=0 says to boot the bzImage itself.
 * *top as image_direct_make's. */
const char *image_direct(struct image *img, uint64_t *top, char *why, size_t whylen);

#endif
