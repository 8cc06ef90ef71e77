/* Machine model: sizes, validation refusals (field + message), the exact
 * QEMU arguments per bus, sector geometry, NUMA, sleep states and launch
 * options, and the disk images a run creates. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "machine.h"
#include "spawn.h"
#include "machine_check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_parse_size(void **state)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t bytes;
	} cases[] = {
		{ "512", 0, 512 },
		{ "4K", 0, 4096 },
		{ "4k", 0, 4096 },
		{ "256M", 0, 256ull << 20 },
		{ "1G", 0, 1ull << 30 },
		{ "16T", 0, 16ull << 40 },
		{ "17T", -ERANGE, 0 },
		{ "16385G", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "0", -EINVAL, 0 },
		{ "0M", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "1.5G", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "1GB", -EINVAL, 0 },
		{ " 1G", -EINVAL, 0 },
		{ "1P", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
	};
	uint64_t v;

	(void)state;
	assert_int_equal(hw_parse_size(NULL, &v), -EINVAL);
	for (size_t i = 0; i < N(cases); i++) {
		v = 0;
		if (hw_parse_size(cases[i].s, &v) != cases[i].ret || v != cases[i].bytes)
			fail_msg("hw_parse_size(\"%s\") = %llu", cases[i].s, (unsigned long long)v);
	}
}

/* ---- validation ---- */

static struct disk disk(const char *id, enum disk_bus bus, const char *size,
			enum disk_sector sector)
{
	return (
	    struct disk){ .id = (char *)id, .bus = bus, .size = (char *)size, .sector = sector };
}

static void expect_valid(struct machine *m)
{
	struct hw_error err;

	if (machine_validate(m, &err))
		fail_msg("%s: %s", err.field, err.msg);
}

static void test_validate_basics(void **state)
{
	struct machine m = { 0 };

	(void)state;
	expect_valid(&m);
	assert_int_equal(m.cpus, 1);
	assert_int_equal(m.memory_bytes, 512ull << 20);
	m.cpus = 65;
	expect_refusal(&m, "machine.cpus", "65 cpus; give 1 to 64");
	m.cpus = 64;
	m.memory = "32M";
	expect_refusal(&m, "machine.memory", "32M is too little for a kernel; give at least 64M");
	m.memory = "two gigs";
	expect_refusal(&m, "machine.memory", "\"two gigs\" is not a size");
	m.memory = "65537K";
	expect_refusal(&m, "machine.memory", "not a whole number of megabytes");
	m.memory = "64M";
	m.sleep = 1u << 5;
	expect_refusal(&m, "machine.sleep", "unknown sleep state");
}

static void test_validate_disks(void **state)
{
	static const struct {
		struct disk d;
		const char *field, *msg;
	} cases[] = {
		{ { .id = "a-very-long-serial-21", .size = "1M" },
		  "machine.disks[1].id",
		  "use 1 to 20 letters" },
		{ { .id = "a b", .size = "1M" }, "machine.disks[1].id", "is not a disk id" },
		{ { .id = "", .size = "1M" }, "machine.disks[1].id", "is not a disk id" },
		{ { .id = "ok", .size = "0" }, "machine.disks[1].size", "is not a size" },
		{ { .id = "ok", .size = "32T" }, "machine.disks[1].size", "larger than the 16T" },
		{ { .id = "ok", .size = "3000", .sector = DISK_SECTOR_4KN, .bus = DISK_BUS_SCSI },
		  "machine.disks[1].size",
		  "not a multiple of the 4kn disk's 4096-byte sectors" },
		{ { .id = "ok", .size = "1536", .sector = DISK_SECTOR_512E },
		  "machine.disks[1].size",
		  "not a multiple of the 512e disk's 4096-byte" },
		{ { .id = "ok", .size = "1M", .sector = DISK_SECTOR_4KN, .bus = DISK_BUS_SATA },
		  "machine.disks[1].sector",
		  "ide-hd cannot present 4096-byte logical sectors" },
		{ { .id = "ok", .size = "1M", .sector = DISK_SECTOR_512E, .bus = DISK_BUS_NVME },
		  "machine.disks[1].sector",
		  "nvme-ns reports 512/512 for 512e" },
		{ { .id = "ok", .size = "1M", .paths = 2, .bus = DISK_BUS_VIRTIO },
		  "machine.disks[1].paths",
		  "paths > 1 on virtio: QEMU gives this bus one path" },
		{ { .id = "ok", .size = "1M", .paths = 2, .bus = DISK_BUS_SATA },
		  "machine.disks[1].paths",
		  "paths > 1 on sata" },
		{ { .id = "ok", .size = "1000K", .bus = DISK_BUS_HYBRID },
		  "machine.disks[1].size",
		  "a hybrid disk's size is a multiple of 64K" },
		{ { .id = "first", .size = "1M" },
		  "machine.disks[1].id",
		  "\"first\" is already the id of machine.disks[0]" },
	};
	struct disk disks[2] = { disk("first", DISK_BUS_VIRTIO, "1M", DISK_SECTOR_512N) };
	struct machine m = { .disks = disks, .disks_count = 2 };

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		disks[1] = cases[i].d;
		expect_refusal(&m, cases[i].field, cases[i].msg);
	}
	disks[1] = disk("second", DISK_BUS_SATA, "4K", DISK_SECTOR_512E);
	disks[1].paths = 1;
	expect_valid(&m);
	assert_int_equal(disks[1].size_bytes, 4096);
}

