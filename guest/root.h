/* The guest's root on a share of the host's (ktb.root=TAG) or a disk
 * (ktb.root=disk:SERIAL): see root.c. */
#ifndef KTB_GUEST_ROOT_H
#define KTB_GUEST_ROOT_H

#include <stddef.h>

/* Where the image (the initramfs) stays visible once the root is switched. */
#define ROOT_IMAGE "/run/ktb/image"
/* The image's kselftests, bound at the same path in the new root. */
#define ROOT_KSELFTEST "/usr/lib/kselftest"
/* The image's dynamic loader, which runs the agent with the image's libraries. */
#define ROOT_LOADER "/lib64/ld-linux-x86-64.so.2"
/* What the kernel runs to load a module once the root is switched: a link
 * to the image's busybox (its own links point at /bin/busybox, which the
 * new root may not have), named so that busybox runs its modprobe. */
#define ROOT_MODPROBE "/run/ktb/modprobe"

/* path and every folder above it (0755), as far as they can be made;
 * symbolic links on the way resolve inside a new root only when relative,
 * as Debian's /lib -> usr/lib is. */
void root_mkdir_p(const char *path);

/* Mounts 9p share tag (or, for "disk:SERIAL", the ext4 disk with that
 * serial) read-only under an overlay on guest memory, moves
 * /proc, /sys, /dev, /run and /tmp into it, brings the image's parts in and
 * makes it the root (of init and of the kernel's helpers). 0, or -errno with
 * why (what failed and where) filled; the old root may then be half moved,
 * so the caller gives up. */
int root_switch(const char *tag, char *why, size_t len);

/* Rewrites argv (NULL-terminated, room for max entries) to start the image's
 * program agent (argv[0], its path in the image) through the image's loader
 * and libraries, so that it runs whatever libraries the new root has.
 * -ENOENT when the image has no loader or no such program. */
int root_agent_argv(const char *agent, char **argv, size_t max);

#endif
