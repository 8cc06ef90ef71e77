/* Kernel requirements: each scenario of the library yields the options its
 * parts and steps need (and not those of parts it lacks), every option the
 * library asks for is one Debian's 6.1 kernel sets as recorded here, and
 * kreq_missing() names what a config lacks: unset, =m without its module,
 * =m where it must be built in. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kreq.h"

#define LIBRARY KTB_SOURCE_DIR_TEST "/scenarios/"
#define DATA KTB_TEST_DATA "/scenarios/"

static struct scenario *load(const char *path)
{
	struct scenario_error err;
	struct scenario *s = NULL;

	if (scenario_load(path, &s, &err))
		print_error("%s:%d:%d: %s\n", path, err.line, err.col, err.msg);
	assert_non_null(s);
	return s;
}

static const struct kreq *find(const struct kreq_list *l, const char *option)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].option, option))
			return &l->v[i];
	return NULL;
}

/* ---- each scenario of the library: what it must need, what it must not ---- */

#define MAX_OPTS 12
static const struct lib_case {
	const char *file;
	const char *has[MAX_OPTS];
	const char *lacks[MAX_OPTS];
} lib_cases[] = {
	{ "smoke",
	  { "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_VIRTIO_CONSOLE", "CONFIG_DEVTMPFS",
	    "CONFIG_PVH" },
	  { "CONFIG_BLK_DEV_NVME", "CONFIG_DM_MULTIPATH", "CONFIG_ACPI_HMAT", "CONFIG_ZSWAP",
	    "CONFIG_SUSPEND", "CONFIG_NUMA", "CONFIG_VIRTIO_BALLOON", "CONFIG_SWAP" } },
	{ "disk-4kn-nvme", { "CONFIG_BLK_DEV_NVME" }, { "CONFIG_NVME_MULTIPATH", "CONFIG_SCSI" } },
	{ "disk-4kn-scsi",
	  { "CONFIG_SCSI_VIRTIO", "CONFIG_BLK_DEV_SD", "CONFIG_SCSI" },
	  { "CONFIG_ATA", "CONFIG_DM_MULTIPATH" } },
	{ "disk-4kn-virtio", { "CONFIG_VIRTIO_BLK" }, { "CONFIG_SCSI" } },
	{ "disk-512e",
	  { "CONFIG_SATA_AHCI", "CONFIG_ATA", "CONFIG_BLK_DEV_SD" },
	  { "CONFIG_NVME" } },
	{ "zoned-nvme",
	  { "CONFIG_BLK_DEV_NVME", "CONFIG_BLK_DEV_ZONED" },
	  { "CONFIG_NVME_MULTIPATH" } },
	{ "mp-nvme-failover",
	  { "CONFIG_BLK_DEV_NVME", "CONFIG_NVME_MULTIPATH" },
	  { "CONFIG_DM_MULTIPATH" } },
	{ "mp-dm-rq-failover",
	  { "CONFIG_DM_MULTIPATH", "CONFIG_BLK_DEV_DM", "CONFIG_SCSI_VIRTIO" },
	  { "CONFIG_NVME_MULTIPATH" } },
	{ "mp-dm-bio-failover",
	  { "CONFIG_DM_MULTIPATH", "CONFIG_BLK_DEV_DM", "CONFIG_MD" },
	  { NULL } },
	{ "mp-all-paths-down", { "CONFIG_DM_MULTIPATH" }, { NULL } },
	{ "mp-all-paths-down-fail", { "CONFIG_DM_MULTIPATH" }, { NULL } },
	{ "kunit-boot",
	  { "CONFIG_KUNIT", "CONFIG_RUNTIME_TESTING_MENU", "CONFIG_LIST_KUNIT_TEST",
	    "CONFIG_KUNIT_EXAMPLE_TEST" },
	  { "CONFIG_SUSPEND" } },
	{ "hybrid-power-loss", { "CONFIG_VIRTIO_BLK" }, { "CONFIG_SUSPEND" } },
	{ "hybrid-promotion", { "CONFIG_VIRTIO_BLK" }, { NULL } },
	{ "hybrid-s3",
	  { "CONFIG_VIRTIO_BLK", "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP" },
	  { "CONFIG_PVH" } },
	{ "numa-2node", { "CONFIG_NUMA", "CONFIG_ACPI_NUMA" }, { "CONFIG_ACPI_HMAT" } },
	{ "numa-4node-asym", { "CONFIG_NUMA", "CONFIG_ACPI_NUMA" }, { "CONFIG_ACPI_HMAT" } },
	{ "numa-memoryless", { "CONFIG_NUMA" }, { "CONFIG_ACPI_HMAT" } },
	{ "numa-hmat",
	  { "CONFIG_NUMA", "CONFIG_ACPI_NUMA", "CONFIG_ACPI_HMAT", "CONFIG_HMEM_REPORTING" },
	  { NULL } },
	{ "balloon-resize", { "CONFIG_VIRTIO_BALLOON" }, { "CONFIG_PAGE_REPORTING" } },
	{ "balloon-free-page-reporting",
	  { "CONFIG_VIRTIO_BALLOON", "CONFIG_PAGE_REPORTING" },
	  { NULL } },
	{ "balloon-free-page-reporting-off",
	  { "CONFIG_VIRTIO_BALLOON" },
	  { "CONFIG_PAGE_REPORTING" } },
	{ "balloon-under-pressure",
	  { "CONFIG_VIRTIO_BALLOON", "CONFIG_SWAP" },
	  { "CONFIG_ZSWAP" } },
	{ "paging-swap-4kn",
	  { "CONFIG_SWAP", "CONFIG_VM_EVENT_COUNTERS" },
	  { "CONFIG_ZSWAP", "CONFIG_PSI" } },
	{ "paging-zswap",
	  { "CONFIG_SWAP", "CONFIG_ZSWAP", "CONFIG_ZSWAP_COMPRESSOR_DEFAULT_LZO",
	    "CONFIG_CRYPTO_LZO", "CONFIG_ZBUD", "CONFIG_VM_EVENT_COUNTERS" },
	  { "CONFIG_PSI" } },
	{ "paging-psi", { "CONFIG_SWAP", "CONFIG_PSI" }, { "CONFIG_ZSWAP" } },
	{ "paging-thp", { "CONFIG_TRANSPARENT_HUGEPAGE" }, { "CONFIG_SWAP" } },
	{ "kselftest-timers",
	  { "CONFIG_POSIX_TIMERS", "CONFIG_POSIX_MQUEUE" },
	  { "CONFIG_SWAP", "CONFIG_SUSPEND", "CONFIG_BLK_DEV_NVME" } },
	{ "kselftest-vm",
	  { "CONFIG_CHECKPOINT_RESTORE", "CONFIG_MEM_SOFT_DIRTY", "CONFIG_PROC_PAGE_MONITOR",
	    "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_NUMA" },
	  { "CONFIG_SWAP", "CONFIG_SUSPEND", "CONFIG_POSIX_MQUEUE" } },
	{ "memcg-limit", { "CONFIG_MEMCG", "CONFIG_SWAP" }, { "CONFIG_PSI" } },
	{ "memory-pressure-notify",
	  { "CONFIG_MEMCG", "CONFIG_PSI", "CONFIG_SWAP" },
	  { "CONFIG_ZSWAP" } },
	{ "memory-pressure-balloon",
	  { "CONFIG_VIRTIO_BALLOON", "CONFIG_SWAP", "CONFIG_PSI" },
	  { "CONFIG_MEMCG" } },
	{ "pagecache-thp",
	  { "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_BASE_FULL" },
	  { "CONFIG_SWAP" } },
	{ "compaction-thp",
	  { "CONFIG_COMPACTION", "CONFIG_TRANSPARENT_HUGEPAGE" },
	  { "CONFIG_SWAP" } },
	{ "idle-accounting", { "CONFIG_PVH" }, { "CONFIG_SWAP", "CONFIG_SUSPEND" } },
	{ "s3-basic",
	  { "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP", "CONFIG_PM_DEBUG" },
	  { "CONFIG_HIBERNATION", "CONFIG_PVH", "CONFIG_RTC_DRV_CMOS" } },
	{ "s3-stress", { "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP" }, { "CONFIG_HIBERNATION" } },
	{ "s3-repeat-steps", { "CONFIG_SUSPEND" }, { "CONFIG_HIBERNATION" } },
	{ "s3-wake-rtc",
	  { "CONFIG_SUSPEND", "CONFIG_RTC_CLASS", "CONFIG_RTC_DRV_CMOS" },
	  { "CONFIG_KEYBOARD_ATKBD" } },
	{ "s3-io-integrity", { "CONFIG_SUSPEND", "CONFIG_BLK_DEV_NVME" }, { NULL } },
	{ "s3-sata", { "CONFIG_SUSPEND", "CONFIG_SATA_AHCI" }, { NULL } },
	{ "display-bochs", { "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP" }, { "CONFIG_HIBERNATION" } },
	{ "s3-display",
	  { "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP", "CONFIG_DRM_BOCHS",
	    "CONFIG_FRAMEBUFFER_CONSOLE" },
	  { "CONFIG_HIBERNATION" } },
	{ "s4-display",
	  { "CONFIG_HIBERNATION", "CONFIG_SWAP", "CONFIG_ACPI_SLEEP", "CONFIG_DRM_BOCHS" },
	  { "CONFIG_SUSPEND", "CONFIG_FB" } },
	{ "pm-freezer-fail",
	  { "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP", "CONFIG_DM_MULTIPATH" },
	  { "CONFIG_HIBERNATION" } },
	{ "s3-not-offered",
	  { "CONFIG_PVH", "CONFIG_SUSPEND" },
	  { "CONFIG_ACPI_SLEEP", "CONFIG_PM_DEBUG" } },
	{ "s2idle",
	  { "CONFIG_SUSPEND", "CONFIG_SERIO_I8042", "CONFIG_KEYBOARD_ATKBD" },
	  { "CONFIG_ACPI_SLEEP", "CONFIG_HIBERNATION" } },
	{ "s2idle-s3",
	  { "CONFIG_SUSPEND", "CONFIG_ACPI_SLEEP", "CONFIG_KEYBOARD_ATKBD" },
	  { NULL } },
	{ "pm-test-levels",
	  { "CONFIG_SUSPEND", "CONFIG_PM_DEBUG", "CONFIG_PM_SLEEP_DEBUG" },
	  { "CONFIG_HIBERNATION" } },
	{ "s4-hibernate",
	  { "CONFIG_HIBERNATION", "CONFIG_SWAP", "CONFIG_ACPI_SLEEP", "CONFIG_PVH" },
	  { "CONFIG_SUSPEND" } },
	{ "s3-s4-s3", { "CONFIG_HIBERNATION", "CONFIG_SWAP", "CONFIG_SUSPEND" }, { "CONFIG_PVH" } },
	{ "share-9p",
	  { "CONFIG_NETWORK_FILESYSTEMS", "CONFIG_NET_9P", "CONFIG_NET_9P_VIRTIO", "CONFIG_9P_FS" },
	  { "CONFIG_VIRTIO_FS" } },
	{ "share-virtiofs",
	  { "CONFIG_FUSE_FS", "CONFIG_VIRTIO_FS", "CONFIG_NET_9P_VIRTIO", "CONFIG_9P_FS" },
	  { "CONFIG_SUSPEND" } },
	/* a Debian root: an ext4 disk and an overlay (its xattrs on the
	 * tmpfs), no 9p; mkfs.xfs in a run step: XFS; fio (processes): System V
	 * IPC; an S3 on it */
	{ "fio-multipath-verify",
	  { "CONFIG_EXT4_FS", "CONFIG_VIRTIO_BLK", "CONFIG_OVERLAY_FS", "CONFIG_TMPFS_XATTR",
	    "CONFIG_NVME_MULTIPATH", "CONFIG_SYSVIPC" },
	  { "CONFIG_XFS_FS", "CONFIG_DM_MULTIPATH", "CONFIG_9P_FS", "CONFIG_NET_9P_VIRTIO" } },
	{ "nvme-4kn-format",
	  { "CONFIG_EXT4_FS", "CONFIG_OVERLAY_FS", "CONFIG_XFS_FS", "CONFIG_BLK_DEV_NVME",
	    "CONFIG_SUSPEND" },
	  { "CONFIG_9P_FS", "CONFIG_NVME_MULTIPATH", "CONFIG_SYSVIPC" } },
};

