/* Image recipes: images/NAME.yaml, the kernel package, modules, host
 * programs and packages a guest image is made of, loaded and checked. The
 * builder (image.h) reads them; this file knows nothing of building. */
#ifndef KTB_IMAGE_RECIPE_H
#define KTB_IMAGE_RECIPE_H

#include <stddef.h>

struct image_recipe_kernel {
	char *package; /* Debian package, "linux-image-6.1.0-57-amd64-unsigned" */
};

/* Kernel selftests built from a Debian linux-source package's tarball
 * (/usr/src/SOURCE.tar.xz) and installed with their runner in the guest. */
struct image_recipe_kselftest {
	char *source;	/* "linux-source-6.1" */
	char **targets; /* selftest folders, "timers" */
	unsigned targets_count;
};

/* images/NAME.yaml, as libcyaml maps it. */
struct image_recipe {
	char *name;			    /* defaults to the file name without .yaml */
	struct image_recipe_kernel *kernel; /* optional with --kernel PATH */
	char **modules;			    /* module names; dependencies come by themselves */
	unsigned modules_count;
	char **binaries; /* host programs copied with their libraries */
	unsigned binaries_count;
	char **packages; /* Debian packages whose programs go in */
	unsigned packages_count;
	struct image_recipe_kselftest *kselftest; /* optional */
};

/* A recipe lists some dozens of names (images/default.yaml: 1.2 KB); a
 * larger file is refused unread, so loading one stays bounded. */
#define IMAGE_RECIPE_MAX_BYTES (64u << 10)

/* 0, -EINVAL (err: "file:line:col: what"; a file over IMAGE_RECIPE_MAX_BYTES,
 * an anchor or alias) or -ENOENT/-EIO. */
int image_recipe_load(const char *path, struct image_recipe **out, char *err, size_t errlen);
void image_recipe_free(struct image_recipe *r);
/* "default" -> KTB_SOURCE_DIR/images/default.yaml; a path stays a path. */
char *image_recipe_path(const char *recipe);

#endif
