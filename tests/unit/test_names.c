/* The name tables of hw/names.h drive the parser, the renderers and the
 * messages: every name in each table round-trips from a scenario file to the
 * enum, and from the enum to what QEMU and libvirt are given; the lists the
 * messages print stay what the docs say. The expectations here are spelled
 * independently of the tables, so a name added to a table without its
 * renderer, or a renderer that drifts, fails here. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libvirt_xml.h"
#include "machine_check.h"
#include "scenario.h"
#include "util.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Load a scenario whose machine section is `machine` and steps `steps`. */
static struct scenario *load_text(const char *machine, const char *steps)
{
	char *path = tmp_template("ktb-test-names");
	char *doc = xasprintf("name: names\nmachine:\n%ssteps:\n%s", machine, steps);
	struct scenario_error err;
	struct scenario *s = NULL;
	char msg[1024];
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_file(path, doc, strlen(doc)), 0);
	ret = scenario_load(path, &s, &err);
	if (ret) {
		scenario_error_format(&err, msg, sizeof(msg));
		print_error("unexpected error: %s\n%s", msg, doc);
	}
	assert_int_equal(ret, 0);
	unlink(path);
	free(path);
	free(doc);
	return s;
}

static struct scenario *load_disk(const char *bus, const char *sector)
{
	char *machine = xasprintf("  disks:\n    - {id: d, bus: %s, size: 64M%s%s}\n", bus,
				  sector ? ", sector: " : "", sector ? sector : "");
	struct scenario *s = load_text(machine, "  - run: \"true\"\n");

	free(machine);
	return s;
}

static void argv_of(const struct machine *m, struct argv *a)
{
	struct hw_launch l = { .disk_dir = "/w" };
	struct hw_error err;

	assert_int_equal(machine_to_argv(m, &l, a, &err), 0);
}

static const struct {
	const char *name, *qemu_device;
	bool libvirt; /* the libvirt renderer presents it, as <target bus='NAME'> */
} buses[] = {
	{ "virtio", "virtio-blk-pci,", true },
	{ "scsi", "scsi-hd,", true },
	{ "nvme", "nvme-ns,", false },
	{ "sata", "ide-hd,", true },
	{ "hybrid", "vhost-user-blk-pci,", false },
};

static void bus_to_libvirt(const struct machine *m, unsigned b)
{
	struct hw_launch l = { .disk_dir = "/w" };
	struct hw_domain dom = { .name = "names" };
	struct hw_error err;
	char *xml = NULL, *want;

	if (!buses[b].libvirt) {
		assert_int_equal(machine_libvirt_check(m, &err), -EINVAL);
		want = xasprintf("cannot present %s disks", buses[b].name);
		assert_non_null(strstr(err.msg, want));
		free(want);
		return;
	}
	assert_int_equal(machine_to_domain_xml(m, &l, &dom, &xml, &err), 0);
	want = xasprintf("bus='%s'", buses[b].name);
	if (!strstr(xml, want))
		fail_msg("libvirt XML for bus %s lacks %s", buses[b].name, want);
	free(want);
	free(xml);
}

static void test_buses(void **state)
{
	(void)state;
	assert_int_equal(DISK_BUS_COUNT, COUNT(buses));
	for (unsigned b = 0; b < COUNT(buses); b++) {
		struct scenario *s = load_disk(buses[b].name, NULL);
		struct argv a;

		assert_string_equal(disk_bus_name((enum disk_bus)b), buses[b].name);
		assert_int_equal(s->machine->disks[0].bus, b);
		argv_of(s->machine, &a);
		if (!argv_has(&a, buses[b].qemu_device, false))
			fail_msg("bus %s has no %s device", buses[b].name, buses[b].qemu_device);
		argv_free(&a);
		bus_to_libvirt(s->machine, b);
		scenario_free(s);
	}
	assert_null(disk_bus_name(DISK_BUS_COUNT));
}

static const struct {
	const char *name;
	unsigned logical, physical;
} sectors[] = { { "512n", 512, 512 }, { "512e", 512, 4096 }, { "4kn", 4096, 4096 } };

static void test_sectors(void **state)
{
	(void)state;
	assert_int_equal(DISK_SECTOR_COUNT, COUNT(sectors));
	for (unsigned k = 0; k < COUNT(sectors); k++) {
		struct scenario *s = load_disk("scsi", sectors[k].name);
		char *want = xasprintf("logical_block_size=%u,physical_block_size=%u",
				       sectors[k].logical, sectors[k].physical);
		struct argv a;

		assert_string_equal(disk_sector_name((enum disk_sector)k), sectors[k].name);
		assert_int_equal(s->machine->disks[0].sector, k);
		argv_of(s->machine, &a);
		if (!argv_has(&a, want, false))
			fail_msg("sector %s: no %s", sectors[k].name, want);
		argv_free(&a);
		free(want);
		scenario_free(s);
	}
}

static void test_sleep(void **state)
{
	static const char *const names[] = { "s3", "s4" };

	(void)state;
	assert_int_equal(SLEEP_COUNT, COUNT(names));
	for (unsigned k = 0; k < COUNT(names); k++) {
		char *machine = xasprintf("  sleep: [%s]\n", names[k]);
		struct scenario *s = load_text(machine, "  - run: \"true\"\n");
		char *on = xasprintf("ICH9-LPC.disable_%s=0", names[k]);
		char *off = xasprintf("ICH9-LPC.disable_%s=1", names[1 - k]);
		struct argv a;

		assert_string_equal(sleep_name((enum sleep_bit)k), names[k]);
		assert_int_equal(s->machine->sleep, 1u << k);
		argv_of(s->machine, &a);
		assert_true(argv_has(&a, on, true));
		assert_true(argv_has(&a, off, true));
		argv_free(&a);
		free(off);
		free(on);
		free(machine);
		scenario_free(s);
	}
}

