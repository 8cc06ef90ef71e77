/* ktb-mem's page pattern and counter parsing: a filled page verifies, and
 * each way a page can come back wrong (a flipped word, zeroes, another
 * page's content, another seed) does not; /proc/vmstat, /proc/meminfo and
 * PSI lines parse; sizes take bytes or a multiple of MemTotal. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "memcheck.h"

static uint64_t pages[3][MEMCHECK_PAGE / 8] __attribute__((aligned(4096)));

static void test_fill_verify(void **state)
{
	(void)state;
	memcheck_fill(pages[0], 0, 42);
	memcheck_fill(pages[1], 1, 42);
	assert_true(memcheck_ok(pages[0], 0, 42));
	assert_true(memcheck_ok(pages[1], 1, 42));
	/* another seed, another index */
	assert_false(memcheck_ok(pages[0], 0, 43));
	assert_false(memcheck_ok(pages[0], 1, 42));
	/* the tag depends on the address: page 1's bytes at page 0's place fail */
	memcpy(pages[2], pages[1], MEMCHECK_PAGE);
	assert_false(memcheck_ok(pages[2], 1, 42));
	/* any tag: a page written with page 1's address tag checks at that tag */
	assert_true(memcheck_page_ok(pages[2], 1, memcheck_tag(42, (uintptr_t)pages[1])));
	assert_false(memcheck_page_ok(pages[2], 1, memcheck_tag(42, (uintptr_t)pages[2])));
}

static void test_damage(void **state)
{
	(void)state;
	memcheck_fill(pages[0], 7, 1);
	pages[0][MEMCHECK_PAGE / 8 - 1] ^= 1;
	assert_false(memcheck_ok(pages[0], 7, 1));
	memset(pages[0], 0, MEMCHECK_PAGE);
	assert_false(memcheck_ok(pages[0], 0, 1));
	/* never a same-filled page, which zswap would store without compressing */
	memcheck_fill(pages[0], 0, 0);
	assert_int_not_equal(pages[0][0], pages[0][1]);
	assert_int_not_equal(memcheck_tag(0, 0), 0);
	assert_int_not_equal(memcheck_tag(5, 4096), memcheck_tag(5, 8192));
}

static void test_vmstat_meminfo(void **state)
{
	static const char vmstat[] = "nr_free_pages 1000\npswpin 12\npswpout 345\n"
				     "pgmajfault 6\npswpout_x 9\n";
	static const char meminfo[] = "MemTotal:         295160 kB\nMemFree:  100 kB\n"
				      "AnonHugePages:     4096 kB\n";

	uint64_t v = 99;

	(void)state;

	assert_true(memcheck_vmstat(vmstat, "pswpin", &v));
	assert_int_equal(v, 12);
	assert_true(memcheck_vmstat(vmstat, "pswpout", &v));
	assert_int_equal(v, 345);
	assert_true(memcheck_vmstat(vmstat, "pgmajfault", &v));
	assert_int_equal(v, 6);
	/* absent (CONFIG_VM_EVENT_COUNTERS off) is no value, not 0 */
	v = 99;
	assert_false(memcheck_vmstat(vmstat, "nothing", &v));
	assert_false(memcheck_vmstat("nr_free_pages 1000\n", "pswpout", &v));
	assert_int_equal(v, 99);
	assert_int_equal(memcheck_meminfo_kb(meminfo, "MemTotal"), 295160);
	assert_int_equal(memcheck_meminfo_kb(meminfo, "AnonHugePages"), 4096);
	assert_int_equal(memcheck_meminfo_kb(meminfo, "Mem"), 0);
}

static void test_psi(void **state)
{
	static const char psi[] = "some avg10=27.32 avg60=6.03 avg300=1.20 total=4753772\n"
				  "full avg10=17.84 avg60=4.00 avg300=0.80 total=3172550\n";
	struct psi_line l;

	(void)state;
	assert_int_equal(memcheck_psi(psi, "some", &l), 0);
	assert_true(l.avg10 > 27.31 && l.avg10 < 27.33);
	assert_int_equal(l.total_us, 4753772);
	assert_int_equal(memcheck_psi(psi, "full", &l), 0);
	assert_true(l.avg60 > 3.99 && l.avg60 < 4.01);
	assert_int_equal(l.total_us, 3172550);
	assert_int_equal(memcheck_psi("some avg10=x\n", "some", &l), -EINVAL);
	assert_int_equal(memcheck_psi(psi, "none", &l), -EINVAL);
}

static void test_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(memcheck_size("256M", 0, &v), 0);
	assert_int_equal(v, 256ull << 20);
	assert_int_equal(memcheck_size("1.5x", 100ull << 20, &v), 0);
	assert_int_equal(v, 150ull << 20);
	assert_int_equal(memcheck_size("2x", 4097, &v), 0);
	assert_int_equal(v, 8192); /* whole pages */
	assert_int_equal(memcheck_size("0x", 1 << 20, &v), -EINVAL);
	assert_int_equal(memcheck_size("-1x", 1 << 20, &v), -EINVAL);
	assert_int_equal(memcheck_size("abcx", 1 << 20, &v), -EINVAL);
	assert_int_equal(memcheck_size("x", 1 << 20, &v), -EINVAL);
	assert_int_equal(memcheck_size("", 1 << 20, &v), -EINVAL);
	assert_int_equal(memcheck_size(NULL, 1 << 20, &v), -EINVAL);
	assert_int_equal(memcheck_size("12Q", 1 << 20, &v), -EINVAL);
}

