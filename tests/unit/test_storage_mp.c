/* What the harness tells the guest about multipath disks: the ktb.mp
 * kernel argument init builds its dm tables from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "harness/runner.h"
#include "harness/steps.h"

static void test_kernel_arg(void **state)
{
	struct multipath bio = {MULTIPATH_BIO, MULTIPATH_FAIL};
	struct disk disks[] = {
	    {.id = "boot", .bus = DISK_BUS_VIRTIO, .size = "1M"},
	    {.id = "nv", .bus = DISK_BUS_NVME, .size = "1M", .paths = 2},
	    {.id = "one", .bus = DISK_BUS_SCSI, .size = "1M"},
	    {.id = "a", .bus = DISK_BUS_SCSI, .size = "1M", .paths = 2},
	    {.id = "b", .bus = DISK_BUS_SCSI, .size = "1M", .paths = 3, .multipath = &bio},
	};
	struct machine m = {.disks = disks, .disks_count = 3};
	char *cmdline;

	(void)state;
	/* single paths and native NVMe multipath need nothing from init */
	assert_null(mp_kernel_arg(&m));
	m.disks_count = 5;
	assert_string_equal(mp_kernel_arg(&m), "ktb.mp=a:rq:2:queue,b:bio:3:fail");
	cmdline = runner_kernel_cmdline(&m, "quiet", NULL);
	assert_non_null(strstr(cmdline, " ktb.disks=boot,nv,one,a,b ktb.mp=a:rq:2:queue,"
					"b:bio:3:fail quiet"));
	free(cmdline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_arg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
