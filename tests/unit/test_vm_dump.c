/* vm_dump_unflatten: makedumpfile's flattened form into the file it stands
 * for (records out of order, overlapping the header), the kdump header's
 * empty utsname fields filled and full ones kept, and every malformed input
 * refused with no output file left; vm_dump_bound's arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "vm_dump.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("vm-dump")

struct flat {
	FILE *f;
	char *path;
};

static void flat_open(struct flat *fl, const char *name)
{
	char hdr[4096] = "makedumpfile";

	fl->path = xasprintf("%s/%s", tmpdir, name);
	fl->f = fopen(fl->path, "wb");
	assert_non_null(fl->f);
	/* type 1, version 1, big-endian, as makedumpfile writes them */
	hdr[23] = 1;
	hdr[31] = 1;
	assert_int_equal(fwrite(hdr, 1, sizeof(hdr), fl->f), sizeof(hdr));
}

static void be64_put(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void flat_record(struct flat *fl, uint64_t off, const void *data, uint64_t size)
{
	unsigned char rec[16];

	be64_put(rec, off);
	be64_put(rec + 8, size);
	assert_int_equal(fwrite(rec, 1, sizeof(rec), fl->f), sizeof(rec));
	if (data && size)
		assert_int_equal(fwrite(data, 1, size, fl->f), size);
}

static void flat_close(struct flat *fl, bool end)
{
	if (end)
		flat_record(fl, UINT64_MAX, NULL, UINT64_MAX);
	fclose(fl->f);
}

static char *slurp(const char *path, size_t *len)
{
	char *s = read_file(path, len);

	assert_non_null(s);
	return s;
}

/* A kdump header with only machine set, as QEMU writes it, then a page at
 * 8192 written before the header's second half: each record lands at its
 * offset, the hole between reads as zeros, and the utsname gets sysname,
 * release and version while machine stays. */
static void test_unflatten_kdump(void **state)
{
	struct flat fl;
	char hdr[512] = "KDUMP   ", page[4096], why[200] = "", *out, *got;
	struct vm_dump_uts uts = { "6.1.0-57-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3" };
	size_t len;

	(void)state;
	hdr[8] = 6;
	strcpy(hdr + 12 + 4 * 65, "x86_64");
	memset(page, 0xab, sizeof(page));
	flat_open(&fl, "kdump.flat");
	flat_record(&fl, 256, hdr + 256, 256);
	flat_record(&fl, 8192, page, sizeof(page));
	flat_record(&fl, 0, hdr, 256);
	flat_close(&fl, true);
	out = xasprintf("%s/kdump", tmpdir);
	assert_int_equal(vm_dump_unflatten(fl.path, out, &uts, why, sizeof(why)), 0);
	got = slurp(out, &len);
	assert_int_equal(len, 8192 + 4096);
	assert_memory_equal(got, "KDUMP   ", 8);
	assert_int_equal(got[8], 6);
	assert_string_equal(got + 12, "Linux");
	assert_string_equal(got + 12 + 65, ""); /* nodename: nothing to say */
	assert_string_equal(got + 12 + 2 * 65, "6.1.0-57-amd64");
	assert_string_equal(got + 12 + 3 * 65, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3");
	assert_string_equal(got + 12 + 4 * 65, "x86_64");
	for (size_t i = 512; i < 8192; i++)
		assert_int_equal(got[i], 0);
	assert_memory_equal(got + 8192, page, sizeof(page));
	free(got);
	free(out);
	free(fl.path);
}

/* A header whose utsname is full keeps it; a file that is not a kdump
 * (no signature) is copied as it is, nothing filled. */
static void test_unflatten_keeps_full_uts(void **state)
{
	struct flat fl;
	char hdr[512] = "KDUMP   ", why[200], *out, *got;
	struct vm_dump_uts uts = { "other", "other" };
	size_t len;

	(void)state;
	strcpy(hdr + 12, "Linux");
	strcpy(hdr + 12 + 2 * 65, "6.1.0-1-amd64");
	strcpy(hdr + 12 + 3 * 65, "#1");
	flat_open(&fl, "full.flat");
	flat_record(&fl, 0, hdr, sizeof(hdr));
	flat_close(&fl, true);
	out = xasprintf("%s/full", tmpdir);
	assert_int_equal(vm_dump_unflatten(fl.path, out, &uts, why, sizeof(why)), 0);
	got = slurp(out, &len);
	assert_int_equal(len, sizeof(hdr));
	assert_memory_equal(got, hdr, sizeof(hdr));
	free(got);
	free(fl.path);

	flat_open(&fl, "elf.flat");
	flat_record(&fl, 0, "\177ELF", 4);
	flat_close(&fl, true);
	assert_int_equal(vm_dump_unflatten(fl.path, out, &uts, why, sizeof(why)), 0);
	got = slurp(out, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(got, "\177ELF", 4);
	free(got);
	free(out);
	free(fl.path);
}

/* Each malformed input fails with its reason, and no output is left. */
static void test_unflatten_refuses(void **state)
{
	struct flat fl;
	char why[300], *out = xasprintf("%s/bad", tmpdir), *path;
	FILE *f;

	(void)state;
	/* no end record */
	flat_open(&fl, "noend.flat");
	flat_record(&fl, 0, "abcd", 4);
	flat_close(&fl, false);
	assert_int_not_equal(vm_dump_unflatten(fl.path, out, NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "without its end record"));
	assert_int_not_equal(access(out, F_OK), 0);
	free(fl.path);

	/* a record longer than what follows it */
	flat_open(&fl, "short.flat");
	flat_record(&fl, 0, NULL, 100);
	fwrite("abcd", 1, 4, fl.f);
	flat_close(&fl, false);
	assert_int_not_equal(vm_dump_unflatten(fl.path, out, NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "the file ends inside it"));
	assert_int_not_equal(access(out, F_OK), 0);
	free(fl.path);

	/* a negative offset that is not the end mark */
	flat_open(&fl, "neg.flat");
	flat_record(&fl, UINT64_MAX - 1, "abcd", 4);
	flat_close(&fl, true);
	assert_int_not_equal(vm_dump_unflatten(fl.path, out, NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "record 0 has offset"));
	assert_int_not_equal(access(out, F_OK), 0);
	free(fl.path);

	/* not flattened at all (a kdump file as it is) */
	path = xasprintf("%s/plain", tmpdir);
	f = fopen(path, "wb");
	assert_non_null(f);
	for (int i = 0; i < 2; i++)
		fwrite("KDUMP   \0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 1, 24, f);
	fclose(f);
	assert_int_not_equal(vm_dump_unflatten(path, out, NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "not in makedumpfile's flattened form"));
	assert_int_not_equal(access(out, F_OK), 0);
	free(path);

	/* no such file */
	path = xasprintf("%s/absent", tmpdir);
	assert_int_not_equal(vm_dump_unflatten(path, out, NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "cannot open"));
	free(path);
	free(out);
}

/* Every page raw plus descriptors and bitmaps (1/64 covers 24/4096 +
 * 2/32768) plus 16 MiB of headers. */
static void test_dump_bound(void **state)
{
	(void)state;
	assert_int_equal(vm_dump_bound(512ULL << 20),
			 (512ULL << 20) + (8ULL << 20) + (16ULL << 20));
	assert_true(vm_dump_bound(8ULL << 30) >=
		    (8ULL << 30) + (8ULL << 30) / 4096 * 24 + 2 * ((8ULL << 30) / 4096 / 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unflatten_kdump),
		cmocka_unit_test(test_unflatten_keeps_full_uts),
		cmocka_unit_test(test_unflatten_refuses),
		cmocka_unit_test(test_dump_bound),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