static const struct lib_case *lib_case(const char *name)
{
	for (size_t i = 0; i < sizeof(lib_cases) / sizeof(lib_cases[0]); i++)
		if (!strcmp(lib_cases[i].file, name))
			return &lib_cases[i];
	return NULL;
}

static void check_case(const char *name)
{
	const struct lib_case *c = lib_case(name);
	struct kreq_list l;
	struct scenario *s;
	char path[512];

	if (!c)
		print_error("scenarios/%s.yaml has no row in lib_cases\n", name);
	assert_non_null(c);
	snprintf(path, sizeof(path), LIBRARY "%s.yaml", name);
	s = load(path);
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	for (size_t i = 0; i < MAX_OPTS && c->has[i]; i++) {
		if (!find(&l, c->has[i]))
			print_error("%s: %s not derived\n", name, c->has[i]);
		assert_non_null(find(&l, c->has[i]));
	}
	for (size_t i = 0; i < MAX_OPTS && c->lacks[i]; i++) {
		if (find(&l, c->lacks[i]))
			print_error("%s: %s derived, but it has no part that needs it\n", name,
				    c->lacks[i]);
		assert_null(find(&l, c->lacks[i]));
	}
	/* the base needs first, in the base table's order */
	assert_string_equal(l.v[0].option, "CONFIG_SERIAL_8250");
	kreq_list_free(&l);
	scenario_free(s);
}

