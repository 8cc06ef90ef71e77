/* The machine step's two pure halves: the facts hw/expected.c derives from a
 * machine (per part, with tolerances), and their comparison with a canned
 * `ktb-probe machine` document (verdict, message, likely cause, the
 * balloon, parts left unverified, an absent disk). */
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
	expect_want(&f, "disks.id=n.zoned", "\"host-managed\"");
	expect_want(&f, "disks.id=n.size_bytes", "67108864");
	assert_true(find(&f, "disks.id=n.id")->presence);
	expect_want(&f, "balloon.driver", "true");
	expect_want(&f, "balloon.free_page_reporting", "true");
	expect_want(&f, "sleep.s3", "false");
	expect_want(&f, "sleep.s4", "true");
	x = find(&f, "memory.total_mb");
	assert_non_null(x);
	assert_string_equal(x->want, "");
	assert_int_equal(x->max, 512);
	assert_int_equal(x->min, 512 - (96 + 512 / 32));
	assert_true(x->follows_balloon);
	x = find(&f, "numa.nodes.1.memory_mb");
	assert_int_equal(x->max, 128);
	assert_int_equal(x->min, 128 - (64 + 128 / 32));
	assert_int_equal(x->part, MACHINE_PART_NUMA);
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
	assert_false(find(&f, "memory.total_mb")->follows_balloon);
	assert_null(find(&f, "balloon.free_page_reporting"));
	machine_facts_free(&f);
	assert_string_equal(machine_part_name(MACHINE_PART_HMAT), "hmat");
}

/* What a 2-CPU, 512M guest with one 4Kn virtio disk shows. */
#define SEEN_OK                                                                                    \
	"{\"kernel\":{\"cmdline\":\"console=ttyS0 %s\"},\"cpus\":{\"online\":%d},"                 \
	"\"memory\":{\"total_mb\":%d},\"numa\":{\"node_count\":1,\"nodes\":[{\"id\":0,"            \
	"\"cpus\":[0,1],\"memory_mb\":421}],\"distances\":[[10]]},"                                \
	"\"sleep\":{\"s3\":false,\"s4\":false},\"balloon\":{\"driver\":%s,"                        \
	"\"free_page_reporting\":false},\"display\":{\"pci\":[]},\"disks\":[%s]}"
#define DISK_OK                                                                                    \
	"{\"id\":\"data\",\"size_bytes\":67108864,\"logical_block_size\":4096,"                    \
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

static int compare(const struct machine *m, const char *cmdline, int cpus, int mb,
		   const char *balloon, const char *disks, int64_t balloon_mb, char **msg,
		   json_t **data)
{
	char doc[2048];
	json_t *seen;
	int n;

	snprintf(doc, sizeof(doc), SEEN_OK, cmdline, cpus, mb, balloon, disks);
	seen = json_loads(doc, 0, NULL);
	assert_non_null(seen);
	n = machine_check_compare(m, seen, balloon_mb, msg, data);
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
	assert_int_equal(compare(&m, "", 2, 421, "false", DISK_OK, -1, &msg, &data), 0);
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
	assert_int_equal(compare(&m, "pci=nomsi", 2, 421, "false", DISK_OK, -1, &msg, &data), 1);
	assert_string_equal(msg, "display adapters (PCI vendor:device class): declared "
				 "[\"1234:1111 038000\"], the guest sees [] (pci=nomsi on the "
				 "command line?)");
	free(msg);
	json_decref(data);
}

static void test_compare_cause(void **state)
{
	struct machine m;
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	assert_int_equal(
	    compare(&m, "maxcpus=1 mem=300M", 1, 211, "false", DISK_OK, -1, &msg, &data), 2);
	assert_string_equal(msg, "CPUs online: declared 2, the guest sees 1 (maxcpus=1 on the "
				 "command line?); MemTotal (MB): declared 400..512, the guest "
				 "sees 211 (mem=300M on the command line?)");
	free(msg);
	json_decref(data);
	/* no argument to blame: no guess */
	assert_int_equal(compare(&m, "quiet", 1, 421, "false", DISK_OK, -1, &msg, &data), 1);
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
	    compare(&m, "module_blacklist=virtio_blk", 2, 421, "false", "", -1, &msg, &data), 1);
	assert_string_equal(msg, "disk data (virtio, 64M): declared, the guest has none "
				 "(module_blacklist=virtio_blk on the command line?)");
	free(msg);
	json_decref(data);
	/* the testbed's own libata word (no SATA disk) is never the cause;
	 * the user's libata.* words are */
	assert_int_equal(compare(&m, "libata.force=nodbdelay libata.force=1:disable", 2, 421,
				 "false", "", -1, &msg, &data),
			 1);
	assert_string_equal(msg, "disk data (virtio, 64M): declared, the guest has none "
				 "(libata.force=1:disable on the command line?)");
	free(msg);
	json_decref(data);
}

static void test_compare_balloon(void **state)
{
	struct machine m;
	struct balloon b = { 0 };
	json_t *data;
	char *msg;

	(void)state;
	small_machine(&m);
	m.balloon = &b;
	/* the balloon holds 256M of 512M: MemTotal 165 is right, 421 is not */
	assert_int_equal(compare(&m, "", 2, 165, "true", DISK_OK, 256, &msg, &data), 0);
	assert_null(msg);
	assert_int_equal(json_integer_value(json_object_get(data, "balloon_mb")), 256);
	json_decref(data);
	assert_int_equal(compare(&m, "", 2, 421, "true", DISK_OK, 256, &msg, &data), 1);
	assert_string_equal(msg, "MemTotal (MB): declared 144..256, the guest sees 421 "
				 "(balloon-adjusted)");
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
	assert_int_equal(compare(&m, "maxcpus=1", 1, 421, "false", "", -1, &msg, &data), 0);
	assert_string_equal(msg, "not checked (machine.unverified): cpus, disks");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(data, "unverified"), 1)), "disks");
	free(msg);
	json_decref(data);
	/* a failure says both */
	assert_int_equal(compare(&m, "", 1, 100, "false", "", -1, &msg, &data), 1);
	assert_string_equal(msg, "MemTotal (MB): declared 400..512, the guest sees 100; "
				 "not checked: cpus, disks");
	free(msg);
	json_decref(data);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
