/* Host folders in the guest: a machine's shares checked (the host folder
 * exists, the guest path is absolute and plain, no two alike), each given
 * its transport, and rendered as QEMU arguments and as the kernel argument
 * the guest's init mounts them from. Each share is exported under the mount
 * tag share_tag() names, by its index.
 *
 * Transports: 9p is QEMU's own server (-fsdev local + virtio-9p-pci: no
 * daemon, readonly=on refuses writes). virtiofs is a virtiofsd per share
 * (the vm layer spawns it, argv from share_virtiofsd_argv) that QEMU reaches
 * over vhost-user; guest RAM is then shared memory (machine_shared_ram).
 * virtiofsd has no read-only mode, so a read-only share always stays on 9p:
 * "ro refuses writes" is the host's doing, not the guest's mount option. */
#ifndef KTB_HW_SHARE_H
#define KTB_HW_SHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "argv.h"
#include "model.h"

/* The virtiofsd binary: $KTB_VIRTIOFSD (set but empty: none, so shares
 * stay on 9p), else the first of /usr/libexec/virtiofsd and
 * /usr/lib/qemu/virtiofsd that is executable; NULL: none. */
const char *share_virtiofsd(void);

/* Can virtiofsd bin serve on this host? The socket existing proves nothing
 * (virtiofsd sets up its sandbox once a client connects, and in a chroot
 * that fails), so the harness asks a real one: 0 when it can, else -errno
 * with why its own error. hw/ runs no program itself; without a check (NULL,
 * the default) a virtiofsd that is installed is taken to work. */
typedef int (*share_virtiofsd_check_fn)(const char *bin, char *why, size_t len);
void share_set_virtiofsd_check(share_virtiofsd_check_fn check);

/* The first share of m refused on this host (transport virtiofs where
 * virtiofsd cannot serve) with why in its note; NULL when none is. */
const struct share *shares_refused(const struct machine *m, unsigned *index);

/* "virtiofs" or "9p" for a validated share: the word ktb boot's banner and
 * the machine step's data print. */
const char *share_transport(const struct share *s);

/* The machine's transports for the machine step: "9p", "virtiofs" or
 * "9p+virtiofs" (NULL without shares). */
const char *shares_transport(const struct machine *m);

/* True when some share goes over virtiofs. */
bool machine_has_virtiofs(const struct machine *m);

/* The vhost-user socket of share i's virtiofsd, in l->disk_dir. Caller
 * frees; NULL on no memory. */
char *share_socket_path(const struct hw_launch *l, unsigned i);

/* The virtiofsd command line serving source on socket sock, as ktb runs
 * it (and as the harness's check runs it): 0, or -ENOENT without bin. */
int share_virtiofsd_cmd(const char *bin, const char *sock, const char *source, struct argv *out);

/* virtiofsd's argv for share i (a virtiofs one): 0 or -errno. */
int share_virtiofsd_argv(const struct machine *m, const struct hw_launch *l, unsigned i,
			 struct argv *out);

/* The mount tag of share i: "ktb0", "ktb1", ... (buf of 16 bytes). */
const char *share_tag(unsigned i, char *buf, size_t len);

/* Resolve each host folder (realpath: it must exist and be a folder),
 * default the guest path to it, fill writable and virtiofs: "auto" is
 * virtiofs for a writable share when share_virtiofsd() finds one, ktb runs
 * as root (the C virtiofsd needs it) and the check says it can serve here,
 * else 9p (a failed check's error in note); "virtiofs" on a read-only
 * share, or without a virtiofsd, is an error; "virtiofs" where the check
 * fails stays virtiofs, marked refused with the error in note, for the
 * caller to refuse before it boots. 0 or -EINVAL with err on
 * "machine.shares[I].host", ".guest" or ".transport". */
int shares_validate(struct machine *m, struct hw_error *err);

/* -fsdev and -device for each 9p share, -chardev and vhost-user-fs-pci for
 * each virtiofs one (m validated). */
int shares_to_args(const struct machine *m, const struct hw_launch *l, struct argv *a);

/* "ktb.shares=ktb0:/mnt/src:ro,ktb1:/out:rw:virtiofs" for init, or NULL
 * without shares. Caller frees. */
char *shares_cmdline(const struct machine *m);

/* The 9p tag of the guest's root (machine.root), also the serial of its
 * disk (machine.root_disk; guest/protocol.h's KTB_ROOT_SERIAL), and the
 * kernel arguments that have init switch to either. */
#define SHARE_ROOT_TAG "ktbroot"
/* (the tag above) */
#define SHARE_ROOT_ARG "ktb.root=ktbroot"
#define SHARE_ROOT_DISK_ARG "ktb.root=disk:ktbroot"

#endif