/* Every file of the library has a row, so a new scenario is looked at. */
static void test_library(void **state)
{
	struct dirent *de;
	unsigned n = 0;
	char name[256];
	size_t len;
	DIR *d = opendir(LIBRARY);

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		check_case(name);
		n++;
	}
	closedir(d);
	assert_int_equal(n, sizeof(lib_cases) / sizeof(lib_cases[0]));
}

/* ---- the reasons ---- */

static void test_reasons(void **state)
{
	struct scenario *s = load(LIBRARY "disk-4kn-nvme.yaml");
	struct kreq_list l;
	const struct kreq *r;

	(void)state;
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	r = find(&l, "CONFIG_BLK_DEV_NVME");
	assert_non_null(r);
	assert_string_equal(r->module, "nvme");
	assert_string_equal(r->why, "disk 'data' is on bus nvme");
	r = find(&l, "CONFIG_SERIAL_8250_CONSOLE");
	assert_null(r->module);
	kreq_list_free(&l);
	scenario_free(s);

	s = load(LIBRARY "mp-dm-bio-failover.yaml");
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	r = find(&l, "CONFIG_DM_MULTIPATH");
	assert_string_equal(r->module, "dm_multipath");
	assert_string_equal(r->why, "disk 'data' has 2 paths (dm-multipath, bio)");
	/* the same option from a second source: once, both reasons */
	r = find(&l, "CONFIG_BLK_DEV_DM");
	assert_string_equal(r->why, "disk 'data' has 2 paths (dm-multipath, bio); steps[1] runs "
				    "dmsetup");
	kreq_list_free(&l);
	scenario_free(s);

	/* a word of the community's tools, said without the space that ends it */
	s = load(LIBRARY "fio-multipath-verify.yaml");
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	assert_string_equal(find(&l, "CONFIG_SYSVIPC")->why, "steps[0] runs fio");
	kreq_list_free(&l);
	scenario_free(s);
	/* fio with --thread: its jobs share memory as threads, no shmget */
	s = load(DATA "good-fio-thread.yaml");
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	assert_null(find(&l, "CONFIG_SYSVIPC"));
	kreq_list_free(&l);
	scenario_free(s);

	s = load(LIBRARY "s4-hibernate.yaml");
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	r = find(&l, "CONFIG_HIBERNATION");
	assert_non_null(strstr(r->why, "machine.sleep offers s4"));
	assert_non_null(strstr(r->why, "suspends to s4"));
	kreq_list_free(&l);
	scenario_free(s);
}

