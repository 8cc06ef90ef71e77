/* Disk discovery against a fake sysfs tree (data/guest/sys): serials from
 * each place the kernel keeps them, geometry, and what is left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "disk.h"
#include "sysfs.h"

#define ROOT KTB_TEST_DATA "/guest"

static void test_scan(void **state)
{
	struct disk_info d[DISK_MAX];
	int n;

	(void)state;
	n = disk_scan(ROOT, d, DISK_MAX);
	/* loop0, the hidden path nvme0c0n1 and the disk of the guest's root
	 * (vdb, serial ktbroot) are left out */
	assert_int_equal(n, 4);
	/* shorter names first, so sdz comes before sdaa */
	assert_string_equal(d[0].name, "sda");
	assert_string_equal(d[1].name, "sdb");
	assert_string_equal(d[2].name, "vda");
	assert_string_equal(d[3].name, "nvme0n1");
}

static void test_virtio(void **state)
{
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "data", &d), 0);
	assert_string_equal(d.name, "vda");
	assert_string_equal(d.dev, "/dev/vda");
	assert_string_equal(d.transport, "virtio");
	assert_string_equal(d.majmin, "253:0");
	assert_int_equal(d.size_bytes, 1ULL << 30);
	assert_int_equal(d.logical_block_size, 512);
	assert_int_equal(d.physical_block_size, 4096);
	assert_false(d.rotational);
	assert_string_equal(d.zoned, "none");
}

static void test_scsi_vpd(void **state)
{
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "swap", &d), 0);
	assert_string_equal(d.name, "sda");
	assert_string_equal(d.transport, "scsi");
	assert_int_equal(d.logical_block_size, 4096);
	assert_true(d.rotational);
	assert_int_equal(disk_find(ROOT, "legacy", &d), 0);
	assert_string_equal(d.name, "sdb");
}

static void test_nvme_zoned(void **state)
{
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "zns", &d), 0);
	assert_string_equal(d.name, "nvme0n1");
	assert_string_equal(d.transport, "nvme");
	assert_string_equal(d.zoned, "host-managed");
	assert_int_equal(d.nr_zones, 32);
}

static void test_missing(void **state)
{
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "nope", &d), -ENOENT);
	assert_int_equal(disk_find(ROOT, "", &d), -ENOENT);
	assert_int_equal(disk_find("/nonexistent", "data", &d), -ENOENT);
}

static void test_cpulist(void **state)
{
	unsigned c[16];

	(void)state;
	assert_int_equal(sysfs_parse_cpulist("0-3,8,10-11\n", c, 16), 7);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[3], 3);
	assert_int_equal(c[4], 8);
	assert_int_equal(c[6], 11);
	assert_int_equal(sysfs_parse_cpulist("", c, 16), 0);
	assert_int_equal(sysfs_parse_cpulist("5", c, 16), 1);
	assert_int_equal(c[0], 5);
	assert_int_equal(sysfs_parse_cpulist("0-40", c, 16), 16);
	assert_int_equal(sysfs_parse_cpulist("3-1", c, 16), -EINVAL);
	assert_int_equal(sysfs_parse_cpulist("a", c, 16), -EINVAL);
	assert_int_equal(sysfs_parse_cpulist("1,,2", c, 16), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),	 cmocka_unit_test(test_virtio),
		cmocka_unit_test(test_scsi_vpd), cmocka_unit_test(test_nvme_zoned),
		cmocka_unit_test(test_missing),	 cmocka_unit_test(test_cpulist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
