/* Hybrid disks in the machine model and the scenario loader: the QEMU
 * arguments (shared memfd RAM, vhost-user-blk, no blockdev), the back end's
 * command line, refusals with their fields, and the power_loss and
 * hybrid_stats steps' checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario.h"
#include "machine.h"
#include "machine_check.h"

static struct machine machine_with(struct disk *d, unsigned n)
{
	return (struct machine){ .cpus = 1, .memory = "512M", .disks = d, .disks_count = n };
}

static void test_qemu_args(void **state)
{
	struct disk d[2] = {
		{ .id = "fast", .bus = DISK_BUS_VIRTIO, .size = "64M" },
		{ .id = "hy", .bus = DISK_BUS_HYBRID, .size = "64M", .sector = DISK_SECTOR_4KN },
	};
	struct machine m = machine_with(d, 2);
	struct hw_launch l = { .disk_dir = "/w" };
	struct hw_error err;
	struct argv a;

	(void)state;
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_true(argv_has(&a, "memory-backend-memfd,id=ram0,size=536870912,share=on", false));
	assert_true(argv_has(&a, "memory-backend=ram0", false));
	assert_true(argv_has(&a, "socket,id=hy1,path=/w/hy.vhost", false));
	assert_true(argv_has(&a, "vhost-user-blk-pci,chardev=hy1,num-queues=1", false));
	assert_true(argv_has(&a, "node-name=d0", false)); /* the virtio disk keeps its blockdev */
	assert_false(argv_has(&a, "node-name=d1", false));
	argv_free(&a);
	assert_true(machine_has_hybrid(&m));
	assert_int_equal(hybrid_backend_argv(&d[1], &l, "ktb-hybrid", &a), 0);
	assert_true(argv_has(&a, "/w/hy.ctl", false));
	assert_true(argv_has(&a, "/w/hy.img", false));
	assert_true(argv_has(&a, "/w/hy.flash", false));
	assert_true(argv_has(&a, "4kn", false));
	assert_true(argv_has(&a, "33554432", false)); /* no settings: flash is half the disk */
	argv_free(&a);
}

static void test_numa_shared(void **state)
{
	unsigned c0[] = { 0 }, c1[] = { 1 };
	struct numa_node nodes[2] = { { c0, 1, "256M", 0 }, { c1, 1, "256M", 0 } };
	struct numa nu = { .nodes = nodes, .nodes_count = 2 };
	struct disk d = { .id = "hy", .bus = DISK_BUS_HYBRID, .size = "64M" };
	struct machine m = machine_with(&d, 1);
	struct hw_launch l = { .disk_dir = "/w" };
	struct hw_error err;
	struct argv a;

	(void)state;
	m.cpus = 2;
	m.numa = &nu;
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_true(argv_has(&a, "memory-backend-memfd,share=on,size=268435456,id=m1", false));
	assert_false(argv_has(&a, "memory-backend=ram0", false));
	assert_false(argv_has(&a, "memory-backend-ram", false));
	argv_free(&a);
}

static void expect_disk_refusal(struct disk *d, const char *field, const char *msg)
{
	struct machine m = machine_with(d, 1);

	expect_refusal(&m, field, msg);
}

static void test_refusals(void **state)
{
	struct hybrid h = { .cache = "128M" };
	char *pins[] = { "60M+8M" };
	struct disk d = { .id = "hy", .bus = DISK_BUS_HYBRID, .size = "64M", .hybrid = &h };

	(void)state;
	expect_disk_refusal(&d, "machine.disks[0].hybrid.cache", "no larger than the disk");
	h.cache = "100K";
	expect_disk_refusal(&d, "machine.disks[0].hybrid.cache", "multiple of 64K");
	h.cache = NULL;
	h.write_cache = "6K";
	expect_disk_refusal(&d, "machine.disks[0].hybrid.write_cache", "4K blocks");
	h.write_cache = "0";
	h.rpm = 99;
	expect_disk_refusal(&d, "machine.disks[0].hybrid.rpm", "1000 to 20000");
	h.rpm = 0;
	h.pin = pins;
	h.pin_count = 1;
	expect_disk_refusal(&d, "machine.disks[0].hybrid.pin[0]", "past the end");
	pins[0] = "16M";
	expect_disk_refusal(&d, "machine.disks[0].hybrid.pin[0]", "OFFSET+LENGTH");
	h.pin_count = 0;
	h.fail_writes = "1M+x";
	expect_disk_refusal(&d, "machine.disks[0].hybrid.fail_writes", "not a range");
	h.fail_writes = NULL;
	h.fail_reads = "64M+4K";
	expect_disk_refusal(&d, "machine.disks[0].hybrid.fail_reads", "past the end");
	h.fail_reads = NULL;
	d.bus = DISK_BUS_VIRTIO;
	expect_disk_refusal(&d, "machine.disks[0].hybrid", "bus: hybrid");
	d.bus = DISK_BUS_HYBRID;
	d.hybrid = NULL;
	d.size = "1000K";
	expect_disk_refusal(&d, "machine.disks[0].size", "multiple of 64K");
	d.size = "64M";
	d.image = "base.img";
	expect_disk_refusal(&d, "machine.disks[0].image", "no base image");
}

static void load_fails(const char *yaml, const char *want)
{
	char path[] = "/tmp/ktb-hybrid-scn-XXXXXX.yaml", buf[1024];
	struct scenario_error err;
	struct scenario *s = NULL;
	int fd = mkstemps(path, 5);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	assert_int_equal(scenario_load(path, &s, &err), -EINVAL);
	scenario_error_format(&err, buf, sizeof(buf));
	unlink(path);
	if (!strstr(buf, want))
		fail_msg("\"%s\" does not say \"%s\"", buf, want);
}

#define MACHINE                                                                                    \
	"name: t\nmachine:\n  disks:\n    - {id: hy, bus: hybrid, size: 64M}\n"                    \
	"    - {id: v, bus: virtio, size: 64M}\n"

static void test_steps(void **state)
{
	(void)state;
	load_fails(MACHINE "steps:\n  - power_loss: nope\n",
		   ":7:17: steps[0].power_loss: \"nope\" is not one of the machine's disks");
	load_fails(MACHINE "steps:\n  - power_loss: v\n", "disk \"v\" is not on bus hybrid");
	load_fails(MACHINE "steps:\n  - hybrid_stats: all\n", "steps[0].hybrid_stats");
	load_fails(MACHINE "steps:\n  - power_loss: all\n    expect: {exit: 0}\n",
		   "a power_loss step cannot check exit");
	load_fails(MACHINE "steps:\n  - power_loss: all\n    run: \"true\"\n", "two actions");
	load_fails("name: t\nmachine:\n  disks:\n    - {id: hy, bus: hybrid, size: 64M, "
		   "hybrid: {model: maybe}}\nsteps:\n  - run: \"true\"\n",
		   "model");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_args),
		cmocka_unit_test(test_numa_shared),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