static void test_suspend_states(void **state)
{
	static const char *const names[] = { "s3", "s2idle", "s4" };

	(void)state;
	assert_int_equal(SLEEP_STATE_COUNT, COUNT(names));
	for (unsigned k = 0; k < COUNT(names); k++) {
		char *steps = xasprintf("  - suspend: %s\n", names[k]);
		struct scenario *s =
		    load_text("  sleep: [s3, s4]\n"
			      "  disks:\n    - {id: swap, bus: virtio, size: 64M}\n"
			      "  hibernate: {disk: swap}\n",
			      steps);

		assert_string_equal(sleep_state_name((enum sleep_state)k), names[k]);
		assert_int_equal(s->steps[0].sleep_state, k);
		free(steps);
		scenario_free(s);
	}
}

static void test_multipath_names(void **state)
{
	static const char *const modes[] = { "rq", "bio" }, *const no_paths[] = { "queue", "fail" };

	(void)state;
	assert_int_equal(MULTIPATH_MODE_COUNT, COUNT(modes));
	assert_int_equal(MULTIPATH_NO_PATH_COUNT, COUNT(no_paths));
	for (unsigned k = 0; k < 2; k++) {
		char *machine = xasprintf("  disks:\n    - {id: d, bus: scsi, size: 64M, paths: 2, "
					  "multipath: {mode: %s, no_path: %s}}\n",
					  modes[k], no_paths[k]);
		struct scenario *s = load_text(machine, "  - run: \"true\"\n");

		assert_string_equal(multipath_mode_name((enum multipath_mode)k), modes[k]);
		assert_string_equal(multipath_no_path_name((enum multipath_no_path)k), no_paths[k]);
		assert_int_equal(s->machine->disks[0].multipath->mode, k);
		assert_int_equal(s->machine->disks[0].multipath->no_path, k);
		free(machine);
		scenario_free(s);
	}
}

static void test_parts(void **state)
{
	static const char *const names[] = { "cpus", "memory", "numa",	  "disks", "balloon",
					     "hmat", "sleep",  "display", "shares" };

	(void)state;
	assert_int_equal(MACHINE_PART_COUNT, COUNT(names));
	for (unsigned k = 0; k < COUNT(names); k++) {
		char *machine = xasprintf("  unverified: [%s]\n", names[k]);
		struct scenario *s = load_text(machine, "  - run: \"true\"\n");

		assert_string_equal(machine_part_str((enum machine_part)k), names[k]);
		assert_int_equal(s->machine->unverified, MACHINE_PART_BIT(k));
		free(machine);
		scenario_free(s);
	}
}

static void test_hybrid_models(void **state)
{
	static const char *const names[] = { "on", "off" };
	struct hw_launch l = { .disk_dir = "/w" };

	(void)state;
	assert_int_equal(HYBRID_MODEL_COUNT, COUNT(names));
	for (unsigned k = 0; k < COUNT(names); k++) {
		char *machine = xasprintf("  disks:\n    - {id: h, bus: hybrid, size: 64M, "
					  "hybrid: {model: %s}}\n",
					  names[k]);
		struct scenario *s = load_text(machine, "  - run: \"true\"\n");
		struct argv a;
		size_t i;

		assert_string_equal(hybrid_model_name((enum hybrid_model)k), names[k]);
		assert_int_equal(s->machine->disks[0].hybrid->model, k);
		assert_int_equal(hybrid_backend_argv(&s->machine->disks[0], &l, "hy", &a), 0);
		for (i = 0; i + 1 < a.n && strcmp(a.v[i], "--model"); i++)
			;
		assert_true(i + 1 < a.n);
		assert_string_equal(a.v[i + 1], names[k]);
		argv_free(&a);
		free(machine);
		scenario_free(s);
	}
}

/* The lists messages and usage print (docs/scenarios.md, docs/cli.md). */
static void test_lists(void **state)
{
	(void)state;
	assert_string_equal(HW_NAMES_LIST(DISK_BUS_TABLE), "virtio, scsi, nvme, sata, hybrid");
	assert_string_equal(HW_NAMES_ALTS(DISK_BUS_TABLE), "virtio|scsi|nvme|sata|hybrid");
	assert_string_equal(HW_NAMES_LIST(DISK_SECTOR_TABLE), "512n, 512e, 4kn");
	assert_string_equal(HW_NAMES_ALTS(DISK_SECTOR_TABLE), "512n|512e|4kn");
	assert_string_equal(HW_NAMES_LIST(SLEEP_STATE_TABLE), "s3, s2idle, s4");
	assert_string_equal(HW_NAMES_LIST(SLEEP_TABLE), "s3, s4");
	assert_string_equal(HW_NAMES_LIST(HMAT_ASSOC_TABLE), "none, direct, complex");
	assert_string_equal(HW_NAMES_LIST(HMAT_POLICY_TABLE), "none, write-back, write-through");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buses),		cmocka_unit_test(test_sectors),
		cmocka_unit_test(test_sleep),		cmocka_unit_test(test_suspend_states),
		cmocka_unit_test(test_multipath_names), cmocka_unit_test(test_parts),
		cmocka_unit_test(test_hybrid_models),	cmocka_unit_test(test_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
