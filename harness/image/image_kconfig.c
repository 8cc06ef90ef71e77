/* image_kernel_config: the config of the kernel an image boots, searched
 * in the image's cache folder first (see image_kconfig.h). */
#include "image_kconfig.h"
#include "image.h"
#include "kconfig.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* --- the image's config ----------------------------------------------------- */

/* The manifest's "config_from" (what the builder copied) and "kernel_file". */
static void manifest_fields(const char *dir, char **from, char **kfile)
{
	char *path = xasprintf("%s/manifest.json", dir);
	json_t *m = json_load_file(path, 0, NULL);
	const char *s;

	s = json_string_value(json_object_get(m, "config_from"));
	*from = s && *s ? xstrdup(s) : NULL;
	s = json_string_value(json_object_get(m, "kernel_file"));
	*kfile = s && *s ? xstrdup(s) : NULL;
	json_decref(m);
	free(path);
}

static void looked_add(char **looked, const char *what)
{
	char *t = xasprintf("%s%s%s", *looked, **looked ? "; " : "", what);

	free(*looked);
	*looked = t;
}

/* The places in order; -ENOENT from each that has nothing. */
static int image_search(const struct image *img, struct kconfig **out, char **looked, char *why,
			size_t whylen)
{
	char *cached = xasprintf("%s/config", img->dir), *from, *kfile, *beside = NULL;
	int ret;

	manifest_fields(img->dir, &from, &kfile);
	ret = kconfig_read_file(cached, from, out, why, whylen);
	looked_add(looked, cached);
	if (ret == -ENOENT && kfile) {
		ret = kconfig_find_beside(kfile, &beside, why, whylen);
		looked_add(looked, ret ? why : beside);
		if (!ret)
			ret = kconfig_read_file(beside, NULL, out, why, whylen);
	}
	if (ret == -ENOENT && img->vmlinux) {
		ret = kconfig_read_ikconfig(img->vmlinux, false, out, why, whylen);
		looked_add(looked, "IKCONFIG in the vmlinux");
	}
	if (ret == -ENOENT && img->bzimage) {
		ret = kconfig_read_ikconfig(img->bzimage, true, out, why, whylen);
		looked_add(looked, "IKCONFIG in the bzImage (gzip payloads)");
	}
	free(beside);
	free(kfile);
	free(from);
	free(cached);
	return ret;
}

int image_kernel_config(const struct image *img, struct kconfig **out, char *why, size_t whylen)
{
	char *looked = xstrdup(""), *mods;
	int ret;

	*out = NULL;
	ret = image_search(img, out, &looked, why, whylen);
	if (ret == -ENOENT)
		say_err(why, whylen, ret, "no kernel config for image %s (looked at %s)", img->dir,
			looked);
	if (!ret) {
		mods = xasprintf("%s/modules.txt", img->dir);
		kconfig_read_modules(*out, mods);
		free(mods);
	}
	free(looked);
	return ret;
}