static void test_validate_multipath_zoned(void **state)
{
	static struct multipath bio = { MULTIPATH_BIO, MULTIPATH_QUEUE };
	static struct zoned z8 = { "8M", 0 }, z24 = { "24M", 0 }, zodd = { "1536K", 0 };
	static struct zoned zbad = { "eight", 0 };
	static const struct {
		struct disk d;
		const char *field, *msg;
	} cases[] = {
		{ { .id = "ok", .size = "64M", .paths = 5, .bus = DISK_BUS_NVME },
		  "machine.disks[1].paths",
		  "5 paths; a disk takes at most 4" },
		{ { .id = "ok",
		    .size = "64M",
		    .paths = 2,
		    .bus = DISK_BUS_NVME,
		    .multipath = &bio },
		  "machine.disks[1].multipath",
		  "native NVMe multipath, which has no mode" },
		{ { .id = "ok",
		    .size = "64M",
		    .paths = 1,
		    .bus = DISK_BUS_SCSI,
		    .multipath = &bio },
		  "machine.disks[1].multipath",
		  "multipath needs paths: 2 or more" },
		{ { .id = "ok", .size = "64M", .bus = DISK_BUS_SCSI, .zoned = &z8 },
		  "machine.disks[1].zoned",
		  "use bus: nvme" },
		{ { .id = "ok", .size = "64M", .bus = DISK_BUS_VIRTIO, .zoned = &z8 },
		  "machine.disks[1].zoned",
		  "use bus: nvme" },
		{ { .id = "ok", .size = "64M", .bus = DISK_BUS_NVME, .zoned = &z24 },
		  "machine.disks[1].zoned.zone_size",
		  "24M does not divide the disk's 64M" },
		{ { .id = "ok", .size = "64M", .bus = DISK_BUS_NVME, .zoned = &zodd },
		  "machine.disks[1].zoned.zone_size",
		  "not a whole number of megabytes" },
		{ { .id = "ok", .size = "64M", .bus = DISK_BUS_NVME, .zoned = &zbad },
		  "machine.disks[1].zoned.zone_size",
		  "is not a size" },
	};
	struct disk disks[2] = { disk("first", DISK_BUS_VIRTIO, "1M", DISK_SECTOR_512N) };
	struct machine m = { .disks = disks, .disks_count = 2 };

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		disks[1] = cases[i].d;
		expect_refusal(&m, cases[i].field, cases[i].msg);
	}
	disks[1] = (struct disk){
		.id = "mp", .size = "64M", .paths = 4, .bus = DISK_BUS_SCSI, .multipath = &bio
	};
	expect_valid(&m);
	disks[1] = (struct disk){
		.id = "z", .size = "64M", .paths = 2, .bus = DISK_BUS_NVME, .zoned = &z8
	};
	expect_valid(&m);
	assert_int_equal(z8.zone_size_bytes, 8ull << 20);
}

static void test_validate_sata_ports(void **state)
{
	static const char *const ids[] = { "s0", "s1", "s2", "s3", "s4", "s5", "s6" };
	struct disk disks[7];
	struct machine m = { .disks = disks, .disks_count = 6 };

	(void)state;
	for (unsigned i = 0; i < N(disks); i++)
		disks[i] = disk(ids[i], DISK_BUS_SATA, "1M", DISK_SECTOR_512N);
	expect_valid(&m);
	m.disks_count = 7;
	expect_refusal(&m, "machine.disks[6].bus", "more than 6 sata disks");
	disks[6].bus = DISK_BUS_NVME;
	expect_valid(&m);
}

