/* A kernel's configuration (the .config format: CONFIG_X=y|m|"str"|123|0x10,
 * "# CONFIG_X is not set") and the modules an image holds, so the runner can
 * tell before boot whether a kernel has what a scenario needs. Where the
 * config comes from: the image builder keeps it in the image's cache folder
 * as `config` (from the Debian package, the user's kernel tree, a
 * config-RELEASE beside the user's kernel, or the kernel's embedded
 * IKCONFIG), and the modules it installed as `modules.txt`;
 * image_kconfig.h finds an image's config. */
#ifndef KTB_KCONFIG_H
#define KTB_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct kconfig;

/* Refused beyond these: a config is text of some 300 KB, lines of < 200. */
#define KCONFIG_MAX_TEXT (16u << 20)
#define KCONFIG_MAX_LINE 4096u

/* Parse TEXT (LEN bytes, no NUL needed; CRLF tolerated). 0 with *OUT, or
 * -EINVAL with WHY "line N: ..." (binary data, a line that assigns nothing,
 * a value that is neither y, m, n, a number nor a quoted string, a line over
 * KCONFIG_MAX_LINE, a text over KCONFIG_MAX_TEXT). A later assignment of
 * the same option wins, as in the kernel's own tools. */
int kconfig_parse(const char *text, size_t len, struct kconfig **out, char *why, size_t whylen);
/* "y", "m", a string's or number's value as written (a string without its
 * quotes and escapes), or NULL when the option is not set or absent. OPTION
 * with or without its CONFIG_ prefix. */
const char *kconfig_value(const struct kconfig *k, const char *option);
/* Whether the image holds MODULE (as modprobe names it; '-' and '_' are the
 * same). False when no module list is known. */
bool kconfig_has_module(const struct kconfig *k, const char *module);
/* Whether a module list was read at all (an image built before the builder
 * wrote modules.txt has none: then no module can be said to be missing). */
bool kconfig_knows_modules(const struct kconfig *k);
/* Where the config was read from, for messages ("the given text" when it
 * came from kconfig_parse alone). */
const char *kconfig_source(const struct kconfig *k);
void kconfig_free(struct kconfig *k);

/* The config beside a user's own kernel file, from the first that exists:
 * the .config at the top of the build tree KERNEL sits in (a vmlinux at the
 * top, arch/ARCH/boot/bzImage below it), then config-RELEASE (RELEASE read
 * from the file) and config in KERNEL's folder. 0 with *PATH (malloc'd), or
 * -ENOENT with WHY naming each place looked at. The image builder asks at
 * build time and keeps what it finds. */
int kconfig_find_beside(const char *kernel, char **path, char *why, size_t whylen);

/* The release a kernel file names ("6.1.0-57-amd64": a bzImage's header, a
 * vmlinux's banner), malloc'd, or NULL. */
char *kconfig_kernel_release(const char *kernel);

/* Parse the config at PATH; its source reads "PATH (from FROM)" with FROM.
 * 0, -ENOENT when there is no PATH, -EINVAL (WHY: "PATH: line N: ...").
 * Files over KCONFIG_MAX_TEXT are refused unread. */
int kconfig_read_file(const char *path, const char *from, struct kconfig **out, char *why,
		      size_t whylen);
/* The config a kernel file carries (CONFIG_IKCONFIG): the gzip stream after
 * IKCFG_ST in a vmlinux, or in a BZIMAGE's payload when that is gzip. 0,
 * -ENOENT when there is none, -EINVAL when the stream is broken. */
int kconfig_read_ikconfig(const char *path, bool bzimage, struct kconfig **out, char *why,
			  size_t whylen);
/* Take the module list from PATH (modules.txt, one name a line); none when
 * PATH does not exist. */
void kconfig_read_modules(struct kconfig *k, const char *path);

#endif
