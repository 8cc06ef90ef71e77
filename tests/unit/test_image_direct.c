/* The direct bzImage (image_direct.h): from a bzImage's setup and a
 * vmlinux made here byte by byte, the file holds the setup with its
 * syssize, the loader, a table the loader reads (the PVH entry, each
 * segment's offset, address and sizes, the top) and the segments' bytes
 * where the table says; kernels it cannot pack are refused, saying why; a
 * file of another loader is not taken; and the fit of QEMU's initrd is
 * QEMU's own arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "image_direct.h"
#include "util.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("direct")

#define SETUP_SECTS 3
#define SETUP_LEN ((SETUP_SECTS + 1) * 512)

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* a bzImage: SETUP_SECTS setup sectors after the boot sector, protocol
 * 2.15, loaded high at 1 MiB, and a payload of junk */
static char *bzimage(unsigned version, uint32_t code32)
{
	size_t len = SETUP_LEN + 4096;
	unsigned char *b = xcalloc(1, len);
	char *p = path_of("bzImage");

	b[0x1f1] = SETUP_SECTS;
	memcpy(b + 0x202, "HdrS", 4);
	put16(b + 0x206, version);
	b[0x211] = 0x01;
	put32(b + 0x214, code32);
	for (size_t i = 0; i < 0x1f1; i++)
		b[i] = (unsigned char)(i * 7);
	memset(b + SETUP_LEN, 0xee, 4096);
	assert_int_equal(write_file(p, (char *)b, len), 0);
	free(b);
	return p;
}

struct fseg {
	uint64_t paddr, filesz, memsz;
	unsigned char fill;
};

/* a vmlinux: ELF64 x86-64, the PT_LOADs given (their bytes 'fill'), and
 * when entry is not 0 a PT_NOTE with the Xen PHYS32_ENTRY note (descsz 8,
 * as x86-64 kernels write it) */
static char *vmlinux(const struct fseg *segs, unsigned n, uint64_t entry)
{
	unsigned phnum = n + (entry ? 1 : 0);
	size_t note_off = 0x1000, data = 0x2000, len = data;
	unsigned char *v;
	char *p = path_of("vmlinux");

	for (unsigned i = 0; i < n; i++)
		len += (segs[i].filesz + 4095) & ~(uint64_t)4095;
	v = xcalloc(1, len);
	memcpy(v, "\177ELF", 4);
	v[4] = 2;
	v[5] = 1;
	put16(v + 18, 62);
	put64(v + 0x20, 64);
	put16(v + 0x36, 56);
	put16(v + 0x38, phnum);
	for (unsigned i = 0; i < n; i++) {
		unsigned char *ph = v + 64 + 56 * i;

		put32(ph, 1);
		put64(ph + 8, data);
		put64(ph + 16, 0xffffffff80000000ULL + segs[i].paddr);
		put64(ph + 24, segs[i].paddr);
		put64(ph + 32, segs[i].filesz);
		put64(ph + 40, segs[i].memsz);
		memset(v + data, segs[i].fill, segs[i].filesz);
		data += (segs[i].filesz + 4095) & ~(uint64_t)4095;
	}
	if (entry) {
		unsigned char *ph = v + 64 + 56 * n, *note = v + note_off;

		put32(ph, 4);
		put64(ph + 8, note_off);
		put64(ph + 32, 12 + 4 + 8);
		put32(note, 4);
		put32(note + 4, 8);
		put32(note + 8, 18);
		memcpy(note + 12, "Xen", 4);
		put64(note + 16, entry);
	}
	assert_int_equal(write_file(p, (char *)v, len), 0);
	free(v);
	return p;
}

static void test_make(void **state)
{
	const struct fseg segs[] = {
		{ 0x1000000, 0x3000, 0x3000, 0xa1 },
		{ 0x2000000, 0x1ffe, 0x5000, 0xb2 }, /* copied as 0x2000, then zeroed */
	};
	char *bz = bzimage(0x020f, 0x100000), *v = vmlinux(segs, 2, 0x1000850);
	char *out = path_of("bzImage.direct"), why[256] = "";
	size_t len = 0, payload;
	unsigned char *f, *orig, *t;
	uint64_t top = 0, top2 = 0;

	(void)state;
	assert_int_equal(image_direct_make(bz, v, out, &top, why, sizeof(why)), 0);
	f = (unsigned char *)read_file(out, &len);
	orig = (unsigned char *)read_file(bz, NULL);
	assert_non_null(f);
	/* the setup as it was but for syssize: the payload's 16-byte units */
	assert_memory_equal(f, orig, 0x1f4);
	payload = len - SETUP_LEN;
	assert_int_equal(payload % 16, 0);
	assert_int_equal(get32(f + 0x1f4), payload / 16);
	assert_memory_equal(f + 0x1f8, orig + 0x1f8, SETUP_LEN - 0x1f8);
	/* the loader at 1 MiB, the table after it */
	assert_memory_equal(f + SETUP_LEN, image_direct_loader, image_direct_loader_size);
	t = f + SETUP_LEN + IMAGE_DIRECT_TABLE;
	assert_int_equal(get32(t), IMAGE_DIRECT_MAGIC);
	assert_int_equal(get32(t + 4), 0x1000850);
	assert_int_equal(get32(t + 8), 2);
	/* the top: the second segment's end in memory, above the payload's */
	assert_int_equal(get32(t + 12), 0x2005000);
	assert_int_equal(top, 0x2005000);
	/* each segment: page-aligned offset, its address, 4-byte copy, memsz */
	for (int i = 0; i < 2; i++) {
		const unsigned char *s = t + 16 + 16 * i;
		uint32_t off = get32(s);

		assert_int_equal(off % 4096, 0);
		assert_true(off >= IMAGE_DIRECT_TABLE + 0x1000);
		assert_int_equal(get32(s + 4), segs[i].paddr);
		assert_int_equal(get32(s + 8), (segs[i].filesz + 3) & ~3u);
		assert_int_equal(get32(s + 12), segs[i].memsz);
		assert_true(off + get32(s + 8) <= payload);
		for (uint64_t k = 0; k < segs[i].filesz; k++)
			assert_int_equal(f[SETUP_LEN + off + k], segs[i].fill);
		/* the rounding's bytes are zeros */
		for (uint64_t k = segs[i].filesz; k < get32(s + 8); k++)
			assert_int_equal(f[SETUP_LEN + off + k], 0);
	}
	/* read back: made by this loader, the same top */
	assert_int_equal(image_direct_top(out, &top2), 0);
	assert_int_equal(top2, top);
	/* another loader's file (an older ktb's) is not taken */
	f[SETUP_LEN] ^= 0xff;
	assert_int_equal(write_file(out, (char *)f, len), 0);
	assert_int_equal(image_direct_top(out, &top2), -EINVAL);
	/* nor a bzImage */
	assert_int_equal(image_direct_top(bz, &top2), -EINVAL);
	free(f);
	free(orig);
	free(bz);
	free(v);
	free(out);
}

