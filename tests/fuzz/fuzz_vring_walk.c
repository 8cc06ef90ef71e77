/* libFuzzer target: a guest's memory, descriptor table and ring chosen by
 * the fuzzer; the walker turns the chain at the chosen head into iovecs and
 * the block device carries the request out against a small disk. Nothing
 * the guest writes may make either read or write outside guest memory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blk.h"
#include "vring.h"

#define GPA 0x100000ull
#define MEM (64 * 1024)
#define DISK (1 << 20)

static struct blk blk;

static int setup(void)
{
	static char path[64];
	struct media_config mc;
	const char *why;
	int fd = memfd_create("ktb-fuzz-disk", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, DISK) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	media_config_defaults(&mc);
	mc.model = false;
	mc.platter_path = path;
	mc.capacity = DISK;
	blk.logical = blk.physical = 512;
	blk.wce = true;
	return media_open(&mc, &blk.media, &why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *ram;
	static struct vq_chain c;
	struct guest_mem mem = { .n = 1 };
	unsigned num;
	uint16_t head;

	if (!ram) {
		ram = malloc(MEM);
		if (!ram || setup() < 0)
			abort();
	}
	if (size < 2)
		return 0;
	num = 1u << (data[0] % 9); /* 1 .. 256 entries */
	head = data[1];
	memset(ram, 0, MEM);
	memcpy(ram, data + 2, size - 2 < MEM ? size - 2 : MEM);
	mem.r[0] = (struct guest_region){ .gpa = GPA, .size = MEM, .uva = GPA, .host = ram };
	if (vq_walk((const struct vring_desc *)ram, num, head, &mem, &c) == 0)
		blk_handle(&blk, &c);
	return 0;
}
