/* The drivers the command line tells init to leave out (ktb.nomod=): only
 * those of parts the machine lacks, never one a declared part needs, and
 * none when the caller names its own list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vm_cmdline.h"

#define ALL_OPTIONAL                                                                               \
	"ktb.nomod=virtio_blk,virtio_scsi,sd_mod,nvme,ahci,virtio_balloon,9pnet_virtio,9p,"        \
	"virtiofs,overlay,ext4,dm_multipath,dm_round_robin,dm_queue_length,dm_service_time,bochs," \
	"virtio_gpu,xfs"

/* Whether module is a word of the ktb.nomod= list in arg. */
static bool left_out(const char *arg, const char *module)
{
	const char *p = strchr(arg, '=') + 1;
	size_t n = strlen(module);

	while (*p) {
		size_t t = strcspn(p, ",");

		if (t == n && !strncmp(p, module, n))
			return true;
		p += t + (p[t] == ',');
	}
	return false;
}

static void test_bare_machine(void **state)
{
	struct machine m = { 0 };
	char *arg = vm_nomod_arg(&m);

	(void)state;
	assert_string_equal(arg, ALL_OPTIONAL);
	free(arg);
}

/* Each part keeps its drivers and only those. */
static void test_each_part(void **state)
{
	struct disk disk = { .id = "d", .size = "1M" };
	struct balloon balloon = { 0 };
	struct share share = { .host = "/x" };
	static const struct {
		enum disk_bus bus;
		const char *kept[3];
	} buses[] = {
		{ DISK_BUS_VIRTIO, { "virtio_blk" } },
		{ DISK_BUS_HYBRID, { "virtio_blk" } },
		{ DISK_BUS_SCSI, { "virtio_scsi", "sd_mod" } },
		{ DISK_BUS_SATA, { "ahci", "sd_mod" } },
		{ DISK_BUS_NVME, { "nvme" } },
	};
	struct machine m = { .disks = &disk, .disks_count = 1 };
	char *arg;

	(void)state;
	for (size_t i = 0; i < sizeof(buses) / sizeof(buses[0]); i++) {
		disk.bus = buses[i].bus;
		arg = vm_nomod_arg(&m);
		for (size_t k = 0; k < 3 && buses[i].kept[k]; k++)
			assert_false(left_out(arg, buses[i].kept[k]));
		assert_true(left_out(arg, "virtio_balloon"));
		assert_true(left_out(arg, "dm_multipath"));
		assert_true(left_out(arg, "bochs"));
		free(arg);
	}
	/* a scsi disk with two paths: dm-multipath and its path selectors */
	disk.bus = DISK_BUS_SCSI;
	disk.paths = 2;
	arg = vm_nomod_arg(&m);
	assert_false(left_out(arg, "dm_multipath"));
	assert_false(left_out(arg, "dm_service_time"));
	free(arg);
	/* nvme with two paths is native multipath: no dm */
	disk.bus = DISK_BUS_NVME;
	arg = vm_nomod_arg(&m);
	assert_true(left_out(arg, "dm_multipath"));
	free(arg);

	m = (struct machine){ .balloon = &balloon, .display = DISPLAY_VGA };
	arg = vm_nomod_arg(&m);
	assert_false(left_out(arg, "virtio_balloon"));
	assert_false(left_out(arg, "bochs"));
	assert_true(left_out(arg, "virtio_gpu"));
	free(arg);
	m.display = DISPLAY_BOCHS;
	arg = vm_nomod_arg(&m);
	assert_false(left_out(arg, "bochs"));
	free(arg);
	m.display = DISPLAY_VIRTIO;
	arg = vm_nomod_arg(&m);
	assert_false(left_out(arg, "virtio_gpu"));
	assert_true(left_out(arg, "bochs"));
	free(arg);

	m = (struct machine){ .shares = &share, .shares_count = 1 };
	arg = vm_nomod_arg(&m);
	assert_false(left_out(arg, "9p"));
	assert_false(left_out(arg, "9pnet_virtio"));
	assert_true(left_out(arg, "virtiofs"));
	free(arg);
	share.virtiofs = true;
	arg = vm_nomod_arg(&m);
	assert_true(left_out(arg, "9p"));
	assert_false(left_out(arg, "virtiofs"));
	free(arg);
}

/* A machine with every part (the host's root too: 9p and overlay) leaves
 * out only the display it does not have, ext4 (a Debian root's disk) and
 * xfs (loaded on mount);
 * with no optional driver left out there is no word at all. */
static void test_full_machine(void **state)
{
	struct disk disks[] = {
		{ .id = "v", .bus = DISK_BUS_VIRTIO, .size = "1M" },
		{ .id = "s", .bus = DISK_BUS_SCSI, .size = "1M", .paths = 2 },
		{ .id = "a", .bus = DISK_BUS_SATA, .size = "1M" },
		{ .id = "n", .bus = DISK_BUS_NVME, .size = "1M" },
	};
	struct share shares[] = { { .host = "/a" }, { .host = "/b", .virtiofs = true } };
	struct balloon balloon = { 0 };
	struct machine m = { .disks = disks, .disks_count = 4, .balloon = &balloon, .root = "/" };
	char *arg, *line;

	(void)state;
	m.shares = shares;
	m.shares_count = 2;
	m.display = DISPLAY_BOCHS;
	arg = vm_nomod_arg(&m);
	assert_string_equal(arg, "ktb.nomod=ext4,virtio_gpu,xfs");
	free(arg);
	m.display = DISPLAY_VIRTIO;
	arg = vm_nomod_arg(&m);
	assert_string_equal(arg, "ktb.nomod=ext4,bochs,xfs");
	free(arg);
	line = vm_kernel_cmdline(&m, NULL, NULL);
	assert_non_null(strstr(line, " ktb.nomod=ext4,bochs,xfs"));
	assert_non_null(strstr(line, " ktb.root=ktbroot"));
	free(line);
}

/* The caller's ktb.nomod= (scenario or --append) replaces the testbed's:
 * "ktb.nomod=" alone loads every module. */
static void test_caller_wins(void **state)
{
	struct machine m = { 0 };
	char *line;

	(void)state;
	line = vm_kernel_cmdline(&m, NULL, NULL);
	assert_non_null(strstr(line, " " ALL_OPTIONAL));
	free(line);
	line = vm_kernel_cmdline(&m, "quiet", "ktb.nomod=");
	assert_null(strstr(line, "ktb.nomod=virtio"));
	assert_non_null(strstr(line, " quiet ktb.nomod="));
	free(line);
	line = vm_kernel_cmdline(&m, "ktb.nomod=bochs", NULL);
	assert_null(strstr(line, "ktb.nomod=virtio"));
	free(line);
	/* a word that only ends in the name is not the caller's list */
	line = vm_kernel_cmdline(&m, "xktb.nomod=bochs", NULL);
	assert_non_null(strstr(line, " " ALL_OPTIONAL));
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_machine),
		cmocka_unit_test(test_each_part),
		cmocka_unit_test(test_full_machine),
		cmocka_unit_test(test_caller_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
