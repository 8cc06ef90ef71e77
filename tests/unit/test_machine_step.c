/* The machine step's two pure halves: the facts hw/expected.c derives from a
 * machine (per part, with tolerances), and their comparison with a canned
 * `ktb-probe machine` document (verdict, message, likely cause, the
 * balloon, parts left unverified, an absent disk), and the memory the
 * firmware keeps (memmap.h), the only memory tolerance. */
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

#include "machine_step.h"
#include "expected.h"
#include "machine.h"
#include "memmap.h"
#include "scenario.h"

static const struct machine_fact *find(const struct machine_facts *f, const char *path)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].path, path))
			return &f->v[i];
	return NULL;
}

static void expect_want(const struct machine_facts *f, const char *path, const char *want)
{
	const struct machine_fact *x = find(f, path);

	if (!x)
		fail_msg("no fact %s", path);
	assert_string_equal(x->want, want);
}

/* A NUMA machine with HMAT, a cache, and disks on every kind of bus. */
static unsigned cpus0[] = { 0 }, cpus1[] = { 1 };
static unsigned dist[] = { 10, 20, 30, 20, 10, 25, 30, 25, 10 };

static void big_machine(struct machine *m, struct numa *nu, struct numa_node *nodes,
			struct hmat_lb *lb, struct hmat_cache *hc, struct disk *d, struct zoned *z,
			struct balloon *b)
{
	struct hw_error err;

	memset(m, 0, sizeof(*m));
	nodes[0] = (struct numa_node){ .cpus = cpus0, .cpus_count = 1, .memory = "256M" };
	nodes[1] = (struct numa_node){ .cpus = cpus1, .cpus_count = 1, .memory = "128M" };
	nodes[2] = (struct numa_node){ .memory = "128M" };
	lb[0] = (struct hmat_lb){ .initiator = 0, .target = 0, .latency = 10, .bandwidth = "10G" };
	lb[1] = (struct hmat_lb){ .initiator = 1, .target = 0, .latency = 30 };
	lb[2] = (struct hmat_lb){ .initiator = 0, .target = 2, .latency = 80 };
	hc[0] = (struct hmat_cache){
		.node = 2, .size = "16M", .level = 1, .policy = "write-through", .line = 128
	};
	*nu = (struct numa){ .nodes = nodes,
			     .nodes_count = 3,
			     .distances = dist,
			     .distances_count = 9,
			     .hmat = lb,
			     .hmat_count = 3,
			     .caches = hc,
			     .caches_count = 1 };
	*z = (struct zoned){ .zone_size = "8M" };
	d[0] = (struct disk){
		.id = "v", .bus = DISK_BUS_VIRTIO, .size = "64M", .sector = DISK_SECTOR_4KN
	};
	d[1] = (struct disk){ .id = "s",
			      .bus = DISK_BUS_SCSI,
			      .size = "64M",
			      .sector = DISK_SECTOR_512E,
			      .rotational = true,
			      .paths = 2 };
	d[2] = (struct disk){ .id = "n", .bus = DISK_BUS_NVME, .size = "64M", .zoned = z };
	*b = (struct balloon){ .free_page_reporting = true };
	m->cpus = 2;
	m->memory = "512M";
	m->sleep = SLEEP_S4;
	m->numa = nu;
	m->disks = d;
	m->disks_count = 3;
	m->balloon = b;
	assert_int_equal(machine_validate(m, &err), 0);
}