/* Two cpus, 1G, two nodes of 512M on cpus 0 and 1; tests bend one thing. */
struct numa_fixture {
	unsigned cpus0[2], cpus1[2];
	struct numa_node nodes[9];
	unsigned dist[4];
	struct numa numa;
	struct machine m;
};

static void numa_fixture_init(struct numa_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->cpus0[0] = 0;
	f->cpus1[0] = 1;
	f->nodes[0] = (struct numa_node){ f->cpus0, 1, "512M", 0 };
	f->nodes[1] = (struct numa_node){ f->cpus1, 1, "512M", 0 };
	memcpy(f->dist, (unsigned[]){ 10, 20, 20, 10 }, sizeof(f->dist));
	f->numa = (struct numa){
		.nodes = f->nodes, .nodes_count = 2, .distances = f->dist, .distances_count = 4
	};
	f->m = (struct machine){ .cpus = 2, .memory = "1G", .numa = &f->numa };
}

static void test_validate_numa(void **state)
{
	struct numa_fixture f;

	(void)state;
	numa_fixture_init(&f);
	expect_valid(&f.m);
	assert_int_equal(f.nodes[1].memory_bytes, 512ull << 20);

	f.numa.nodes_count = 0;
	expect_refusal(&f.m, "machine.numa.nodes", "0 nodes; give 1 to 8");
	f.numa.nodes_count = 9;
	expect_refusal(&f.m, "machine.numa.nodes", "9 nodes; give 1 to 8");

	numa_fixture_init(&f);
	f.cpus1[0] = 5;
	expect_refusal(&f.m, "machine.numa.nodes[1].cpus[0]",
		       "cpu 5 does not exist: the machine has 2 cpus (0..1)");
	f.cpus1[0] = 0;
	expect_refusal(&f.m, "machine.numa.nodes[1].cpus[0]", "cpu 0 is already in node 0");
	f.nodes[1].cpus_count = 0;
	expect_refusal(&f.m, "machine.numa.nodes", "cpu 1 is in no node");

	numa_fixture_init(&f);
	f.nodes[1].memory = "256M";
	expect_refusal(&f.m, "machine.numa.nodes",
		       "node memories add up to 768M but machine.memory is 1G");
	f.nodes[1].memory = "lots";
	expect_refusal(&f.m, "machine.numa.nodes[1].memory", "\"lots\" is not a size");
}

static void test_validate_distances(void **state)
{
	static const struct {
		unsigned d[4];
		const char *field, *msg;
	} cases[] = {
		{ { 11, 20, 20, 10 }, "machine.numa.distances[0][0]", "11 on the diagonal" },
		{ { 10, 20, 30, 10 },
		  "machine.numa.distances[0][1]",
		  "20 but distances[1][0] is 30; distances must be symmetric" },
		{ { 10, 10, 10, 10 }, "machine.numa.distances[0][1]", "10 is out of range" },
		{ { 10, 300, 300, 10 },
		  "machine.numa.distances[0][1]",
		  "300 is out of range; a "
		  "distance between two nodes is 11..255" },
	};
	struct numa_fixture f;

	(void)state;
	numa_fixture_init(&f);
	for (size_t i = 0; i < N(cases); i++) {
		memcpy(f.dist, cases[i].d, sizeof(f.dist));
		expect_refusal(&f.m, cases[i].field, cases[i].msg);
	}
	memcpy(f.dist, (unsigned[]){ 10, 255, 255, 10 }, sizeof(f.dist));
	expect_valid(&f.m);
	f.numa.distances_count = 3;
	expect_refusal(&f.m, "machine.numa.distances", "give a 2 x 2 matrix");
	f.numa.distances = NULL;
	f.numa.distances_count = 0;
	expect_valid(&f.m);
}

/* ---- QEMU arguments ---- */

static const struct hw_launch launch = {
	.kernel = "/k/vmlinux",
	.initrd = "/k/initrd",
	.append = "console=ttyS0 quiet",
	.qmp_path = "/run/x/qmp.sock",
	.qga_path = "/run/x/qga.sock",
	.disk_dir = "/run/x",
};

static void to_argv(struct machine *m, const struct hw_launch *l, struct argv *a)
{
	struct hw_error err;

	expect_valid(m);
	if (machine_to_argv(m, l, a, &err))
		fail_msg("%s: %s", err.field, err.msg);
	assert_null(a->v[a->n]);
}

