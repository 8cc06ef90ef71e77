/* Multipath disks against a fake sysfs tree (data/guest-mp/sys): a
 * dm-multipath device stands for its SCSI paths and takes their serial, an
 * NVMe head finds its serial on the subsystem, the paths are numbered as the
 * scenario numbers them; the dm status parser and the dm table builder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk.h"
#include "mpath.h"

#define ROOT KTB_TEST_DATA "/guest-mp"

static const char dm_status[] = "0 131072 multipath 2 0 0 0 1 1 A 0 2 0 8:0 A 0 0 1 8:16 F 1 0 1";

static void test_scan_hides_paths(void **state)
{
	struct disk_info d[DISK_MAX];
	int n;

	(void)state;
	/* sda, sdb, sdc are held by dm devices; nvme1cYn1 are hidden */
	n = disk_scan(ROOT, d, DISK_MAX);
	assert_int_equal(n, 3);
	assert_string_equal(d[0].name, "dm-0");
	assert_string_equal(d[1].name, "dm-1");
	assert_string_equal(d[2].name, "nvme1n1");
}

static void test_dm_serial(void **state)
{
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "data", &d), 0);
	assert_string_equal(d.name, "dm-0");
	assert_string_equal(d.dev, "/dev/dm-0");
	assert_string_equal(d.transport, "dm");
	assert_int_equal(disk_find(ROOT, "other", &d), 0);
	assert_string_equal(d.name, "dm-1");
}

static void test_nvme_head_serial(void **state)
{
	struct disk_info d;

	(void)state;
	/* no controller nvme1: the serial comes from nvme-subsys1 */
	assert_int_equal(disk_find(ROOT, "nv", &d), 0);
	assert_string_equal(d.name, "nvme1n1");
	assert_int_equal(d.logical_block_size, 4096);
}

static void test_dm_paths(void **state)
{
	struct mpath_info mp;
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "data", &d), 0);
	assert_int_equal(mpath_read(ROOT, &d, dm_status, &mp), 0);
	assert_string_equal(mp.kind, "dm");
	assert_string_equal(mp.name, "ktb-data");
	assert_string_equal(mp.mode, "rq");
	assert_int_equal(mp.npaths, 2);
	assert_int_equal(mp.nactive, 1);
	assert_int_equal(mp.paths[0].path, 0);
	assert_string_equal(mp.paths[0].name, "sda");
	assert_string_equal(mp.paths[0].majmin, "8:0");
	assert_string_equal(mp.paths[0].state, "running");
	assert_int_equal(mp.paths[0].dm, 'A');
	assert_true(mp.paths[0].active);
	assert_int_equal(mp.paths[1].path, 1);
	assert_string_equal(mp.paths[1].state, "offline");
	assert_int_equal(mp.paths[1].dm, 'F');
	assert_false(mp.paths[1].active);
	/* without dm's word no path is active: the SCSI state alone would
	 * call path 0 back while dm may still hold it failed */
	assert_int_equal(mpath_read(ROOT, &d, NULL, &mp), 0);
	assert_int_equal(mp.paths[0].dm, 0);
	assert_string_equal(mp.paths[0].state, "running");
	assert_false(mp.paths[0].active);
	assert_int_equal(mp.nactive, 0);
	/* no mq directory: bio-based */
	assert_int_equal(disk_find(ROOT, "other", &d), 0);
	assert_int_equal(mpath_read(ROOT, &d, NULL, &mp), 0);
	assert_string_equal(mp.mode, "bio");
	assert_int_equal(mp.paths[0].path, -1);
}

/* an "mq" entry that cannot be looked at (here a symlink to itself:
 * ELOOP) is no answer: the mode is unknown, not bio */