static void test_facts(void **state)
{
	struct numa_node nodes[3];
	struct hmat_lb lb[3];
	struct hmat_cache hc[1];
	struct disk d[3];
	struct zoned z;
	struct balloon b;
	struct numa nu;
	struct machine m;
	struct machine_facts f;
	const struct machine_fact *x;

	(void)state;
	big_machine(&m, &nu, nodes, lb, hc, d, &z, &b);
	assert_int_equal(machine_expected_facts(&m, &f), 0);
	expect_want(&f, "cpus.online", "2");
	expect_want(&f, "numa.node_count", "3");
	expect_want(&f, "numa.nodes.0.cpus", "[0]");
	expect_want(&f, "numa.nodes.2.cpus", "[]");
	expect_want(&f, "numa.distances.2", "[30,25,10]");
	/* access0 is the local initiator's view: 1 -> 0 is not shown */
	expect_want(&f, "numa.nodes.0.access0.read_latency", "10");
	expect_want(&f, "numa.nodes.0.access0.write_bandwidth", "10240");
	expect_want(&f, "numa.nodes.2.access0.read_latency", "80");
	assert_null(find(&f, "numa.nodes.2.access0.read_bandwidth"));
	expect_want(&f, "numa.nodes.2.caches.0.size", "16777216");
	expect_want(&f, "numa.nodes.2.caches.0.line_size", "128");
	expect_want(&f, "numa.nodes.2.caches.0.indexing", "0");
	expect_want(&f, "numa.nodes.2.caches.0.write_policy", "1");
	expect_want(&f, "disks.id=v.logical_block_size", "4096");
	expect_want(&f, "disks.id=v.multipath", "null");
	assert_null(find(&f, "disks.id=v.rotational")); /* virtio cannot say */
	expect_want(&f, "disks.id=s.physical_block_size", "4096");
	expect_want(&f, "disks.id=s.rotational", "true");
	expect_want(&f, "disks.id=s.multipath.kind", "\"dm\"");
	expect_want(&f, "disks.id=s.multipath.active", "2");
	expect_want(&f, "disks.id=s.multipath.mode", "\"rq\"");
	expect_want(&f, "disks.id=s.multipath.no_path", "\"queue\"");
	expect_want(&f, "disks.id=v.bus", "\"virtio\"");
	expect_want(&f, "disks.id=s.bus", "\"scsi\"");
	expect_want(&f, "disks.id=n.bus", "\"nvme\"");
	assert_null(find(&f, "disks.id=n.multipath.no_path")); /* native NVMe has none */
	expect_want(&f, "disks.id=n.zoned", "\"host-managed\"");
	expect_want(&f, "disks.id=n.size_bytes", "67108864");
	assert_true(find(&f, "disks.id=n.id")->presence);
	expect_want(&f, "balloon.driver", "true");
	expect_want(&f, "balloon.free_page_reporting", "true");
	expect_want(&f, "sleep.s3", "false");
	expect_want(&f, "sleep.s4", "true");
	/* 4 disk paths (s has 2): SeaBIOS's zone may take 192 + 4 * 32 KiB */
	x = find(&f, "memory.present_kb");
	assert_non_null(x);
	assert_string_equal(x->want, "");
	assert_int_equal(x->max, 524288);
	assert_int_equal(x->min, 524288 - 392 - 320);
	/* node 0 holds the legacy region, node 2 the top of RAM and SeaBIOS */
	x = find(&f, "numa.nodes.0.present_kb");
	assert_int_equal(x->min, 262144 - 392);
	x = find(&f, "numa.nodes.1.present_kb");
	assert_int_equal(x->max, 131072);
	assert_int_equal(x->min, 131072);
	assert_int_equal(x->part, MACHINE_PART_NUMA);
	x = find(&f, "numa.nodes.2.present_kb");
	assert_int_equal(x->min, 131072 - 320);
	assert_int_equal(find(&f, "numa.nodes.0.access0.read_latency")->part, MACHINE_PART_HMAT);
	machine_facts_free(&f);
}

static void test_facts_plain(void **state)
{
	struct machine m = { 0 };
	struct machine_facts f;
	struct hw_error err;

	(void)state;
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_expected_facts(&m, &f), 0);
	expect_want(&f, "cpus.online", "1");
	expect_want(&f, "numa.node_count", "1");
	expect_want(&f, "balloon.driver", "false");
	expect_want(&f, "sleep.s3", "false");
	assert_int_equal(find(&f, "memory.present_kb")->min, 524288 - 392 - 192);
	assert_null(find(&f, "balloon.free_page_reporting"));
	machine_facts_free(&f);
	assert_string_equal(machine_part_name(MACHINE_PART_HMAT), "hmat");
}

