/* The descriptor walker and the split ring, fed the chains a hostile guest
 * could build: addresses outside its memory, loops, over-long chains,
 * nested indirect tables, writable buffers before readable ones. Also one
 * virtio-blk request end to end through blk_handle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../hw/hybrid/blk.h"
#include "../../hw/hybrid/vring.h"

#define GPA 0x10000ull
#define MEM (256 * 1024)

struct fx {
	uint8_t *ram;
	struct guest_mem mem;
	struct vring_desc *desc; /* at GPA */
	struct vq_chain c;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->ram = calloc(1, MEM);
	f->mem.r[0] = (struct guest_region){
		.gpa = GPA, .size = MEM, .uva = 0x7f0000000000ull, .host = f->ram
	};
	f->mem.n = 1;
	f->desc = (struct vring_desc *)f->ram;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	free(f->ram);
	free(f);
	return 0;
}

static void set(struct vring_desc *d, uint64_t addr, uint32_t len, uint16_t flags, uint16_t next)
{
	d->addr = addr;
	d->len = len;
	d->flags = flags;
	d->next = next;
}

static void test_good_chain(void **state)
{
	struct fx *f = *state;

	set(&f->desc[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 1);
	set(&f->desc[1], GPA + 0x2000, 4096, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, 2);
	set(&f->desc[2], GPA + 0x3000, 1, VRING_DESC_F_WRITE, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), 0);
	assert_int_equal(f->c.nout, 1);
	assert_int_equal(f->c.nin, 2);
	assert_int_equal(f->c.out_len, 16);
	assert_int_equal(f->c.in_len, 4097);
	assert_ptr_equal(f->c.in[0].iov_base, f->ram + 0x2000);
}

static void test_outside_memory(void **state)
{
	struct fx *f = *state;

	set(&f->desc[0], GPA + MEM - 8, 16, 0, 0); /* runs off the end */
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EFAULT);
	set(&f->desc[0], 0, 16, 0, 0); /* below the region */
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EFAULT);
	set(&f->desc[0], UINT64_MAX - 4, 16, 0, 0); /* wraps */
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EFAULT);
}