/* kernel.requires: added after the derived ones, any module accepted. */
static void test_requires(void **state)
{
	struct scenario *s = load(DATA "good-requires.yaml");
	struct kreq_list l;
	const struct kreq *r;

	(void)state;
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	r = find(&l, "CONFIG_FTRACE");
	assert_non_null(r);
	assert_string_equal(r->why, "kernel.requires");
	assert_string_equal(l.v[l.n - 1].option, "CONFIG_FTRACE");
	assert_string_equal(l.v[l.n - 2].option, "CONFIG_KPROBES");
	kreq_list_free(&l);
	scenario_free(s);
}

/* kernel.requires: CONFIG_X=y must be built in (no module), CONFIG_X
 * takes any; the library's kunit-boot asks =y of KUnit and its suites,
 * which run at boot only when built in. */
static void test_requires_builtin(void **state)
{
	struct scenario *s = load(DATA "good-requires-builtin.yaml");
	struct kreq_list l;

	(void)state;
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	assert_null(find(&l, "CONFIG_KUNIT")->module);
	assert_string_equal(find(&l, "CONFIG_FTRACE")->module, "");
	/* an option a disk needs as a module, asked =y: built in it is */
	assert_null(find(&l, "CONFIG_BLK_DEV_NVME")->module);
	kreq_list_free(&l);
	scenario_free(s);
	s = load(LIBRARY "kunit-boot.yaml");
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	assert_null(find(&l, "CONFIG_KUNIT")->module);
	assert_null(find(&l, "CONFIG_LIST_KUNIT_TEST")->module);
	assert_null(find(&l, "CONFIG_KUNIT_EXAMPLE_TEST")->module);
	kreq_list_free(&l);
	scenario_free(s);
}