/* want[] must appear in a, in this order (other arguments may sit between). */
static void assert_in_order(const struct argv *a, const char *const *want)
{
	size_t j = 0;

	for (size_t i = 0; want[i]; i++) {
		while (j < a->n && strcmp(a->v[j], want[i]))
			j++;
		if (j == a->n)
			fail_msg("argument \"%s\" missing or out of order", want[i]);
		j++;
	}
}

static size_t count_arg(const struct argv *a, const char *s)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += !strcmp(a->v[i], s);
	return n;
}

static void test_argv_base(void **state)
{
	static const char *const want[] = {
		"qemu-system-x86_64",
		"-accel",
		"tcg",
		"-cpu",
		"max,erms=off,fsrm=off",
		"-machine",
		"q35",
		"-m",
		"512M",
		"-smp",
		"1",
		"-nodefaults",
		"-display",
		"none",
		"-no-reboot",
		"-no-user-config",
		"-serial",
		"stdio",
		"-global",
		"ICH9-LPC.disable_s3=1",
		"-global",
		"ICH9-LPC.disable_s4=1",
		"-kernel",
		"/k/vmlinux",
		"-initrd",
		"/k/initrd",
		"-append",
		"console=ttyS0 quiet",
		"-qmp",
		"unix:/run/x/qmp.sock,server=on,wait=off",
		"-chardev",
		"socket,id=qga0,path=/run/x/qga.sock,server=on,wait=off",
		"-device",
		"virtio-serial-pci",
		"-device",
		"virtserialport,chardev=qga0,name=org.qemu.guest_agent.0",
	};
	struct machine m = { 0 };
	struct argv a;

	(void)state;
	to_argv(&m, &launch, &a);
	assert_int_equal(a.n, N(want));
	for (size_t i = 0; i < N(want); i++)
		assert_string_equal(a.v[i], want[i]);
	argv_free(&a);
	assert_null(a.v);
}

/* A display only when declared, each model as its QEMU device (test_argv_base
 * shows a machine without display: has no -device of any display). */
static void test_argv_display(void **state)
{
	static const char *const dev[] = { "bochs-display", "VGA", "virtio-vga" };
	static const enum display_model model[] = { DISPLAY_BOCHS, DISPLAY_VGA, DISPLAY_VIRTIO };

	(void)state;
	for (size_t i = 0; i < N(dev); i++) {
		struct machine m = { .display = model[i] };
		struct argv a;

		to_argv(&m, &launch, &a);
		assert_string_equal(a.v[a.n - 1], dev[i]);
		assert_string_equal(a.v[a.n - 2], "-device");
		/* the harness reads the screen through QMP; no window */
		assert_in_order(&a, (const char *const[]){ "-display", "none", NULL });
		argv_free(&a);
	}
}

/* --gdb: QEMU's gdb server on the loopback, and with --gdb-wait the CPUs
 * held (-S); without, neither (test_argv_base). */
static void test_argv_gdb(void **state)
{
	struct hw_launch l = launch;
	struct machine m = { 0 };
	struct argv a;

	(void)state;
	l.gdb_port = 1234;
	to_argv(&m, &l, &a);
	assert_in_order(&a, (const char *const[]){ "-gdb", "tcp:127.0.0.1:1234", NULL });
	for (size_t i = 0; i < a.n; i++)
		assert_string_not_equal(a.v[i], "-S");
	argv_free(&a);
	l.gdb_wait = true;
	to_argv(&m, &l, &a);
	assert_in_order(&a, (const char *const[]){ "-gdb", "tcp:127.0.0.1:1234", "-S", NULL });
	argv_free(&a);
}

/* --dump: the vmcoreinfo and pvpanic devices and a pause on panic; without,
 * none of them (the plain machine stays as it was). */
static void test_argv_dump(void **state)
{
	struct hw_launch l = launch;
	struct machine m = { 0 };
	struct argv a;

	(void)state;
	to_argv(&m, &l, &a);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_not_equal(a.v[i], "vmcoreinfo");
		assert_string_not_equal(a.v[i], "-action");
	}
	argv_free(&a);
	l.dump_ready = true;
	to_argv(&m, &l, &a);
	assert_in_order(&a, (const char *const[]){ "-device", "vmcoreinfo", NULL });
	assert_in_order(&a, (const char *const[]){ "-device", "pvpanic", NULL });
	assert_in_order(&a, (const char *const[]){ "-action", "panic=pause", NULL });
	argv_free(&a);
}

