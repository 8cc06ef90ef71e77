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

/* --- below: the parts of image_ensure that `ktb image` and tests use ------ */

struct image_recipe_kernel {
	char *package;            /* Debian package, "linux-image-6.1.0-57-amd64-unsigned" */
};

/* images/NAME.yaml, as libcyaml maps it. */
struct image_recipe {
	char *name;               /* defaults to the file name without .yaml */
	struct image_recipe_kernel *kernel;     /* optional with --kernel PATH */
	char **modules;           /* module names; dependencies come by themselves */
	unsigned modules_count;
	char **binaries;          /* host programs copied with their libraries */
	unsigned binaries_count;
	char **packages;          /* Debian packages whose programs go in */
	unsigned packages_count;
};

/* 0, -EINVAL (err: "file:line:col: what") or -ENOENT/-EIO. */
int image_recipe_load(const char *path, struct image_recipe **out, char *err, size_t errlen);
void image_recipe_free(struct image_recipe *r);
/* "default" -> KTB_SOURCE_DIR/images/default.yaml; a path stays a path. */
char *image_recipe_path(const char *recipe);

/* Everything an image is made from; image_key hashes it. */
struct image_inputs {
	const char *recipe_path;
	const char *builder_path;
	const char *guest_dir;        /* holds init, ktb-probe, ktb-io */
	const char *kernel_abi;       /* or NULL */
	const char *kernel_path;      /* or NULL: the kernel is debs[0] */
	const char *modules_dir;      /* or NULL */
	char **debs;                  /* "package=version", the kernel's first */
	size_t debs_count;
	char **binaries;              /* absolute host paths */
	size_t binaries_count;
};

/* The guest programs every image carries, as named in guest_dir. */
extern const char *const image_guest_files[];

#define IMAGE_KEY_LEN 64
/* SHA-256 over all inputs, hex. Reads files but runs nothing: the version
 * lookup happens before. 0 or -EIO (err names the unreadable input). */
int image_key(const struct image_inputs *in, char key[IMAGE_KEY_LEN + 1], char *err,
	      size_t errlen);

#endif
