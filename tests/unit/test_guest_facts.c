/* ktb-probe's sections against a fake sysfs/procfs tree (data/guest):
 * the JSON each one writes, to the byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "facts.h"
#include "unread.h"

#define ROOT KTB_TEST_DATA "/guest"

/* Runs one section inside {} and checks the text it produced. */
static void check_section(int (*fn)(const char *, struct json_out *), const char *root,
			  int want_ret, const char *want)
{
	struct json_out j;
	size_t len;
	char *out;
	FILE *f;

	f = open_memstream(&out, &len);
	assert_non_null(f);
	json_init(&j, f);
	json_obj_begin(&j);
	assert_int_equal(fn(root, &j), want_ret);
	json_obj_end(&j);
	fclose(f);
	assert_string_equal(out, want);
	free(out);
}

static void test_numa(void **state)
{
	(void)state;
	check_section(facts_numa, ROOT, 0,
		      "{\"node_count\":2,\"nodes\":["
		      "{\"id\":0,\"cpus\":[0,1],\"memory_kb\":524288,\"memory_mb\":512,"
		      "\"present_kb\":523896},"
		      "{\"id\":1,\"cpus\":[2],\"memory_kb\":262144,\"memory_mb\":256,"
		      "\"present_kb\":262144}],"
		      "\"distances\":[[10,20],[20,10]]}");
}

static void test_numa_hmat(void **state)
{
	(void)state;
	/* access0 where the kernel has HMAT data, caches where it has a
	 * memory-side cache; a CPU-less node has an empty cpu list */
	check_section(facts_numa, KTB_TEST_DATA "/guest-hmat", 0,
		      "{\"node_count\":2,\"nodes\":["
		      "{\"id\":0,\"cpus\":[0],\"memory_kb\":262144,\"memory_mb\":256,"
		      "\"present_kb\":261752,\"access0\":{\"read_latency\":10,\"write_latency\":10,"
		      "\"read_bandwidth\":10240,\"write_bandwidth\":10240}},"
		      "{\"id\":1,\"cpus\":[],\"memory_kb\":131072,\"memory_mb\":128,"
		      "\"present_kb\":130944,\"access0\":{\"read_latency\":80,\"write_latency\":80,"
		      "\"read_bandwidth\":2048,\"write_bandwidth\":2048},"
		      "\"caches\":[{\"size\":16777216,\"line_size\":64,\"indexing\":0,"
		      "\"write_policy\":0}]}],"
		      "\"distances\":[[10,30],[30,10]]}");
}

static void test_numa_flat(void **state)
{
	(void)state;
	/* no node directory: one node with every online CPU */
	check_section(facts_numa, ROOT "/flat", 0,
		      "{\"node_count\":1,\"nodes\":[{\"id\":0,\"cpus\":[0,1],\"memory_kb\":131072,"
		      "\"memory_mb\":128,\"present_kb\":130680}],\"distances\":[[10]]}");
}

/* A node whose cpulist and meminfo cannot be read: null, not the [] of a
 * CPU-less node or the 0 that {le: N} would take */
static void test_numa_unread(void **state)
{
	(void)state;
	check_section(facts_numa, KTB_TEST_DATA "/guest-bare", 0,
		      "{\"node_count\":1,\"nodes\":[{\"id\":0,\"cpus\":null,\"memory_kb\":null,"
		      "\"memory_mb\":null,\"present_kb\":null}],\"distances\":[[10]]}");
}

/* No node folder with sysfs mounted: a kernel without NUMA, not an error;
 * a node folder without its files is one. */
static void test_numa_notes(void **state)
{
	struct json_out j;
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	json_init(&j, f);
	unread_clear();
	facts_numa(ROOT "/flat", &j);
	assert_null(unread_get("numa"));
	facts_numa(KTB_TEST_DATA "/guest-bare", &j);
	assert_string_equal(unread_get("numa"),
			    "/proc/zoneinfo: No such file or directory"); /* the first */
	unread_clear();
	facts_memory("/nonexistent", &j);
	assert_string_equal(unread_get("memory"), "/proc/meminfo: No such file or directory");
	unread_clear();
	fclose(f);
}