static void test_argv_kvm_interactive(void **state)
{
	struct hw_launch l = launch;
	struct machine m = { .cpus = 4, .memory = "2G", .sleep = SLEEP_S3 };
	struct argv a;

	(void)state;
	l.kvm = true;
	l.interactive = true;
	l.qemu = "/opt/qemu/bin/qemu-system-x86_64";
	l.qga_path = NULL;
	to_argv(&m, &l, &a);
	assert_in_order(
	    &a, (const char *const[]){ "/opt/qemu/bin/qemu-system-x86_64", "-accel", "kvm", "-cpu",
				       "host", "-m", "2048M", "-smp", "4", "-serial", "mon:stdio",
				       "ICH9-LPC.disable_s3=0", "ICH9-LPC.disable_s4=1", NULL });
	assert_int_equal(count_arg(&a, "-chardev"), 0);
	assert_true(machine_needs_bios_boot(&m));
	argv_free(&a);
}

static void test_argv_sleep_s4(void **state)
{
	struct machine m = { .sleep = SLEEP_S4 };
	struct argv a;

	(void)state;
	to_argv(&m, &launch, &a);
	assert_in_order(&a, (const char *const[]){ "-global", "ICH9-LPC.disable_s3=1", "-global",
						   "ICH9-LPC.disable_s4=0", NULL });
	assert_false(machine_needs_bios_boot(&m));
	argv_free(&a);
}

/* One disk per row: the device arguments it must produce. */
static const struct {
	enum disk_bus bus;
	enum disk_sector sector;
	bool rotational;
	const char *dev[3];
} bus_cases[] = {
	{ DISK_BUS_VIRTIO,
	  DISK_SECTOR_512N,
	  false,
	  { "virtio-blk-pci,drive=d0,serial=data,"
	    "logical_block_size=512,physical_block_size=512" } },
	{ DISK_BUS_VIRTIO,
	  DISK_SECTOR_512E,
	  false,
	  { "virtio-blk-pci,drive=d0,serial=data,"
	    "logical_block_size=512,physical_block_size=4096" } },
	{ DISK_BUS_VIRTIO,
	  DISK_SECTOR_4KN,
	  true,
	  { "virtio-blk-pci,drive=d0,serial=data,"
	    "logical_block_size=4096,physical_block_size=4096" } },
	{ DISK_BUS_SCSI,
	  DISK_SECTOR_512N,
	  false,
	  { "virtio-scsi-pci,id=scsi0",
	    "scsi-hd,"
	    "bus=scsi0.0,drive=d0,serial=data,logical_block_size=512,physical_block_size=512,"
	    "rotation_rate=1" } },
	{ DISK_BUS_SCSI,
	  DISK_SECTOR_512E,
	  true,
	  { "virtio-scsi-pci,id=scsi0",
	    "scsi-hd,"
	    "bus=scsi0.0,drive=d0,serial=data,logical_block_size=512,physical_block_size=4096" } },
	{ DISK_BUS_SCSI,
	  DISK_SECTOR_4KN,
	  false,
	  { "virtio-scsi-pci,id=scsi0",
	    "scsi-hd,"
	    "bus=scsi0.0,drive=d0,serial=data,logical_block_size=4096,physical_block_size=4096,"
	    "rotation_rate=1" } },
	{ DISK_BUS_NVME,
	  DISK_SECTOR_512N,
	  false,
	  { "nvme,serial=data,id=nvme0",
	    "nvme-ns,"
	    "bus=nvme0,drive=d0,nsid=1,logical_block_size=512,physical_block_size=512" } },
	{ DISK_BUS_NVME,
	  DISK_SECTOR_4KN,
	  false,
	  { "nvme,serial=data,id=nvme0",
	    "nvme-ns,"
	    "bus=nvme0,drive=d0,nsid=1,logical_block_size=4096,physical_block_size=4096" } },
	{ DISK_BUS_SATA,
	  DISK_SECTOR_512N,
	  true,
	  { "ide-hd,bus=ide.0,drive=d0,serial=data,"
	    "logical_block_size=512,physical_block_size=512" } },
	{ DISK_BUS_SATA,
	  DISK_SECTOR_512E,
	  false,
	  { "ide-hd,bus=ide.0,drive=d0,serial=data,"
	    "logical_block_size=512,physical_block_size=4096,rotation_rate=1" } },
};