/* What a 2-CPU, 512M guest with one 4Kn virtio disk shows. */
#define SEEN_OK                                                                                    \
	"{\"kernel\":{\"cmdline\":\"console=ttyS0 %s\"},\"cpus\":{\"online\":%d},"                 \
	"\"memory\":{\"present_kb\":%d},\"numa\":{\"node_count\":1,\"nodes\":[{\"id\":0,"          \
	"\"cpus\":[0,1],\"present_kb\":523768}],\"distances\":[[10]]},"                            \
	"\"sleep\":{\"s3\":false,\"s4\":false},\"balloon\":{\"driver\":%s,"                        \
	"\"free_page_reporting\":false},\"display\":{\"pci\":[]},\"disks\":[%s]}"
#define DISK_OK                                                                                    \
	"{\"id\":\"data\",\"bus\":\"virtio\",\"size_bytes\":67108864,\"logical_block_size\":4096," \
	"\"physical_block_size\":4096,\"zoned\":\"none\",\"multipath\":null}"

static struct disk small_disk = {
	.id = "data", .bus = DISK_BUS_VIRTIO, .size = "64M", .sector = DISK_SECTOR_4KN
};

static void small_machine(struct machine *m)
{
	struct hw_error err;

	memset(m, 0, sizeof(*m));
	m->cpus = 2;
	m->disks = &small_disk;
	m->disks_count = 1;
	assert_int_equal(machine_validate(m, &err), 0);
}

static int compare(const struct machine *m, const char *cmdline, int cpus, int kb,
		   const char *balloon, const char *disks, char **msg, json_t **data)
{
	char doc[2048];
	json_t *seen;
	int n;

	snprintf(doc, sizeof(doc), SEEN_OK, cmdline, cpus, kb, balloon, disks);
	seen = json_loads(doc, 0, NULL);
	assert_non_null(seen);
	n = machine_check_compare(m, seen, msg, data);
	json_decref(seen);
	return n;
}

static void test_compare_pass(void **state)
{
	struct machine m;
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	assert_int_equal(compare(&m, "", 2, 523768, "false", DISK_OK, &msg, &data), 0);
	assert_null(msg);
	assert_int_equal(json_integer_value(json_object_get(data, "mismatches")), 0);
	assert_int_equal(json_array_size(json_object_get(data, "unverified")), 0);
	json_decref(data);
}

/* A declared display the guest's PCI bus does not show (SEEN_OK has none);
 * pci= is the one kernel argument that could hide it. */
static void test_compare_display(void **state)
{
	struct machine m;
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	m.display = DISPLAY_BOCHS;
	assert_int_equal(compare(&m, "pci=nomsi", 2, 523768, "false", DISK_OK, &msg, &data), 1);
	assert_string_equal(msg, "display adapters (PCI vendor:device class): declared "
				 "[\"1234:1111 038000\"], the guest sees [] (pci=nomsi on the "
				 "command line?)");
	free(msg);
	json_decref(data);
}

/* Every declared part in full: the bus a disk is on, a dm-multipath disk's
 * mode and no_path policy, a share's transport as the guest mounted it. */