static void refused(const struct fseg *segs, unsigned n, uint64_t entry, unsigned version,
		    uint32_t code32, const char *want)
{
	char *bz = bzimage(version, code32), *v = vmlinux(segs, n, entry);
	char *out = path_of("refused.direct"), why[256] = "";
	uint64_t top = 0;

	assert_true(image_direct_make(bz, v, out, &top, why, sizeof(why)) < 0);
	if (!strstr(why, want))
		fail_msg("expected \"%s\" in \"%s\"", want, why);
	/* nothing left behind */
	assert_int_equal(access(out, F_OK), -1);
	free(bz);
	free(v);
	free(out);
}

static void test_refused(void **state)
{
	const struct fseg ok[] = { { 0x1000000, 0x1000, 0x1000, 1 } };
	const struct fseg low[] = { { 0x101000, 0x1000, 0x1000, 1 } };
	const struct fseg order[] = { { 0x2000000, 0x1000, 0x1000, 1 },
				      { 0x1000000, 0x1000, 0x1000, 2 } };
	const struct fseg odd[] = { { 0x1000000, 0x0ffe, 0x0ffe, 1 } };
	const struct fseg high[] = { { 0xfffff000, 0x1000, 0x2000, 1 } };
	struct fseg many[IMAGE_DIRECT_MAX_SEGS + 1];

	(void)state;
	refused(ok, 1, 0, 0x020f, 0x100000,
		"no PVH entry (no Xen PHYS32_ENTRY note: CONFIG_PVH is off)");
	refused(ok, 1, 0x1000000, 0x0205, 0x100000, "not a bzImage of boot protocol 2.06 or later");
	refused(ok, 1, 0x1000000, 0x020f, 0x200000, "does not start at 1 MiB");
	refused(low, 1, 0x101000, 0x020f, 0x100000, "would move down");
	refused(order, 2, 0x1000000, 0x020f, 0x100000,
		"segment 1 lies below or over the one before it");
	refused(odd, 1, 0x1000000, 0x020f, 0x100000, "does not end on 4 bytes");
	refused(high, 1, 0x1000000, 0x020f, 0x100000, "is not a 32-bit physical range");
	for (unsigned i = 0; i <= IMAGE_DIRECT_MAX_SEGS; i++)
		many[i] = (struct fseg){ 0x1000000 + 0x1000 * (uint64_t)i, 0x1000, 0x1000, 1 };
	refused(many, IMAGE_DIRECT_MAX_SEGS + 1, 0x1000000, 0x020f, 0x100000,
		"more than 16 PT_LOAD segments");
}

/* QEMU's x86_load_linux: initrd_max = low - 0x28000 - 1, the initrd at
 * (initrd_max - size) rounded down to a page */
static void test_fits(void **state)
{
	const uint64_t mib = 1024 * 1024, initrd = 28 * mib;

	(void)state;
	/* 512 MiB: the initrd near 484 MiB, far above a 74 MiB top */
	assert_true(image_direct_fits(74 * mib, 512 * mib, initrd));
	/* 96 MiB: it starts near 67.8 MiB, under the top */
	assert_false(image_direct_fits(74 * mib, 96 * mib, initrd));
	/* the edge, to the page: an initrd ending where ACPI's room starts */
	assert_true(image_direct_fits(0x2000000, 0x2000000 + 0x28000 + 0x1000 * 4, 0x1000 * 3));
	assert_false(
	    image_direct_fits(0x2000000 + 1, 0x2000000 + 0x28000 + 0x1000 * 4, 0x1000 * 3));
	/* no room at all */
	assert_false(image_direct_fits(0, 0x28000, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_fits),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