static void test_argv_buses(void **state)
{
	struct disk d;
	struct machine m = { .disks = &d, .disks_count = 1 };
	struct argv a;

	(void)state;
	for (size_t i = 0; i < N(bus_cases); i++) {
		d = disk("data", bus_cases[i].bus, "64M", bus_cases[i].sector);
		d.rotational = bus_cases[i].rotational;
		to_argv(&m, &launch, &a);
		assert_in_order(
		    &a, (const char *const[]){
			    "-qmp", "-blockdev",
			    "driver=file,node-name=d0,filename=/run/x/data.img,cache.direct=off",
			    "-device", bus_cases[i].dev[0], NULL });
		if (bus_cases[i].dev[1])
			assert_in_order(&a, (const char *const[]){ "-blockdev", bus_cases[i].dev[0],
								   "-device", bus_cases[i].dev[1],
								   NULL });
		argv_free(&a);
	}
}

static void test_argv_many_disks(void **state)
{
	struct disk disks[] = {
		disk("s1", DISK_BUS_SCSI, "1M", DISK_SECTOR_512N),
		disk("n1", DISK_BUS_NVME, "1M", DISK_SECTOR_512N),
		disk("a1", DISK_BUS_SATA, "1M", DISK_SECTOR_512N),
		disk("s2", DISK_BUS_SCSI, "1M", DISK_SECTOR_4KN),
		disk("n2", DISK_BUS_NVME, "1M", DISK_SECTOR_4KN),
		disk("a2", DISK_BUS_SATA, "1M", DISK_SECTOR_512E),
	};
	struct machine m = { .disks = disks, .disks_count = N(disks) };
	struct argv a;

	(void)state;
	for (unsigned i = 0; i < N(disks); i++)
		disks[i].rotational = true;
	to_argv(&m, &launch, &a);
	assert_int_equal(count_arg(&a, "virtio-scsi-pci,id=scsi0"), 1);
	assert_in_order(
	    &a,
	    (const char *const[]){
		"driver=file,node-name=d0,filename=/run/x/s1.img,cache.direct=off",
		"virtio-scsi-pci,id=scsi0",
		"scsi-hd,bus=scsi0.0,drive=d0,serial=s1,logical_block_size=512,"
		"physical_block_size=512",
		"nvme,serial=n1,id=nvme0",
		"nvme-ns,bus=nvme0,drive=d1,nsid=1,logical_block_size=512,physical_block_size=512",
		"ide-hd,bus=ide.0,drive=d2,serial=a1,logical_block_size=512,physical_block_size="
		"512",
		"scsi-hd,bus=scsi0.0,drive=d3,serial=s2,logical_block_size=4096,"
		"physical_block_size=4096",
		"nvme,serial=n2,id=nvme1",
		"nvme-ns,bus=nvme1,drive=d4,nsid=1,logical_block_size=4096,"
		"physical_block_size=4096",
		"ide-hd,bus=ide.1,drive=d5,serial=a2,logical_block_size=512,"
		"physical_block_size=4096",
		NULL });
	argv_free(&a);
}

static void test_argv_multipath_nvme(void **state)
{
	static struct zoned z = { "8M", 0 };
	struct disk disks[] = { disk("boot", DISK_BUS_VIRTIO, "1M", DISK_SECTOR_512N),
				disk("mp", DISK_BUS_NVME, "64M", DISK_SECTOR_4KN) };
	struct machine m = { .disks = disks, .disks_count = 2 };
	struct argv a;
	char dev[256];

	(void)state;
	disks[1].paths = 2;
	disks[1].zoned = &z;
	to_argv(&m, &launch, &a);
	assert_in_order(
	    &a, (const char *const[]){
		    "driver=file,node-name=d1,filename=/run/x/mp.img,cache.direct=off",
		    "nvme-subsys,id=d1ss,nqn=mp", "pcie-root-port,id=d1rp0,chassis=5,slot=5",
		    "nvme,serial=mp,subsys=d1ss,id=d1c0,bus=d1rp0",
		    "pcie-root-port,id=d1rp1,chassis=6,slot=6",
		    "nvme,serial=mp,subsys=d1ss,id=d1c1,bus=d1rp1",
		    "nvme-ns,bus=d1c0,drive=d1,nsid=1,shared=on,logical_block_size=4096,"
		    "physical_block_size=4096,zoned=true,zoned.zone_size=8M",
		    NULL });
	argv_free(&a);
	assert_int_equal(machine_path_device(&m, 1, 1, dev, sizeof(dev)), 0);
	assert_string_equal(dev, "nvme,serial=mp,subsys=d1ss,id=d1c1,bus=d1rp1");
	assert_int_equal(machine_path_device(&m, 1, 2, dev, sizeof(dev)), -EINVAL);
	assert_int_equal(machine_path_device(&m, 0, 0, dev, sizeof(dev)), -EINVAL);
	assert_int_equal(machine_path_device(&m, 2, 0, dev, sizeof(dev)), -EINVAL);
}