static void test_compare_full(void **state)
{
	struct multipath mp = { .mode = MULTIPATH_BIO, .no_path = MULTIPATH_FAIL };
	struct disk d[3] = {
		{ .id = "n", .bus = DISK_BUS_NVME, .size = "64M" },
		{ .id = "m", .bus = DISK_BUS_SCSI, .size = "64M", .paths = 2, .multipath = &mp },
		{ .id = "h", .bus = DISK_BUS_HYBRID, .size = "64M" },
	};
	struct share sh = { .host = strdup("."), .guest = strdup("/mnt/src") };
	struct machine m = { .disks = d, .disks_count = 3, .shares = &sh, .shares_count = 1 };
	struct hw_error err;
	json_t *seen, *data;
	char *msg;

	(void)state;
	m.unverified = MACHINE_PART_BIT(MACHINE_PART_CPUS) | MACHINE_PART_BIT(MACHINE_PART_MEMORY) |
		       MACHINE_PART_BIT(MACHINE_PART_NUMA) | MACHINE_PART_BIT(MACHINE_PART_SLEEP) |
		       MACHINE_PART_BIT(MACHINE_PART_BALLOON) |
		       MACHINE_PART_BIT(MACHINE_PART_DISPLAY);
	assert_int_equal(machine_validate(&m, &err), 0);
	seen = json_loads(
	    "{\"disks\":[{\"id\":\"n\",\"bus\":\"virtio\",\"size_bytes\":67108864,"
	    "\"logical_block_size\":512,\"physical_block_size\":512,\"zoned\":\"none\","
	    "\"multipath\":null},{\"id\":\"m\",\"bus\":\"scsi\",\"size_bytes\":67108864,"
	    "\"logical_block_size\":512,\"physical_block_size\":512,\"zoned\":\"none\","
	    "\"rotational\":false,\"multipath\":{\"kind\":\"dm\",\"mode\":\"rq\","
	    "\"no_path\":\"queue\",\"paths\":2,\"active\":2}},{\"id\":\"h\",\"bus\":"
	    "\"virtio\",\"size_bytes\":67108864,\"logical_block_size\":512,"
	    "\"physical_block_size\":512,\"zoned\":\"none\",\"multipath\":null}],"
	    "\"shares\":[{\"tag\":\"ktb0\",\"path\":\"/mnt/src\",\"fstype\":\"virtiofs\","
	    "\"readonly\":true}]}",
	    0, NULL);
	assert_non_null(seen);
	assert_int_equal(machine_check_compare(&m, seen, &msg, &data), 4);
	assert_string_equal(msg, "disk n bus: declared \"nvme\", the guest sees \"virtio\"; "
				 "disk m multipath mode: declared \"bio\", the guest sees \"rq\"; "
				 "disk m multipath no_path: declared \"fail\", the guest sees "
				 "\"queue\"; share ktb0 transport (its fstype in /proc/mounts): "
				 "declared \"9p\", the guest sees \"virtiofs\"; not checked: cpus, "
				 "memory, numa, balloon, sleep, display");
	free(msg);
	json_decref(data);
	json_decref(seen);
	free(sh.host);
	free(sh.guest);
}

/* A part the probe could not read is neither a pass nor a mismatch: the
 * step names what could not be read (and ends in error); sysfs saying
 * there is no display is a pass. */
static void test_compare_unread(void **state)
{
	struct machine m;
	json_t *seen, *data;
	char *msg, doc[2048];
	int n;

	(void)state;
	small_machine(&m);
	snprintf(doc, sizeof(doc), SEEN_OK, "", 2, 523768, "false", DISK_OK);
	seen = json_loads(doc, 0, NULL);
	json_object_set_new(json_object_get(seen, "display"), "pci", json_null());
	json_object_set_new(
	    seen, "unread",
	    json_pack("{s:s}", "display", "/sys/bus/pci/devices: Permission denied"));
	n = machine_check_compare(&m, seen, &msg, &data);
	assert_int_equal(n, 0);
	assert_string_equal(
	    msg, "display: the guest could not read /sys/bus/pci/devices: Permission denied");
	assert_int_equal(json_array_size(json_object_get(data, "unread")), 1);
	free(msg);
	json_decref(data);
	/* read, and none there: a pass */
	json_object_del(seen, "unread");
	json_object_set_new(json_object_get(seen, "display"), "pci", json_array());
	assert_int_equal(machine_check_compare(&m, seen, &msg, &data), 0);
	assert_null(msg);
	assert_int_equal(json_array_size(json_object_get(data, "unread")), 0);
	json_decref(data);
	json_decref(seen);
}

static void test_compare_cause(void **state)
{
	struct machine m;
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	assert_int_equal(
	    compare(&m, "maxcpus=1 mem=300M", 1, 306808, "false", DISK_OK, &msg, &data), 2);
	assert_string_equal(msg, "CPUs online: declared 2, the guest sees 1 (maxcpus=1 on the "
				 "command line?); memory present (KiB): declared 523672..524288, "
				 "the guest sees 306808 (mem=300M on the command line?)");
	free(msg);
	json_decref(data);
	/* no argument to blame: no guess */
	assert_int_equal(compare(&m, "quiet", 1, 523768, "false", DISK_OK, &msg, &data), 1);
	assert_string_equal(msg, "CPUs online: declared 2, the guest sees 1");
	free(msg);
	json_decref(data);
}