/* What no library scenario has: a wake by the ACPI button, a sleep state
 * left unverified, kernel.requires naming a derived option (one entry, the
 * derived module kept). */
static void test_button(void **state)
{
	struct scenario *s = load(DATA "good-requires-button.yaml");
	struct kreq_list l;
	const struct kreq *r;

	(void)state;
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	r = find(&l, "CONFIG_ACPI_BUTTON");
	assert_non_null(r);
	assert_string_equal(r->module, "button");
	assert_string_equal(r->why, "steps[0] wakes by button");
	assert_null(find(&l, "CONFIG_KEYBOARD_ATKBD"));
	assert_null(find(&l, "CONFIG_ACPI_SLEEP")); /* s3 offered, but not looked for */
	assert_null(find(&l, "CONFIG_PVH"));	    /* S3 boots the bzImage */
	assert_non_null(find(&l, "CONFIG_PM_SLEEP_DEBUG"));
	r = find(&l, "CONFIG_SUSPEND");
	assert_null(r->module);
	assert_string_equal(r->why, "steps[0] suspends to s2idle; kernel.requires");
	assert_string_equal(find(&l, "CONFIG_DM_MULTIPATH")->why,
			    "disk 'mp' has 2 paths (dm-multipath, bio)");
	kreq_list_free(&l);
	scenario_free(s);
}

/* Adding merges: one entry per option, a reason said once. */
static void test_list_add(void **state)
{
	struct kreq_list l = { NULL, 0 };

	(void)state;
	assert_int_equal(kreq_list_add(&l, "CONFIG_A", NULL, "one"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_B", "b", "two"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_A", "a", "three"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_A", NULL, "one"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_A", NULL, "three"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_A", NULL, "on"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_A", NULL, "ne"), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].why, "one; three; on; ne");
	assert_null(l.v[0].module);
	/* a module, then built in: both must hold, so built in it is */
	assert_int_equal(kreq_list_add(&l, "CONFIG_B", NULL, "two"), 0);
	assert_null(l.v[1].module);
	kreq_list_free(&l);
	assert_int_equal(l.n, 0);
}

/* ---- checking a config ---- */

struct fake_config {
	const char *const *values; /* "CONFIG_X", "y", ... NULL */
	const char *const *modules;
};

static const char *fake_value(void *ctx, const char *option)
{
	const struct fake_config *f = ctx;

	for (size_t i = 0; f->values[i]; i += 2)
		if (!strcmp(f->values[i], option))
			return f->values[i + 1];
	return NULL;
}

static bool fake_has_module(void *ctx, const char *module)
{
	const struct fake_config *f = ctx;

	for (size_t i = 0; f->modules && f->modules[i]; i++)
		if (!strcmp(f->modules[i], module))
			return true;
	return false;
}

static struct kreq_list small_list(void)
{
	struct kreq_list l = { NULL, 0 };