static void test_dm_mode_unread(void **state)
{
	char root[] = "/tmp/ktb-mpath-XXXXXX", path[512];
	struct mpath_info mp;
	struct disk_info d;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/sys/block/dm-9/dm", root);
	for (char *c = path + strlen(root) + 1; (c = strchr(c, '/')); *c++ = '/') {
		*c = '\0';
		assert_int_equal(mkdir(path, 0755), 0);
	}
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sys/block/dm-9/dm/name", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("ktb-data\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sys/block/dm-9/mq", root);
	assert_int_equal(symlink("mq", path), 0);
	memset(&d, 0, sizeof(d));
	strcpy(d.name, "dm-9");
	assert_int_equal(mpath_read(root, &d, NULL, &mp), 0);
	assert_string_equal(mp.kind, "dm");
	assert_string_equal(mp.mode, "");
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

static void test_nvme_paths(void **state)
{
	struct mpath_info mp;
	struct disk_info d;

	(void)state;
	assert_int_equal(disk_find(ROOT, "nv", &d), 0);
	assert_int_equal(mpath_read(ROOT, &d, NULL, &mp), 0);
	assert_string_equal(mp.kind, "nvme");
	assert_string_equal(mp.mode, "native");
	assert_string_equal(mp.name, "nvme1n1");
	assert_int_equal(mp.npaths, 2);
	assert_int_equal(mp.nactive, 1);
	/* numbered by controller id, not by controller instance */
	assert_int_equal(mp.paths[0].path, 0);
	assert_string_equal(mp.paths[0].name, "nvme1c0n1");
	assert_string_equal(mp.paths[0].state, "live");
	assert_int_equal(mp.paths[1].path, 1);
	assert_string_equal(mp.paths[1].name, "nvme1c2n1");
	assert_string_equal(mp.paths[1].state, "deleting");
	assert_false(mp.paths[1].active);
}

static void test_not_multipath(void **state)
{
	struct disk_info d = { .name = "vda" };
	struct mpath_info mp;

	(void)state;
	assert_int_equal(mpath_read(ROOT, &d, NULL, &mp), 0);
	assert_string_equal(mp.kind, "");
	assert_int_equal(mp.npaths, 0);
}

static void test_dm_state(void **state)
{
	(void)state;
	assert_int_equal(mpath_dm_state(dm_status, "8:0"), 'A');
	assert_int_equal(mpath_dm_state(dm_status, "8:16"), 'F');
	assert_int_equal(mpath_dm_state(dm_status, "8:1"), 0);
	assert_int_equal(mpath_dm_state(dm_status, "18:16"), 0);
	assert_int_equal(mpath_dm_state("0 8 multipath 8:32 A", "8:32"), 'A');
	assert_int_equal(mpath_dm_state("", "8:0"), 0);
	assert_int_equal(mpath_dm_state(dm_status, ""), 0);
}

static void test_dm_table(void **state)
{
	const char *const paths[] = { "8:0", "8:16" };
	char buf[256];

	(void)state;
	assert_int_equal(mpath_dm_table(buf, sizeof(buf), 131072, false, true, paths, 2), 0);
	assert_string_equal(buf, "0 131072 multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 "
				 "8:0 1 8:16 1");
	assert_int_equal(mpath_dm_table(buf, sizeof(buf), 2048, true, true, paths, 2), 0);
	assert_string_equal(buf, "0 2048 multipath 3 queue_if_no_path queue_mode bio 0 1 1 "
				 "round-robin 0 2 1 8:0 1 8:16 1");
	assert_int_equal(mpath_dm_table(buf, sizeof(buf), 2048, true, false, paths, 1), 0);
	assert_string_equal(buf, "0 2048 multipath 2 queue_mode bio 0 1 1 round-robin 0 1 1 8:0 1");
	assert_int_equal(mpath_dm_table(buf, sizeof(buf), 2048, false, false, paths, 2), 0);
	assert_string_equal(buf, "0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:0 1 8:16 1");
	assert_int_equal(mpath_dm_table(buf, 40, 2048, false, false, paths, 2), -ENOSPC);
	assert_int_equal(mpath_dm_table(buf, 50, 2048, false, false, paths, 2), -ENOSPC);
}

/* The no_path policy from the table dm reports back (its features), for
 * each table init builds. */
static void test_dm_no_path(void **state)
{
	const char *const paths[] = { "8:0", "8:16" };
	char buf[256];

	(void)state;
	for (int bio = 0; bio < 2; bio++)
		for (int queue = 0; queue < 2; queue++) {
			assert_int_equal(
			    mpath_dm_table(buf, sizeof(buf), 2048, bio, queue, paths, 2), 0);
			assert_string_equal(mpath_dm_no_path(buf), queue ? "queue" : "fail");
		}
	/* queue_mode's argument is no feature of its own */
	assert_string_equal(mpath_dm_no_path("0 8 multipath 2 queue_mode bio 0 1 1 "
					     "round-robin 0 1 1 8:0 1"),
			    "fail");
	assert_string_equal(mpath_dm_no_path("0 8 multipath 1 queue_if_no_path_x 0"), "fail");
	assert_null(mpath_dm_no_path("0 8 linear 8:0 0"));
	assert_null(mpath_dm_no_path("0 8 multipath x"));
	assert_null(mpath_dm_no_path(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_hides_paths), cmocka_unit_test(test_dm_serial),
		cmocka_unit_test(test_nvme_head_serial), cmocka_unit_test(test_dm_paths),
		cmocka_unit_test(test_nvme_paths),	 cmocka_unit_test(test_not_multipath),
		cmocka_unit_test(test_dm_state),	 cmocka_unit_test(test_dm_table),
		cmocka_unit_test(test_dm_no_path),	 cmocka_unit_test(test_dm_mode_unread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
