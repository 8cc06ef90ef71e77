/* Host folders in the guest: a machine's shares checked (the host folder
 * exists, the guest path is absolute and plain, no two alike) and rendered
 * as QEMU's own 9p server (-fsdev local + virtio-9p-pci: no daemon) and as
 * the kernel argument the guest's init mounts them from. Each share is
 * exported under the mount tag share_tag() names, by its index. */
#ifndef KTB_HW_SHARE_H
#define KTB_HW_SHARE_H

#include <stddef.h>

#include "argv.h"
#include "model.h"

/* How the shares reach the guest; the word ktb boot and the machine step's
 * data print. */
#define SHARE_TRANSPORT "9p"

/* The mount tag of share i: "ktb0", "ktb1", ... (buf of 16 bytes). */
const char *share_tag(unsigned i, char *buf, size_t len);

/* Resolve each host folder (realpath: it must exist and be a folder),
 * default the guest path to it, fill writable. 0 or -EINVAL with err on
 * "machine.shares[I].host" or ".guest". */
int shares_validate(struct machine *m, struct hw_error *err);

/* -fsdev and -device for each share (m validated). */
int shares_to_args(const struct machine *m, struct argv *a);

/* "ktb.shares=ktb0:/mnt/src:ro,ktb1:/out:rw" for init, or NULL without
 * shares. Caller frees. */
char *shares_cmdline(const struct machine *m);

#endif
