/* Guest images: a recipe (images/NAME.yaml) names a kernel package, modules
 * and extra binaries; the builder turns them into a kernel (vmlinux for PVH
 * and bzImage for BIOS boots) and an initramfs, cached under
 * $XDG_CACHE_HOME/ktb keyed by a hash of every input. */
#ifndef KTB_IMAGE_H
#define KTB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

struct image {
	char *dir;            /* cache directory of this build */
	char *vmlinux;        /* decompressed ELF with the PVH note, or NULL */
	char *bzimage;        /* bootable through SeaBIOS, or NULL */
	char *initrd;
	char *release;        /* kernel release, "6.1.0-57-amd64" */
	char *key;            /* content hash */
};

struct image_opts {
	const char *recipe;       /* path or name in images/; NULL: "default" */
	const char *kernel_abi;   /* "6.1.0-47": replaces the recipe's kernel package */
	const char *kernel_path;  /* a user's own bzImage or vmlinux */
	const char *modules_dir;  /* with kernel_path: lib/modules/<release> or its parent */
	bool verbose;             /* show the builder's output */
};

/* Build the image unless an identical one is cached. 0, -EINVAL (bad recipe
 * or options, err says where) or -EIO (build failed, err says why). */
int image_ensure(const struct image_opts *o, struct image *out, char *err, size_t errlen);
void image_free(struct image *img);

/* Where the testbed's sources and built guest binaries are (compiled-in,
 * overridable with KTB_SOURCE_DIR / KTB_GUEST_DIR). */
const char *ktb_source_dir(void);
const char *ktb_guest_dir(void);
/* $XDG_CACHE_HOME/ktb (or ~/.cache/ktb), created on demand. Static buffer. */
const char *ktb_cache_dir(void);

#endif