	assert_int_equal(kreq_list_add(&l, "CONFIG_NUMA", NULL, "machine.numa has 2 nodes"), 0);
	assert_int_equal(
	    kreq_list_add(&l, "CONFIG_BLK_DEV_NVME", "nvme", "disk 'data' is on bus nvme"), 0);
	assert_int_equal(kreq_list_add(&l, "CONFIG_FTRACE", "", "kernel.requires"), 0);
	return l;
}

static int check(const struct kreq_list *l, const char *const *values, const char *const *modules,
		 bool module_cb, char **msg)
{
	struct fake_config f = { values, modules };
	struct kreq_source src = { fake_value, module_cb ? fake_has_module : NULL, &f };

	return kreq_missing(l, &src, msg);
}

static void test_missing(void **state)
{
	static const char *const all_y[] = {
		"CONFIG_NUMA", "y", "CONFIG_BLK_DEV_NVME", "y", "CONFIG_FTRACE", "y", NULL
	};
	static const char *const nvme_m[] = {
		"CONFIG_NUMA", "y", "CONFIG_BLK_DEV_NVME", "m", "CONFIG_FTRACE", "m", NULL
	};
	static const char *const numa_m_no_nvme[] = { "CONFIG_NUMA", "m", "CONFIG_BLK_DEV_NVME",
						      "n", NULL };
	static const char *const with_nvme[] = { "nvme", NULL };
	static const char *const without[] = { "virtio_blk", NULL };
	struct kreq_list l = small_list();
	char *msg = (char *)"unset";

	(void)state;
	assert_int_equal(check(&l, all_y, NULL, true, &msg), 0);
	assert_null(msg);
	/* =m with the module there, or no way to ask: met */
	assert_int_equal(check(&l, nvme_m, with_nvme, true, &msg), 0);
	assert_null(msg);
	assert_int_equal(check(&l, nvme_m, NULL, false, &msg), 0);
	assert_null(msg);
	/* =m and the image lacks the module; kernel.requires takes any module */
	assert_int_equal(check(&l, nvme_m, without, true, &msg), 1);
	assert_string_equal(msg, "CONFIG_BLK_DEV_NVME=m but the image has no module nvme: "
				 "disk 'data' is on bus nvme");
	free(msg);
	/* =m where it must be built in; =n and absent are not set */
	assert_int_equal(check(&l, numa_m_no_nvme, with_nvme, true, &msg), 3);
	assert_string_equal(msg, "CONFIG_NUMA=m but it must be built in (=y): machine.numa has 2 "
				 "nodes\n"
				 "CONFIG_BLK_DEV_NVME is not set: disk 'data' is on bus nvme\n"
				 "CONFIG_FTRACE is not set: kernel.requires");
	free(msg);
	kreq_list_free(&l);
}

/* ---- Debian's 6.1 kernel (linux-image-6.1.0-57-amd64) meets the library ---- */

/* Every option the library asks for, as boot/config-6.1.0-57-amd64 sets it.
 * A new option in kreq.c's tables shows up here as unknown until its
 * Debian value is looked up and recorded. */