static void test_saved_pct(void **state)
{
	(void)state;
	assert_int_equal(memcheck_saved_pct(1000, 370), 63);
	assert_int_equal(memcheck_saved_pct(1000, 1000), 0);
	assert_int_equal(memcheck_saved_pct(100, 150), -50);
	assert_int_equal(memcheck_saved_pct(0, 5), 0);
}

/* ktb-mem thp: the region's AnonHugePages, or nothing when smaps has no
 * such entry (an unread region is not "0 kB of huge pages") */
static void test_smaps(void **state)
{
	static char smaps[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			      "Size:               2048 kB\n"
			      "AnonHugePages:         0 kB\n"
			      "7f0000400000-7f0001400000 rw-p 00000000 00:00 0 \n"
			      "Size:              16384 kB\n"
			      "AnonHugePages:     14336 kB\n"
			      "7f0002000000-7f0002001000 r--p 00000000 00:00 0 \n"
			      "Size:                  4 kB\n";
	uint64_t kb = 99;
	FILE *f;

	(void)state;
	f = fmemopen(smaps, strlen(smaps), "r");
	assert_int_equal(memcheck_smaps_huge_kb(f, 0x7f0000400000, &kb), 0);
	assert_int_equal(kb, 14336);
	rewind(f);
	assert_int_equal(memcheck_smaps_huge_kb(f, 0x7f0000000000, &kb), 0);
	assert_int_equal(kb, 0);
	rewind(f);
	kb = 99;
	/* no entry at that address, or one without the line: no number */
	assert_int_equal(memcheck_smaps_huge_kb(f, 0x7f0003000000, &kb), -ENOENT);
	rewind(f);
	assert_int_equal(memcheck_smaps_huge_kb(f, 0x7f0002000000, &kb), -ENOENT);
	assert_int_equal(kb, 99);
	fclose(f);
	f = fmemopen(smaps, 1, "r");
	assert_int_equal(memcheck_smaps_huge_kb(f, 0x7f0000400000, &kb), -ENOENT);
	fclose(f);
}

static void test_meminfo_line(void **state)
{
	const char *mi =
	    "MemTotal:  302528 kB\nShmemHugePages:    2048 kB\nFileHugePages:       0 kB\n";
	uint64_t kb = 7;

	(void)state;
	assert_true(memcheck_meminfo_line(mi, "ShmemHugePages", &kb));
	assert_int_equal(kb, 2048);
	assert_true(memcheck_meminfo_line(mi, "FileHugePages", &kb));
	assert_int_equal(kb, 0);
	/* absent: false, so the report says null; a prefix is not the name */
	assert_false(memcheck_meminfo_line(mi, "FilePmdMapped", &kb));
	assert_false(memcheck_meminfo_line(mi, "Shmem", &kb));
}

static void test_buddy(void **state)
{
	const char *bi = "Node 0, zone      DMA      0      0      0      0      0      1      1   "
			 "   1      0      1      3 \n"
			 "Node 0, zone    DMA32     10      8     11      8      8      6      6   "
			 "   6      7      4     84 \n";
	uint64_t n = 99;

	(void)state;
	/* order 9 counts one 2M block, order 10 two: 1 + 2*3 + 4 + 2*84 */
	assert_true(memcheck_buddy_free_2m(bi, &n));
	assert_int_equal(n, 179);
	assert_true(memcheck_buddy_free_2m("Node 0, zone   Normal 1 2 3 4 5 6 7 8 9 0 0\n", &n));
	assert_int_equal(n, 0);
	/* no zone line with 11 orders: false, not 0 blocks */
	assert_false(memcheck_buddy_free_2m("Node 0, zone   Normal 1 2 3\n", &n));
	assert_false(memcheck_buddy_free_2m("", &n));
}

static void test_compact_again(void **state)
{
	(void)state;
	/* the first pass always, unless the free blocks already cover the try */
	assert_true(memcheck_compact_again(0, 8, 9, 9, 32));
	assert_false(memcheck_compact_again(0, 8, 40, 40, 32));
	/* again while a pass built blocks and the try is not covered */
	assert_true(memcheck_compact_again(1, 8, 9, 11, 32));
	assert_false(memcheck_compact_again(2, 8, 11, 32, 32));
	/* a pass that built none: the kernel made no more progress */
	assert_false(memcheck_compact_again(2, 8, 11, 11, 32));
	assert_false(memcheck_compact_again(2, 8, 11, 10, 32));
	/* and never past the cap */
	assert_false(memcheck_compact_again(8, 8, 11, 20, 32));
}

static void test_huge_pct_possible(void **state)
{
	(void)state;
	/* a 64M try is 32 blocks: 11 free blocks serve 34% of it */
	assert_int_equal(memcheck_huge_pct_possible(11, 32), 34);
	assert_int_equal(memcheck_huge_pct_possible(9, 32), 28);
	/* capped: more free blocks than the try needs serve all of it */
	assert_int_equal(memcheck_huge_pct_possible(58, 32), 100);
	assert_int_equal(memcheck_huge_pct_possible(32, 32), 100);
	assert_int_equal(memcheck_huge_pct_possible(0, 32), 0);
	assert_int_equal(memcheck_huge_pct_possible(5, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_verify),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_vmstat_meminfo),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_saved_pct),
		cmocka_unit_test(test_smaps),
		cmocka_unit_test(test_meminfo_line),
		cmocka_unit_test(test_buddy),
		cmocka_unit_test(test_compact_again),
		cmocka_unit_test(test_huge_pct_possible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
