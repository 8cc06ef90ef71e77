/* The RAM layout of a q35 machine and the firmware's share of it. */
#include "memmap.h"

#define MEMMAP_LOWMEM_MAX 0xb0000000ULL /* q35: at or above this, only 2G below 4G */
#define MEMMAP_LOWMEM_SPLIT 0x80000000ULL

uint64_t memmap_low_bytes(uint64_t ram_bytes)
{
	return ram_bytes >= MEMMAP_LOWMEM_MAX ? MEMMAP_LOWMEM_SPLIT : ram_bytes;
}

/* The firmware's high zone grows with the disks' paths SeaBIOS drives. */
static uint64_t memmap_firmware_kb(const struct machine *m)
{
	uint64_t paths = 0;

	for (unsigned i = 0; i < m->disks_count; i++)
		paths += m->disks[i].paths > 1 ? m->disks[i].paths : 1;
	return MEMMAP_FIRMWARE_KB + paths * MEMMAP_FIRMWARE_PER_PATH_KB;
}

uint64_t memmap_reserve_kb(const struct machine *m, int node)
{
	uint64_t low_top = memmap_low_bytes(m->memory_bytes) - 1, start = 0, end;

	if (node < 0 || !m->numa)
		return MEMMAP_LEGACY_KB + memmap_firmware_kb(m);
	for (int i = 0; i < node && (unsigned)i < m->numa->nodes_count; i++)
		start += m->numa->nodes[i].memory_bytes;
	if ((unsigned)node >= m->numa->nodes_count)
		return 0;
	/* node holds RAM offsets start..end-1; below low they are addresses */
	end = start + m->numa->nodes[node].memory_bytes;
	return (start == 0 ? MEMMAP_LEGACY_KB : 0) +
	       (start <= low_top && low_top < end ? memmap_firmware_kb(m) : 0);
}
