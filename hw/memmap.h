/* Where a q35 machine's RAM lies and what its firmware keeps of it: the
 * pages the guest kernel can count as present (/proc/zoneinfo), per NUMA
 * node, are the declared memory less these. The machine step's only
 * memory tolerance comes from here (docs/scenarios.md, "The machine step"). */
#ifndef KTB_HW_MEMMAP_H
#define KTB_HW_MEMMAP_H

#include <stdint.h>

#include "model.h"

/* Below 1M: page 0 (the kernel keeps it: "e820: update [mem
 * 0x00000000-0x00000fff] usable ==> reserved"), the page 0x9f000 that the
 * EBDA at 0x9fc00 shares, and 0xa0000-0xfffff (VGA window and BIOS). */
#define MEMMAP_LEGACY_KB 392
/* SeaBIOS's permanent high zone at the top of RAM below 4G (reserved in
 * e820, the unused rest given back): QEMU's ACPI tables, padded to 128K,
 * with 64K over for its other tables. */
#define MEMMAP_FIRMWARE_KB 192
/* ... plus, for every disk path SeaBIOS drives (an NVMe controller, a
 * virtio-blk or vhost-user-blk device, a SCSI LUN, an AHCI port), its
 * rings and queues: measured 17-18K each, allowed twice that. */
#define MEMMAP_FIRMWARE_PER_PATH_KB 32

/* How much of the machine's RAM q35 maps below the 4G hole: all of it up
 * to 2.75G, else 2G (the rest from 4G up). */
uint64_t memmap_low_bytes(uint64_t ram_bytes);

/* At most how many KiB of node's memory (node < 0: the whole machine's)
 * the firmware keeps from the guest: the legacy region for the node that
 * holds address 0, SeaBIOS's high zone for the node that holds the top of
 * RAM below 4G. QEMU gives nodes consecutive parts of RAM in node order. */
uint64_t memmap_reserve_kb(const struct machine *m, int node);

#endif
