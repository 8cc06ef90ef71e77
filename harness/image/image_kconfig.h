/* The config of the kernel an image boots, with the image's module list:
 * what the runner checks a scenario's kernel requirements against. Apart
 * from kconfig.h so that the image builder (image.c) can use the parser
 * without the two including each other. */
#ifndef KTB_IMAGE_KCONFIG_H
#define KTB_IMAGE_KCONFIG_H

#include <stddef.h>

struct image;
struct kconfig;

/* The config of the kernel IMG boots, from the first that exists: the
 * image's cached `config`; for an image built before the builder kept one,
 * what kconfig_find_beside finds beside the manifest's kernel_file; the
 * kernel's embedded IKCONFIG (in IMG's vmlinux, or in its bzImage when the
 * payload is gzip). The module list is the image's modules.txt (none for
 * an image built before it). 0 with *OUT; -ENOENT with WHY naming the
 * places looked at; -EINVAL when a config found is not one (WHY says where). */
int image_kernel_config(const struct image *img, struct kconfig **out, char *why, size_t whylen);

#endif
