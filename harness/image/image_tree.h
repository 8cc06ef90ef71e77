/* A kernel build tree given as --kernel DIR (x86 only): its kernel is
 * DIR/arch/x86/boot/bzImage, its config DIR/.config (kconfig_find_beside
 * finds it from the bzImage), its modules the .ko files DIR/modules.order
 * lists, with modules.builtin telling what is built in. The image builder
 * wants an installed modules tree (lib/modules/RELEASE/kernel/...), which a
 * build tree is not: image_tree_stage lays one out in a folder of the
 * caller's, and nothing is ever written into DIR. */
#ifndef KTB_IMAGE_TREE_H
#define KTB_IMAGE_TREE_H

#include <stdbool.h>
#include <stddef.h>

#define IMAGE_TREE_KERNEL "arch/x86/boot/bzImage"
/* the staged release when neither the bzImage nor the tree names one */
#define IMAGE_TREE_RELEASE "0.0.0-tree"

/* Whether --kernel PATH names a folder, which is then taken as a tree. */
bool image_tree_is(const char *path);

/* DIR's kernel, DIR/IMAGE_TREE_KERNEL (malloc'd), in *KERNEL. -EINVAL with
 * ERR naming DIR and what to do: DIR is no kernel tree at all (no Makefile,
 * no .config, no bzImage), or its bzImage is not built yet. */
int image_tree_kernel(const char *dir, char **kernel, char *err, size_t errlen);

/* The files a tree's modules are made of, relative to the tree. */
struct image_tree_modules {
	char **files;	 /* the .ko files first, in modules.order's order ... */
	size_t ko_count; /* ... this many, then the modules.* files that exist */
	size_t count;	 /* 0: the tree has no modules.order nor modules.builtin */
	char *release;	 /* the bzImage's, else include/config/kernel.release,
			  * else IMAGE_TREE_RELEASE */
};

/* Read DIR/modules.order (entries "path/x.ko", or "path/x.o" as kernels
 * from 6.2 write them). 0 (count 0 when the tree has neither modules.order
 * nor modules.builtin: it knows nothing of modules), or -EINVAL with ERR
 * when an entry's .ko is not built ("make modules"). */
int image_tree_modules(const char *dir, struct image_tree_modules *m, char *err, size_t errlen);
void image_tree_modules_free(struct image_tree_modules *m);
/* Whether FILE (one of image_tree_modules's) is one of the lists beside the
 * modules (modules.order, modules.builtin, modules.builtin.modinfo). */
bool image_tree_is_list(const char *file);

/* Lay out STAGE/lib/modules/RELEASE as `make modules_install` would: each
 * .ko at kernel/<its path in DIR> (hard-linked where STAGE is on DIR's file
 * system, else copied), modules.order with "kernel/" before each entry,
 * modules.builtin and modules.builtin.modinfo as they are. depmod is the
 * caller's to run. 0 with *RELDIR (malloc'd, the RELEASE folder), or -EIO
 * with ERR naming the file. */
int image_tree_stage(const char *dir, const struct image_tree_modules *m, const char *stage,
		     char **reldir, char *err, size_t errlen);

#endif