static void test_compare_absent_disk(void **state)
{
	struct machine m;
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	/* one message for the disk, not one per property */
	assert_int_equal(
	    compare(&m, "module_blacklist=virtio_blk", 2, 523768, "false", "", &msg, &data), 1);
	assert_string_equal(msg, "disk data (virtio, 64M): declared, the guest has none "
				 "(module_blacklist=virtio_blk on the command line?)");
	free(msg);
	json_decref(data);
	/* the testbed's own libata and initcall words (no SATA disk; the KDF
	 * self-test) are never the cause; the user's libata.* and
	 * initcall_blacklist= words are */
	assert_int_equal(compare(&m,
				 "libata.force=nodbdelay initcall_blacklist=crypto_kdf108_init "
				 "libata.force=1:disable initcall_blacklist=virtio_blk_init",
				 2, 523768, "false", "", &msg, &data),
			 1);
	assert_string_equal(msg,
			    "disk data (virtio, 64M): declared, the guest has none "
			    "(libata.force=1:disable initcall_blacklist=virtio_blk_init on the "
			    "command line?)");
	free(msg);
	json_decref(data);
}

/* A balloon takes pages from MemTotal, never from the pages present: the
 * same document passes whatever the balloon holds, and a cut still fails. */
static void test_compare_balloon(void **state)
{
	struct machine m;
	struct balloon b = { 0 };
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	m.balloon = &b;
	assert_int_equal(compare(&m, "", 2, 523768, "true", DISK_OK, &msg, &data), 0);
	assert_null(msg);
	assert_null(json_object_get(data, "balloon_mb"));
	json_decref(data);
	assert_int_equal(compare(&m, "", 2, 519800, "true", DISK_OK, &msg, &data), 1);
	assert_string_equal(msg,
			    "memory present (KiB): declared 523672..524288, the guest sees 519800");
	free(msg);
	json_decref(data);
}

static void test_compare_unverified(void **state)
{
	struct machine m;
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	m.unverified = MACHINE_PART_BIT(MACHINE_PART_CPUS) | MACHINE_PART_BIT(MACHINE_PART_DISKS);
	assert_int_equal(compare(&m, "maxcpus=1", 1, 523768, "false", "", &msg, &data), 0);
	assert_string_equal(msg, "not checked (machine.unverified): cpus, disks");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(data, "unverified"), 1)), "disks");
	free(msg);
	json_decref(data);
	/* a failure says both */
	assert_int_equal(compare(&m, "", 1, 102400, "false", "", &msg, &data), 1);
	assert_string_equal(msg, "memory present (KiB): declared 523672..524288, the guest sees "
				 "102400; not checked: cpus, disks");
	free(msg);
	json_decref(data);
}

/* nodes: sizes in MiB (count n); disks: paths of each disk (count nd) */
static void mem_machine(struct machine *m, struct numa *nu, struct numa_node *nodes,
			const unsigned *mib, unsigned n, struct disk *d, const unsigned *paths,
			unsigned nd)
{
	uint64_t total = 0;

	memset(m, 0, sizeof(*m));
	memset(nu, 0, sizeof(*nu));
	for (unsigned i = 0; i < n; i++) {
		nodes[i] = (struct numa_node){ .memory_bytes = (uint64_t)mib[i] << 20 };
		total += nodes[i].memory_bytes;
	}
	for (unsigned i = 0; i < nd; i++)
		d[i] = (struct disk){ .bus = DISK_BUS_NVME, .paths = paths[i] };
	nu->nodes = nodes;
	nu->nodes_count = n;
	m->numa = n > 1 ? nu : NULL;
	m->memory_bytes = total;
	m->disks = d;
	m->disks_count = nd;
}

/* Which node gets which part of the firmware's keep: the legacy region
 * goes to the node at address 0, SeaBIOS's zone to the node holding the
 * top of RAM below 4G (q35: all RAM up to 2.75G, else 2G of it). */