static void test_argv_multipath_scsi(void **state)
{
	struct disk disks[] = { disk("s", DISK_BUS_SCSI, "1M", DISK_SECTOR_512N),
				disk("mp", DISK_BUS_SCSI, "64M", DISK_SECTOR_512E) };
	struct machine m = { .disks = disks, .disks_count = 2 };
	struct argv a;
	char dev[320];

	(void)state;
	disks[1].paths = 2;
	to_argv(&m, &launch, &a);
	/* the single-path disk keeps the shared HBA, each path gets its own */
	assert_int_equal(count_arg(&a, "virtio-scsi-pci,id=scsi0"), 1);
	assert_in_order(
	    &a,
	    (const char *const[]){
		"virtio-scsi-pci,id=scsi0", "virtio-scsi-pci,id=d1hba0",
		"scsi-hd,bus=d1hba0.0,scsi-id=0,id=d1p0,drive=d1,serial=mp,wwn=0x5000c50000000002,"
		"share-rw=on,logical_block_size=512,physical_block_size=4096,rotation_rate=1",
		"virtio-scsi-pci,id=d1hba1",
		"scsi-hd,bus=d1hba1.0,scsi-id=1,id=d1p1,drive=d1,serial=mp,wwn=0x5000c50000000002,"
		"share-rw=on,logical_block_size=512,physical_block_size=4096,rotation_rate=1",
		NULL });
	argv_free(&a);
	assert_int_equal(machine_path_device(&m, 1, 0, dev, sizeof(dev)), 0);
	assert_true(!strncmp(dev, "scsi-hd,bus=d1hba0.0,scsi-id=0,id=d1p0,", 39));
}

static void test_argv_overlay_and_commas(void **state)
{
	struct hw_launch l = launch;
	struct disk d = disk("base", DISK_BUS_VIRTIO, "1G", DISK_SECTOR_512N);
	struct machine m = { .disks = &d, .disks_count = 1 };
	struct argv a;

	(void)state;
	d.image = "/img/debian.qcow2";
	l.disk_dir = "/run/a,b";
	l.qmp_path = "/run/a,b/qmp";
	to_argv(&m, &l, &a);
	assert_in_order(
	    &a, (const char *const[]){ "unix:/run/a,,b/qmp,server=on,wait=off", "-blockdev",
				       "driver=qcow2,node-name=d0,file.driver=file,"
				       "file.filename=/run/a,,b/base.qcow2,cache.direct=off",
				       NULL });
	argv_free(&a);
}

static void test_argv_numa(void **state)
{
	unsigned c0[] = { 4, 0, 1 }, c1[] = { 2, 3, 5 };
	struct numa_node nodes[] = {
		{ c0, 3, "1G", 0 },
		{ c1, 3, "512M", 0 },
		{ NULL, 0, "512M", 0 },
	};
	unsigned dist[] = { 10, 20, 30, 20, 10, 25, 30, 25, 10 };
	struct numa nu = {
		.nodes = nodes, .nodes_count = 3, .distances = dist, .distances_count = 9
	};
	struct machine m = { .cpus = 6, .memory = "2G", .numa = &nu };
	struct argv a;

	(void)state;
	to_argv(&m, &launch, &a);
	assert_in_order(
	    &a, (const char *const[]){ "-m",	  "2048M",
				       "-smp",	  "6,sockets=6,cores=1,threads=1",
				       "-object", "memory-backend-ram,size=1073741824,id=m0",
				       "-numa",	  "node,nodeid=0,cpus=0-1,cpus=4,memdev=m0",
				       "-object", "memory-backend-ram,size=536870912,id=m1",
				       "-numa",	  "node,nodeid=1,cpus=2-3,cpus=5,memdev=m1",
				       "-object", "memory-backend-ram,size=536870912,id=m2",
				       "-numa",	  "node,nodeid=2,memdev=m2",
				       "-numa",	  "dist,src=0,dst=1,val=20",
				       "-numa",	  "dist,src=0,dst=2,val=30",
				       "-numa",	  "dist,src=1,dst=0,val=20",
				       "-numa",	  "dist,src=1,dst=2,val=25",
				       "-numa",	  "dist,src=2,dst=0,val=30",
				       "-numa",	  "dist,src=2,dst=1,val=25",
				       "-kernel", NULL });
	assert_int_equal(count_arg(&a, "-numa"), 9);
	argv_free(&a);
}

