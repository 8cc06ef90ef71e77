/* What the harness tells the guest about multipath disks (the ktb.mp
 * kernel argument init builds its dm tables from), and how fail_path and
 * restore_path judge what the guest shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "vm_cmdline.h"
#include "step_storage_mp.h"

static void test_kernel_arg(void **state)
{
	struct multipath bio = { MULTIPATH_BIO, MULTIPATH_FAIL };
	struct disk disks[] = {
		{ .id = "boot", .bus = DISK_BUS_VIRTIO, .size = "1M" },
		{ .id = "nv", .bus = DISK_BUS_NVME, .size = "1M", .paths = 2 },
		{ .id = "one", .bus = DISK_BUS_SCSI, .size = "1M" },
		{ .id = "a", .bus = DISK_BUS_SCSI, .size = "1M", .paths = 2 },
		{ .id = "b", .bus = DISK_BUS_SCSI, .size = "1M", .paths = 3, .multipath = &bio },
	};
	struct machine m = { .disks = disks, .disks_count = 3 };
	char *cmdline;

	(void)state;
	/* single paths and native NVMe multipath need nothing from init */
	assert_null(vm_multipath_arg(&m));
	m.disks_count = 5;
	assert_string_equal(vm_multipath_arg(&m), "ktb.mp=a:rq:2:queue,b:bio:3:fail");
	cmdline = vm_kernel_cmdline(&m, "quiet", NULL);
	assert_non_null(strstr(cmdline, " ktb.disks=boot,nv,one,a,b ktb.mp=a:rq:2:queue,"
					"b:bio:3:fail ktb.nomod="));
	assert_non_null(strstr(cmdline, " quiet"));
	/* no SATA disk: q35's empty AHCI ports are probed without the delay */
	assert_non_null(strstr(
	    cmdline, " no_timer_check cryptomgr.notests initcall_blacklist=crypto_kdf108_init "
		     "libata.force=nodbdelay ktb.disks="));
	free(cmdline);
	disks[2].bus = DISK_BUS_SATA;
	cmdline = vm_kernel_cmdline(&m, NULL, NULL);
	assert_null(strstr(cmdline, "libata"));
	free(cmdline);
}

/* Probe JSON as `ktb-probe disk` prints it: a head with path 0 live and
 * path 1 as given (or no path 1), or no multipath device at all. */
#define MP_P0 "{\"path\":0,\"name\":\"nvme0c0n1\",\"state\":\"live\",\"active\":true}"
#define MP_HEAD(list) "{\"id\":\"data\",\"multipath\":{\"kind\":\"nvme\",\"list\":[" list "]}}"

static int judge(const char *text, unsigned path, bool up, bool before, char **why)
{
	json_t *probe = json_loads(text, 0, NULL);
	int ret;

	assert_non_null(probe);
	ret = mp_judge(probe, path, up, before, why);
	json_decref(probe);
	return ret;
}

static const char *const mp_no_device[] = {
	"{\"id\":\"data\",\"multipath\":null}",
	"{\"id\":\"data\"}",
	"{\"id\":\"data\",\"multipath\":{\"kind\":\"\",\"list\":[]}}",
	"{}",
};

/* Two controllers the kernel did not join (nvme_core.multipath=N) are two
 * plain disks: no multipath device, so neither step may act, and after the
 * action its absence fails the step: a path missing is not a path down
 * unless the multipath device is still there. */
static void test_judge_no_device(void **state)
{
	char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(mp_no_device) / sizeof(mp_no_device[0]); i++) {
		for (int up = 0; up < 2; up++) {
			assert_int_equal(judge(mp_no_device[i], 0, up, true, &why), -ENOENT);
			assert_non_null(strstr(why, "no multipath device"));
			assert_non_null(strstr(why, up ? "before restore_path of path 0"
						       : "before fail_path of path 0"));
			free(why);
			assert_int_equal(judge(mp_no_device[i], 0, up, false, &why), -ENOENT);
			assert_non_null(strstr(why, up ? "after restore_path of path 0: the "
							 "guest shows no multipath device"
						       : "after fail_path of path 0: the guest "
							 "shows no multipath device"));
			free(why);
		}
	}
	assert_int_equal(judge("{\"multipath\":null}", 0, false, true, &why), -ENOENT);
	assert_non_null(strstr(why, "(multipath: null)"));
	free(why);
	/* the last path pulled takes an NVMe head with it: the probe finds no
	 * disk, and says so */
	assert_int_equal(judge("{\"error\":\"no disk with id data\"}", 1, false, false, &why),
			 -ENOENT);
	assert_non_null(strstr(why, "(multipath: none: no disk with id data)"));
	free(why);
}

/* fail_path acts only on a path the guest shows, and shows active. */
static void test_judge_before_fail(void **state)
{
	static const struct {
		const char *probe;
		const char *why; /* NULL: may act */
	} rows[] = {
		{ MP_HEAD(MP_P0 ",{\"path\":1,\"state\":\"live\",\"active\":true}"), NULL },
		{ MP_HEAD(MP_P0), "shows no such path" },
		{ MP_HEAD(MP_P0 ",{\"path\":1,\"state\":\"deleting\",\"active\":false}"),
		  "shows it not active" },
		{ MP_HEAD(MP_P0 ",{\"path\":1,\"state\":\"live\"}"), "shows it not active" },
		{ MP_HEAD(""), "shows no such path" },
	};
	char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int ret = judge(rows[i].probe, 1, false, true, &why);

		if (!rows[i].why) {
			assert_int_equal(ret, 0);
			assert_null(why);
			continue;
		}
		assert_int_equal(ret, -ENOENT);
		assert_non_null(strstr(why, rows[i].why));
		free(why);
	}
	/* restore_path needs the device only: its path is expected gone */
	assert_int_equal(judge(MP_HEAD(MP_P0), 1, true, true, &why), 0);
}

/* After the action: the device still there, and the path gone or inactive
 * (fail) / present and active (restore). */
static void test_judge_effect(void **state)
{
	static const char *const gone = MP_HEAD(MP_P0),
				 *const failed = MP_HEAD(MP_P0 ",{\"path\":1,\"active\":false}"),
				 *const back = MP_HEAD(MP_P0 ",{\"path\":1,\"active\":true}");
	char *why;

	(void)state;
	assert_int_equal(judge(gone, 1, false, false, &why), 0);
	assert_int_equal(judge(failed, 1, false, false, &why), 0);
	assert_int_equal(judge(back, 1, false, false, &why), 1);
	assert_int_equal(judge(back, 1, true, false, &why), 0);
	assert_int_equal(judge(gone, 1, true, false, &why), 1);
	assert_int_equal(judge(failed, 1, true, false, &why), 1);
	assert_null(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_arg),
		cmocka_unit_test(test_judge_no_device),
		cmocka_unit_test(test_judge_before_fail),
		cmocka_unit_test(test_judge_effect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