static void test_memmap(void **state)
{
	static const unsigned one[] = { 1 },
			      four[16] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	static const unsigned g1[] = { 512, 512 }, g8[] = { 4096, 4096 },
			      g3[] = { 1024, 1024, 1024 }, g2[] = { 2048, 512, 255 },
			      uneven[] = { 768, 256 };
	struct numa_node nodes[8];
	struct disk d[16];
	struct numa nu;
	struct machine m;

	(void)state;
	assert_int_equal(memmap_low_bytes(1ULL << 30), 1ULL << 30);
	assert_int_equal(memmap_low_bytes(0xb0000000ULL - HW_MIB), 0xb0000000ULL - HW_MIB);
	assert_int_equal(memmap_low_bytes(3ULL << 30), 2ULL << 30);
	/* the machine: 1G in two nodes, one NVMe disk */
	mem_machine(&m, &nu, nodes, g1, 2, d, one, 1);
	assert_int_equal(memmap_reserve_kb(&m, -1), 392 + 192 + 32);
	assert_int_equal(memmap_reserve_kb(&m, 0), 392);
	assert_int_equal(memmap_reserve_kb(&m, 1), 192 + 32);
	/* 8G: 2G below 4G, all in node 0 */
	mem_machine(&m, &nu, nodes, g8, 2, d, one, 0);
	assert_int_equal(memmap_reserve_kb(&m, 0), 392 + 192);
	assert_int_equal(memmap_reserve_kb(&m, 1), 0);
	/* 3G: node 1 ends at 2G, the top below 4G; node 2 lies above 4G */
	mem_machine(&m, &nu, nodes, g3, 3, d, one, 0);
	assert_int_equal(memmap_reserve_kb(&m, 0), 392);
	assert_int_equal(memmap_reserve_kb(&m, 1), 192);
	assert_int_equal(memmap_reserve_kb(&m, 2), 0);
	/* just under 2.75G: all below 4G, the top in the last node */
	mem_machine(&m, &nu, nodes, g2, 3, d, one, 0);
	assert_int_equal(memmap_reserve_kb(&m, 1), 0);
	assert_int_equal(memmap_reserve_kb(&m, 2), 192);
	mem_machine(&m, &nu, nodes, uneven, 2, d, one, 0);
	assert_int_equal(memmap_reserve_kb(&m, 1), 192);
	/* the most any machine allows stays under 4 MiB: 16 disks of 4 paths */
	mem_machine(&m, &nu, nodes, g1, 1, d, four, 16);
	assert_int_equal(memmap_reserve_kb(&m, -1), 392 + 192 + 64 * 32);
	assert_true(memmap_reserve_kb(&m, -1) < 4096);
}

/* The machine, seen by Debian's 6.1 kernel (2 CPUs, 1G in two
 * nodes of 512M, one 4Kn NVMe disk, S3): node 1's MemTotal was 421 MB,
 * its present pages are 512M less SeaBIOS's 128K. A mem= cut of 4M fails. */
static void test_compare_numa_present(void **state)
{
	static unsigned c0[] = { 0 }, c1[] = { 1 };
	struct numa_node nodes[2] = { { .cpus = c0, .cpus_count = 1, .memory = "512M" },
				      { .cpus = c1, .cpus_count = 1, .memory = "512M" } };
	struct numa nu = { .nodes = nodes, .nodes_count = 2 };
	struct disk d = {
		.id = "d", .bus = DISK_BUS_NVME, .size = "64M", .sector = DISK_SECTOR_4KN
	};
	struct machine m = { .cpus = 2, .memory = "1G", .sleep = SLEEP_S3, .numa = &nu };
	struct hw_error err;
	json_t *seen, *data;
	char *msg, doc[1024];
	static const char *const fmt =
	    "{\"kernel\":{\"cmdline\":\"%s\"},\"cpus\":{\"online\":2},"
	    "\"memory\":{\"present_kb\":%d},\"numa\":{\"node_count\":2,\"nodes\":["
	    "{\"id\":0,\"cpus\":[0],\"present_kb\":523896},"
	    "{\"id\":1,\"cpus\":[1],\"present_kb\":%d}],\"distances\":[[10,20],[20,10]]}}";

	(void)state;
	m.disks = &d;
	m.disks_count = 1;
	m.unverified = MACHINE_PART_BIT(MACHINE_PART_DISKS) | MACHINE_PART_BIT(MACHINE_PART_SLEEP) |
		       MACHINE_PART_BIT(MACHINE_PART_BALLOON) |
		       MACHINE_PART_BIT(MACHINE_PART_DISPLAY);
	assert_int_equal(machine_validate(&m, &err), 0);
	snprintf(doc, sizeof(doc), fmt, "", 523896 + 524160, 524160);
	seen = json_loads(doc, 0, NULL);
	assert_int_equal(machine_check_compare(&m, seen, &msg, &data), 0);
	json_decref(seen);
	json_decref(data);
	free(msg);
	snprintf(doc, sizeof(doc), fmt, "mem=1020M", 523896 + 520192, 520192);
	seen = json_loads(doc, 0, NULL);
	assert_int_equal(machine_check_compare(&m, seen, &msg, &data), 2);
	assert_string_equal(msg, "memory present (KiB): declared 1047960..1048576, the guest "
				 "sees 1044088 (mem=1020M on the command line?); node 1 memory "
				 "present (KiB): declared 524064..524288, the guest sees 520192 "
				 "(mem=1020M on the command line?); not checked: disks, balloon, "
				 "sleep, display");
	json_decref(seen);
	json_decref(data);
	free(msg);
}