/* ---- disk images ---- */

struct tmp {
	char dir[64];
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/ktb-machine-XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd))
		return -1;
	free(t);
	return 0;
}

static void test_create_raw(void **state)
{
	struct tmp *t = *state;
	struct hw_launch l = { .disk_dir = t->dir };
	struct disk disks[] = { disk("one", DISK_BUS_VIRTIO, "64M", DISK_SECTOR_512N),
				disk("two", DISK_BUS_NVME, "1G", DISK_SECTOR_4KN) };
	struct machine m = { .disks = disks, .disks_count = 2 };
	struct hw_error err;
	struct stat st;
	char *path;

	expect_valid(&m);
	assert_int_equal(machine_create_disks(&m, &l, &err), 0);
	path = machine_disk_path(&l, &disks[1]);
	assert_non_null(strstr(path, "/two.img"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1ll << 30);
	assert_true(st.st_blocks < 64); /* sparse */
	free(path);

	l.disk_dir = "/nonexistent/dir";
	assert_int_equal(machine_create_disks(&m, &l, &err), -ENOENT);
	assert_string_equal(err.field, "machine.disks[0]");
	assert_non_null(strstr(err.msg, "cannot create /nonexistent/dir/one.img"));
}

static void test_create_overlay(void **state)
{
	struct tmp *t = *state;
	struct hw_launch l = { .disk_dir = t->dir, .run = spawn_tool };
	struct disk d = disk("ov", DISK_BUS_VIRTIO, "8M", DISK_SECTOR_512N);
	struct machine m = { .disks = &d, .disks_count = 1 };
	char base[128], magic[4] = { 0 }, *path;
	struct hw_error err;
	int fd;

	if (system("qemu-img --version >/dev/null 2>&1"))
		skip();
	snprintf(base, sizeof(base), "%s/base.raw", t->dir);
	fd = open(base, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4 << 20), 0);
	close(fd);
	d.image = base;
	expect_valid(&m);
	if (machine_create_disks(&m, &l, &err))
		fail_msg("%s: %s", err.field, err.msg);
	path = machine_disk_path(&l, &d);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, magic, 4), 4);
	close(fd);
	assert_memory_equal(magic, "QFI\xfb", 4);
	free(path);

	/* hw/ never forks: without the harness's runner an overlay cannot be made */
	l.run = NULL;
	assert_int_equal(machine_create_disks(&m, &l, &err), -ENOSYS);
	assert_string_equal(err.field, "machine.disks[0].image");
	l.run = spawn_tool;

	d.image = "/nonexistent/base.qcow2";
	assert_int_equal(machine_create_disks(&m, &l, &err), -ENOENT);
	assert_string_equal(err.field, "machine.disks[0].image");
	assert_non_null(strstr(err.msg, "base image /nonexistent/base.qcow2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_validate_basics),
		cmocka_unit_test(test_validate_disks),
		cmocka_unit_test(test_validate_sata_ports),
		cmocka_unit_test(test_validate_multipath_zoned),
		cmocka_unit_test(test_validate_numa),
		cmocka_unit_test(test_validate_distances),
		cmocka_unit_test(test_argv_base),
		cmocka_unit_test(test_argv_gdb),
		cmocka_unit_test(test_argv_dump),
		cmocka_unit_test(test_argv_kvm_interactive),
		cmocka_unit_test(test_argv_display),
		cmocka_unit_test(test_argv_sleep_s4),
		cmocka_unit_test(test_argv_buses),
		cmocka_unit_test(test_argv_many_disks),
		cmocka_unit_test(test_argv_multipath_nvme),
		cmocka_unit_test(test_argv_multipath_scsi),
		cmocka_unit_test(test_argv_overlay_and_commas),
		cmocka_unit_test(test_argv_numa),
		cmocka_unit_test_setup_teardown(test_create_raw, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_create_overlay, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