static void test_loop(void **state)
{
	struct fx *f = *state;

	set(&f->desc[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 1);
	set(&f->desc[1], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
	set(&f->desc[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 0); /* to itself */
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
}

static void test_bad_index(void **state)
{
	struct fx *f = *state;

	set(&f->desc[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 9);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
	assert_int_equal(vq_walk(f->desc, 8, 8, &f->mem, &f->c), -EINVAL);
}

static void test_write_before_read(void **state)
{
	struct fx *f = *state;

	set(&f->desc[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, 1);
	set(&f->desc[1], GPA + 0x2000, 16, 0, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
}

static void test_indirect(void **state)
{
	struct fx *f = *state;
	struct vring_desc *t = (struct vring_desc *)(f->ram + 0x8000);

	set(&t[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 1);
	set(&t[1], GPA + 0x2000, 512, VRING_DESC_F_WRITE, 0);
	set(&f->desc[0], GPA + 0x8000, 2 * sizeof(*t), VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), 0);
	assert_int_equal(f->c.nout + f->c.nin, 2);
	/* an indirect table inside an indirect table */
	set(&t[1], GPA + 0x8000, 32, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
	/* a table whose length is not whole descriptors, or empty */
	set(&f->desc[0], GPA + 0x8000, 17, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
	set(&f->desc[0], GPA + 0x8000, 0, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
	/* a table outside guest memory */
	set(&f->desc[0], GPA + MEM - 16, 32, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EFAULT);
}

/* Chains past VQ_MAX_CHAIN descriptors or VQ_MAX_IOV buffers are refused. */
static void test_too_long(void **state)
{
	struct fx *f = *state;
	struct vring_desc *t = (struct vring_desc *)(f->ram + 0x10000);
	unsigned n = VQ_MAX_IOV + 1;

	for (unsigned i = 0; i < n; i++)
		set(&t[i], GPA + 0x1000, 1, i + 1 < n ? VRING_DESC_F_NEXT : 0, (uint16_t)(i + 1));
	set(&f->desc[0], GPA + 0x10000, n * sizeof(*t), VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -E2BIG);
	set(&f->desc[0], GPA + 0x10000, (VQ_MAX_CHAIN + 1) * sizeof(*t), VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), -EINVAL);
}

/* The ring: an avail index that jumps by more than the ring size is a
 * broken ring; a popped chain is returned through the used ring. */
static void test_ring(void **state)
{
	struct fx *f = *state;
	struct vring_state vr = { .num = 8,
				  .desc_uva = 0x7f0000000000ull,
				  .avail_uva = 0x7f0000000000ull + 0x1000,
				  .used_uva = 0x7f0000000000ull + 0x2000,
				  .kick_fd = -1,
				  .call_fd = -1 };

	assert_int_equal(vring_map(&vr, &f->mem), 0);
	assert_int_equal(vring_pop(&vr, &f->mem, &f->c), 0);
	set(&f->desc[3], GPA + 0x4000, 16, 0, 0);
	vr.avail->ring[0] = 3;
	vr.avail->idx = 1;
	assert_int_equal(vring_pop(&vr, &f->mem, &f->c), 1);
	assert_int_equal(f->c.head, 3);
	vring_push(&vr, 3, 7);
	assert_int_equal(vr.used->idx, 1);
	assert_int_equal(vr.used->ring[0].id, 3);
	assert_int_equal(vr.used->ring[0].len, 7);
	vr.avail->idx = 100;
	assert_int_equal(vring_pop(&vr, &f->mem, &f->c), -EIO);
	vr.num = 6;
	assert_int_equal(vring_map(&vr, &f->mem), -EINVAL);
	vr.num = 8;
	vr.used_uva += 2; /* the used ring is 4-byte aligned */
	assert_int_equal(vring_map(&vr, &f->mem), -EINVAL);
	vr.used_uva = 0x10;
	assert_int_equal(vring_map(&vr, &f->mem), -EFAULT);
}

/* A read request through blk_handle: data and status land in guest memory;
 * a request past the end of the disk gets IOERR. */
static void test_blk_read(void **state)
{
	struct fx *f = *state;
	char dir[] = "/tmp/ktb-hybrid-blk-XXXXXX", path[64];
	struct media_config mc;
	struct blk b = { .logical = 512, .physical = 512, .wce = true };
	struct virtio_blk_outhdr *h = (struct virtio_blk_outhdr *)(f->ram + 0x1000);
	const char *why = NULL;
	FILE *p;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/img", dir);
	p = fopen(path, "w");
	assert_non_null(p);
	assert_int_equal(ftruncate(fileno(p), 1 << 20), 0);
	fseek(p, 512, SEEK_SET);
	fputs("hello", p);
	fclose(p);
	media_config_defaults(&mc);
	mc.model = false;
	mc.platter_path = path;
	mc.capacity = 1 << 20;
	assert_int_equal(media_open(&mc, &b.media, &why), 0);
	h->type = VIRTIO_BLK_T_IN;
	h->sector = 1;
	set(&f->desc[0], GPA + 0x1000, 16, VRING_DESC_F_NEXT, 1);
	set(&f->desc[1], GPA + 0x2000, 512, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, 2);
	set(&f->desc[2], GPA + 0x3000, 1, VRING_DESC_F_WRITE, 0);
	f->ram[0x3000] = 0xff;
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), 0);
	assert_int_equal(blk_handle(&b, &f->c), 513);
	assert_memory_equal(f->ram + 0x2000, "hello", 5);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_OK);
	h->sector = 2048; /* the first sector past the end */
	blk_handle(&b, &f->c);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_IOERR);
	h->type = 99;
	blk_handle(&b, &f->c);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_UNSUPP);
	/* a debug range of failing writes */
	b.fail_writes = (struct media_range){ 0, 4096 };
	h->type = VIRTIO_BLK_T_OUT;
	h->sector = 0;
	set(&f->desc[1], GPA + 0x2000, 512, VRING_DESC_F_NEXT, 2);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), 0);
	blk_handle(&b, &f->c);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_IOERR);
	/* a debug range of failing reads: a read there fails, one beside it
	 * and a write there do not */
	b.fail_writes = (struct media_range){ 0, 0 };
	b.fail_reads = (struct media_range){ 4096, 4096 };
	blk_handle(&b, &f->c);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_OK);
	h->type = VIRTIO_BLK_T_IN;
	set(&f->desc[1], GPA + 0x2000, 512, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, 2);
	assert_int_equal(vq_walk(f->desc, 8, 0, &f->mem, &f->c), 0);
	blk_handle(&b, &f->c);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_OK);
	h->sector = 8;
	blk_handle(&b, &f->c);
	assert_int_equal(f->ram[0x3000], VIRTIO_BLK_S_IOERR);
	media_close(b.media);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_chain, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_outside_memory, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_loop, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_index, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_write_before_read, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_indirect, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_too_long, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_ring, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_blk_read, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
