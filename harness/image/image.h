/* Guest images: a recipe (images/NAME.yaml) names a kernel package, modules
 * and extra binaries; the builder turns them into a kernel (vmlinux for PVH
 * and bzImage for BIOS boots) and an initramfs, cached under
 * $XDG_CACHE_HOME/ktb keyed by a hash of every input. */
#ifndef KTB_IMAGE_H
#define KTB_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the layer's other headers, so one include serves its users */
#include "image_dirs.h"
#include "image_recipe.h"
#include "image_root.h"
#include "image_tree.h"

struct image {
	char *dir;     /* cache directory of this build */
	char *vmlinux; /* decompressed ELF with the PVH note, or NULL */
	char *bzimage; /* bootable through SeaBIOS, or NULL */
	/* the direct bzImage (image_direct.h), once a machine asked for it,
	 * and the top of what its boot writes */
	char *direct;
	uint64_t direct_top;
	char *initrd;
	char *release; /* kernel release, "6.1.0-57-amd64" */
	char *key;     /* content hash */
	/* "linux-image-6.1.0-57-amd64-unsigned=6.1.192-3": the Debian package
	 * the kernel came from; NULL for a user's own kernel */
	char *kernel_deb;
	/* the kernel's debug files (ktb image build --debug, image_debug.h):
	 * DIR/debug/vmlinux and DIR/debug/modules; NULL when not fetched */
	char *debug_vmlinux;
	char *debug_modules;
};

struct image_opts {
	const char *recipe;	 /* path or name in images/; NULL: "default" */
	const char *kernel_abi;	 /* "6.1.0-47": replaces the recipe's kernel package */
	const char *kernel_path; /* a user's own bzImage or vmlinux */
	const char *modules_dir; /* with kernel_path: lib/modules/<release> or its parent */
	const char *kernel_tree; /* the build tree kernel_path is the bzImage of: its
				  * modules unless modules_dir (image_tree.h) */
	bool verbose;		 /* show the builder's output */
};

/* Where an image keeps its kernel's debug files: IMAGE/debug (image_debug.h). */
#define IMAGE_DEBUG_DIR "debug"
/* img->debug_vmlinux and img->debug_modules when img->dir has a debug
 * folder (image_ensure finds it); left NULL otherwise. */
void image_debug_find(struct image *img);

/* Build the image unless an identical one is cached. 0, -EINVAL (bad recipe
 * or options, err says where) or -EIO (build failed, err says why). */
int image_ensure(const struct image_opts *o, struct image *out, char *err, size_t errlen);
void image_free(struct image *img);

/* --- below: the parts of image_ensure that `ktb image` and tests use ------ */

/* Everything an image is made from; image_key hashes it. */
struct image_inputs {
	const char *recipe_path;
	const char *builder_path;
	const char *guest_dir;	   /* holds init, ktb-probe, ktb-io */
	const char *kernel_abi;	   /* or NULL */
	const char *kernel_path;   /* or NULL: the kernel is debs[0] */
	const char *modules_dir;   /* or NULL */
	const char *kernel_config; /* the config found beside kernel_path, or NULL */
	const char *tree_dir;	   /* a kernel tree whose modules are staged, or NULL */
	char *const *tree_files;   /* its module files, relative (image_tree_modules) */
	size_t tree_files_count;
	char **debs; /* "package=version", the kernel's first */
	size_t debs_count;
	char **binaries; /* absolute host paths */
	size_t binaries_count;
	const char *kselftest_src; /* the selftests' source tarball, or NULL */
};

/* The guest programs every image carries, as named in guest_dir. */
extern const char *const image_guest_files[];

#define IMAGE_KEY_LEN 64
/* SHA-256 over all inputs, hex. Reads files but runs nothing: the version
 * lookup happens before. 0 or -EIO (err names the unreadable input). */
int image_key(const struct image_inputs *in, char key[IMAGE_KEY_LEN + 1], char *err, size_t errlen);

#endif
