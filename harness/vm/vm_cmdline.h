/* The kernel command line the testbed boots a machine with: its own
 * arguments (console, log level, no reboot on panic, the AHCI delay off
 * when there is no SATA disk), the disks init waits
 * for (ktb.disks=), the multipath set-up init builds (ktb.mp=), the
 * drivers it may leave out (ktb.nomod=, unless the caller names its own), then the
 * scenario's arguments and the caller's. guest/init.c reads the ktb.*
 * words (docs/guest.md). */
#ifndef KTB_VM_CMDLINE_H
#define KTB_VM_CMDLINE_H

#include "machine.h"

/* Added when no disk is on sata (vm_cmdline.c says why): q35's empty AHCI
 * ports probed without libata's debounce delay. It touches no declared
 * disk, so the machine check never names it as a cause. */
#define VM_CMDLINE_NODBDELAY "libata.force=nodbdelay"
/* Always added (vm_cmdline.c says why): the key derivation's self-test,
 * which touches no part of the machine, is never named as a cause either. */
#define VM_CMDLINE_NOKDFTEST "initcall_blacklist=crypto_kdf108_init"

/* "ktb.mp=ID:MODE:PATHS:NOPATH,..." for the guest's dm-multipath set-up, or
 * NULL when no disk needs one. Static storage, valid until the next call. */
const char *vm_multipath_arg(const struct machine *m);

/* "ktb.nomod=A,B,..." naming the default image's drivers for parts m does
 * not have (virtio_blk without a virtio or hybrid disk, bochs without that
 * display, ...), which init then leaves out (docs/guest.md); NULL when m has
 * every part. Caller frees. */
char *vm_nomod_arg(const struct machine *m);

/* The whole command line: the testbed's words, then scenario_args, then
 * extra (either may be NULL). Caller frees. */
char *vm_kernel_cmdline(const struct machine *m, const char *scenario_args, const char *extra);

#endif