static void test_cpus(void **state)
{
	(void)state;
	check_section(facts_cpus, ROOT, 0, "{\"online\":3,\"list\":\"0-2\",\"possible\":4}");
	/* no cpu/possible: null, not the online count */
	check_section(facts_cpus, ROOT "/flat", 0,
		      "{\"online\":2,\"list\":\"0-1\",\"possible\":null}");
}

static void test_memory(void **state)
{
	(void)state;
	check_section(facts_memory, ROOT, 0,
		      "{\"total_kb\":786432,\"total_mb\":768,\"present_kb\":786040,"
		      "\"free_kb\":600000,"
		      "\"available_kb\":650000}");
	check_section(facts_memory, "/nonexistent", -ENOENT, "{}");
	/* no MemAvailable: null, never MemFree in its place */
	check_section(facts_memory, ROOT "/flat", 0,
		      "{\"total_kb\":131072,\"total_mb\":128,\"present_kb\":130680,"
		      "\"free_kb\":100000,"
		      "\"available_kb\":null}");
}

static int disk_bare(const char *root, struct json_out *j)
{
	return facts_disk(root, "bare", j);
}

/* A disk whose queue attributes cannot be read: null each, never the 512,
 * false, "none" and 0 the reader keeps in their place */
static void test_disk_unread(void **state)
{
	(void)state;
	check_section(
	    disk_bare, KTB_TEST_DATA "/guest-bare", 0,
	    "{\"id\":\"bare\",\"name\":\"vdz\",\"dev\":\"/dev/vdz\","
	    "\"size_bytes\":67108864,\"logical_block_size\":null,"
	    "\"physical_block_size\":null,\"rotational\":null,\"zoned\":null,"
	    "\"zones\":null,\"serial\":\"bare\",\"transport\":\"virtio\",\"bus\":\"virtio\","
	    "\"majmin\":\"254:16\",\"multipath\":null}");
}

static void test_sleep(void **state)
{
	(void)state;
	check_section(
	    facts_sleep, ROOT, 0,
	    "{\"states\":[\"freeze\",\"mem\",\"disk\"],\"mem_sleep\":[\"s2idle\",\"deep\"],"
	    "\"mem_sleep_default\":\"deep\",\"disk\":[\"platform\",\"shutdown\",\"reboot\","
	    "\"suspend\",\"test_resume\"],\"disk_default\":\"platform\"}");
	check_section(facts_sleep, "/nonexistent", 0,
		      "{\"states\":[],\"mem_sleep\":[],\"mem_sleep_default\":null,\"disk\":[],"
		      "\"disk_default\":null}");
}

static void test_disk(void **state)
{
	(void)state;
	check_section(facts_disks, ROOT "/flat", -ENOENT, "{\"disks\":[]}");
}

static int disk_data(const char *root, struct json_out *j)
{
	return facts_disk(root, "data", j);
}

static void test_disk_object(void **state)
{
	(void)state;
	check_section(disk_data, ROOT, 0,
		      "{\"id\":\"data\",\"name\":\"vda\",\"dev\":\"/dev/vda\","
		      "\"size_bytes\":1073741824,\"logical_block_size\":512,"
		      "\"physical_block_size\":4096,\"rotational\":false,\"zoned\":\"none\","
		      "\"zones\":0,\"serial\":\"data\",\"transport\":\"virtio\",\"bus\":\"virtio\","
		      "\"majmin\":\"253:0\","
		      "\"multipath\":null}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa),	    cmocka_unit_test(test_numa_hmat),
		cmocka_unit_test(test_numa_flat),   cmocka_unit_test(test_numa_unread),
		cmocka_unit_test(test_numa_notes),  cmocka_unit_test(test_disk_unread),
		cmocka_unit_test(test_cpus),	    cmocka_unit_test(test_memory),
		cmocka_unit_test(test_sleep),	    cmocka_unit_test(test_disk),
		cmocka_unit_test(test_disk_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