static const char *const debian61[] = { "CONFIG_SERIAL_8250",
					"y",
					"CONFIG_SERIAL_8250_CONSOLE",
					"y",
					"CONFIG_BLK_DEV_INITRD",
					"y",
					"CONFIG_BINFMT_ELF",
					"y",
					"CONFIG_FUTEX",
					"y",
					"CONFIG_PROC_FS",
					"y",
					"CONFIG_SYSFS",
					"y",
					"CONFIG_DEVTMPFS",
					"y",
					"CONFIG_TMPFS",
					"y",
					"CONFIG_UNIX98_PTYS",
					"y",
					"CONFIG_UNIX",
					"y",
					"CONFIG_PCI",
					"y",
					"CONFIG_ACPI",
					"y",
					"CONFIG_VIRTIO_MENU",
					"y",
					"CONFIG_VIRTIO_PCI",
					"m",
					"CONFIG_VIRTIO_CONSOLE",
					"m",
					"CONFIG_PVH",
					"y",
					"CONFIG_SMP",
					"y",
					"CONFIG_NUMA",
					"y",
					"CONFIG_ACPI_NUMA",
					"y",
					"CONFIG_ACPI_HMAT",
					"y",
					"CONFIG_HMEM_REPORTING",
					"y",
					"CONFIG_VIRTIO_BALLOON",
					"m",
					"CONFIG_PAGE_REPORTING",
					"y",
					"CONFIG_SUSPEND",
					"y",
					"CONFIG_ACPI_SLEEP",
					"y",
					"CONFIG_HIBERNATION",
					"y",
					"CONFIG_SWAP",
					"y",
					"CONFIG_PM_DEBUG",
					"y",
					"CONFIG_PM_SLEEP_DEBUG",
					"y",
					"CONFIG_VIRTIO_BLK",
					"m",
					"CONFIG_SCSI",
					"m",
					"CONFIG_BLK_DEV_SD",
					"m",
					"CONFIG_SCSI_VIRTIO",
					"m",
					"CONFIG_BLK_DEV_NVME",
					"m",
					"CONFIG_ATA",
					"m",
					"CONFIG_SATA_AHCI",
					"m",
					"CONFIG_MD",
					"y",
					"CONFIG_BLK_DEV_DM",
					"m",
					"CONFIG_DM_MULTIPATH",
					"m",
					"CONFIG_NVME_MULTIPATH",
					"y",
					"CONFIG_BLK_DEV_ZONED",
					"y",
					"CONFIG_RTC_CLASS",
					"y",
					"CONFIG_RTC_DRV_CMOS",
					"y",
					"CONFIG_SERIO_I8042",
					"y",
					"CONFIG_KEYBOARD_ATKBD",
					"y",
					"CONFIG_ACPI_BUTTON",
					"m",
					"CONFIG_ZSWAP",
					"y",
					"CONFIG_ZSWAP_COMPRESSOR_DEFAULT_LZO",
					"y",
					"CONFIG_CRYPTO_LZO",
					"y",
					"CONFIG_ZSWAP_ZPOOL_DEFAULT_ZBUD",
					"y",
					"CONFIG_ZBUD",
					"y",
					"CONFIG_VM_EVENT_COUNTERS",
					"y",
					"CONFIG_PSI",
					"y",
					"CONFIG_SHMEM",
					"y",
					"CONFIG_TMPFS",
					"y",
					"CONFIG_TMPFS_XATTR",
					"y",
					"CONFIG_SYSVIPC",
					"y",
					"CONFIG_DRM",
					"m",
					"CONFIG_DRM_BOCHS",
					"m",
					"CONFIG_FB",
					"y",
					"CONFIG_DRM_FBDEV_EMULATION",
					"y",
					"CONFIG_FRAMEBUFFER_CONSOLE",
					"y",
					"CONFIG_CGROUPS",
					"y",
					"CONFIG_INET",
					"y",
					"CONFIG_NETWORK_FILESYSTEMS",
					"y",
					"CONFIG_NET_9P",
					"m",
					"CONFIG_FUSE_FS",
					"m",
					"CONFIG_NET_9P_VIRTIO",
					"m",
					"CONFIG_9P_FS",
					"m",
					"CONFIG_VIRTIO_FS",
					"m",
					"CONFIG_OVERLAY_FS",
					"m",
					"CONFIG_EXT4_FS",
					"m",
					"CONFIG_XFS_FS",
					"m",
					"CONFIG_TRANSPARENT_HUGEPAGE",
					"y",
					"CONFIG_POSIX_TIMERS",
					"y",
					"CONFIG_POSIX_MQUEUE",
					"y",
					"CONFIG_MEMCG",
					"y",
					"CONFIG_COMPACTION",
					"y",
					"CONFIG_BASE_FULL",
					"y",
					"CONFIG_CHECKPOINT_RESTORE",
					"y",
					"CONFIG_MEM_SOFT_DIRTY",
					"y",
					"CONFIG_PROC_PAGE_MONITOR",
					"y",
					NULL };

/* images/default.yaml's modules and the dependencies the build adds. */
static const char *const debian61_modules[] = {
	"virtio_pci",	  "virtio_blk", "virtio_scsi",	"virtio_console",
	"virtio_balloon", "sd_mod",	"scsi_mod",	"nvme",
	"ahci",		  "libata",	"dm_mod",	"dm_multipath",
	"button",	  "9pnet",	"9pnet_virtio", "9p",
	"fuse",		  "virtiofs",	"overlay",	"xfs",
	"ext4",		  "jbd2",	"mbcache",	NULL
};