static void test_lookup(void **state)
{
	json_t *doc =
	    json_loads("{\"a\":[{\"id\":\"x\",\"v\":1},{\"id\":\"y\",\"v\":[5,6]}]}", 0, NULL);

	(void)state;
	assert_int_equal(json_integer_value(machine_check_lookup(doc, "a.id=x.v")), 1);
	assert_int_equal(json_integer_value(machine_check_lookup(doc, "a.id=y.v.1")), 6);
	assert_int_equal(json_integer_value(machine_check_lookup(doc, "a.1.v.0")), 5);
	assert_null(machine_check_lookup(doc, "a.id=z.v"));
	assert_null(machine_check_lookup(doc, "a.2"));
	assert_null(machine_check_lookup(doc, "a.x"));
	assert_null(machine_check_lookup(doc, "b"));
	json_decref(doc);
}

/* Load text as a scenario file; 0 or the loader's error in err. */
static int load_text(const char *text, struct scenario **s, struct scenario_error *err)
{
	char path[] = "/tmp/ktb-test-machine-XXXXXX.yaml";
	int fd = mkstemps(path, 5), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ret = scenario_load(path, s, err);
	unlink(path);
	return ret;
}

static void test_unverified_load(void **state)
{
	struct scenario_error err;
	struct scenario *s = NULL;

	(void)state;
	assert_int_equal(load_text("name: t\nmachine:\n  cpus: 2\n  unverified: [cpus, hmat]\n"
				   "steps:\n  - run: \"true\"\n",
				   &s, &err),
			 0);
	assert_int_equal(s->machine->unverified,
			 MACHINE_PART_BIT(MACHINE_PART_CPUS) | MACHINE_PART_BIT(MACHINE_PART_HMAT));
	assert_int_equal(s->machine_line, 2);
	scenario_free(s);
	s = NULL;
	assert_int_equal(load_text("name: t\nmachine:\n  unverified: [cpus, disk]\n"
				   "steps:\n  - run: \"true\"\n",
				   &s, &err),
			 -EINVAL);
	assert_string_equal(err.field, "machine.unverified");
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.msg, "\"disk\" is not one of cpus, memory, numa, disks"));
	assert_null(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),		cmocka_unit_test(test_facts_plain),
		cmocka_unit_test(test_compare_pass),	cmocka_unit_test(test_compare_display),
		cmocka_unit_test(test_compare_cause),	cmocka_unit_test(test_compare_absent_disk),
		cmocka_unit_test(test_compare_balloon), cmocka_unit_test(test_compare_unverified),
		cmocka_unit_test(test_lookup),		cmocka_unit_test(test_unverified_load),
		cmocka_unit_test(test_memmap),		cmocka_unit_test(test_compare_numa_present),
		cmocka_unit_test(test_compare_full),	cmocka_unit_test(test_compare_unread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