/* Every scenario of the library but kunit-boot runs on Debian's kernel. */
static void test_debian61(void **state)
{
	struct fake_config f = { debian61, debian61_modules };
	struct kreq_source src = { fake_value, fake_has_module, &f };
	struct kreq_list l;
	struct scenario *s;
	struct dirent *de;
	char path[512], *msg;
	size_t len;
	DIR *d = opendir(LIBRARY);

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), LIBRARY "%s", de->d_name);
		s = load(path);
		assert_int_equal(kreq_for_scenario(s, &l), 0);
		kreq_missing(&l, &src, &msg);
		/* KUnit is not in Debian's kernel: kunit-boot is for one's own */
		if (!strcmp(de->d_name, "kunit-boot.yaml")) {
			assert_non_null(msg);
			assert_non_null(strstr(msg, "CONFIG_KUNIT is not set: kernel.requires"));
			free(msg);
			msg = NULL;
		}
		if (msg)
			print_error("%s:\n%s\n", de->d_name, msg);
		assert_null(msg);
		kreq_list_free(&l);
		scenario_free(s);
	}
	closedir(d);
}

/* The minimal base: the base needs first (a kernel built from it must pass
 * the check that every scenario's base makes), then what tinyconfig lacks,
 * each option once and =y. */
static void test_minimal_base(void **state)
{
	struct kreq_list base, l;
	struct scenario *s = load(LIBRARY "smoke.yaml");
	bool seen64 = false;

	(void)state;
	assert_int_equal(kreq_minimal_base(NULL, &base), 0);
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	/* smoke's list starts with the 16 base needs, then its machine's */
	for (size_t i = 0; i < 16; i++)
		assert_string_equal(base.v[i].option, l.v[i].option);
	for (size_t i = 0; i < base.n; i++) {
		assert_null(base.v[i].module);
		assert_true(base.v[i].why[0]);
		seen64 |= !strcmp(base.v[i].option, "CONFIG_64BIT");
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(base.v[k].option, base.v[i].option);
	}
	assert_true(seen64);
	assert_true(base.n > l.n + 30);
	kreq_list_free(&l);
	kreq_list_free(&base);
	scenario_free(s);
}

static bool base_has(const struct kreq_list *l, const char *option)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].option, option))
			return true;
	return false;
}

/* A menu of one scenario option is in the base only with that option: a
 * set of scenarios without SCSI or NUMA gets a base tinyconfig takes whole
 * (SCSI_LOWLEVEL alone is not taken: SCSI is unset). */
static void test_minimal_base_menus(void **state)
{
	struct kreq_list needs = { NULL, 0 }, base;

	(void)state;
	assert_int_equal(kreq_minimal_base(&needs, &base), 0);
	assert_true(base_has(&base, "CONFIG_64BIT"));
	assert_false(base_has(&base, "CONFIG_SCSI_LOWLEVEL"));
	assert_false(base_has(&base, "CONFIG_X86_64_ACPI_NUMA"));
	assert_false(base_has(&base, "CONFIG_DM_MULTIPATH_QL"));
	assert_false(base_has(&base, "CONFIG_HYPERVISOR_GUEST"));
	kreq_list_free(&base);
	assert_int_equal(kreq_list_add(&needs, "CONFIG_SCSI_VIRTIO", "virtio_scsi", "x"), 0);
	assert_int_equal(kreq_list_add(&needs, "CONFIG_NUMA", NULL, "x"), 0);
	assert_int_equal(kreq_minimal_base(&needs, &base), 0);
	assert_true(base_has(&base, "CONFIG_SCSI_LOWLEVEL"));
	assert_true(base_has(&base, "CONFIG_X86_64_ACPI_NUMA"));
	assert_false(base_has(&base, "CONFIG_DM_MULTIPATH_QL"));
	kreq_list_free(&base);
	kreq_list_free(&needs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library),	     cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_requires),     cmocka_unit_test(test_requires_builtin),
		cmocka_unit_test(test_button),	     cmocka_unit_test(test_list_add),
		cmocka_unit_test(test_missing),	     cmocka_unit_test(test_debian61),
		cmocka_unit_test(test_minimal_base), cmocka_unit_test(test_minimal_base_menus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
