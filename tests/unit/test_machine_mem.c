/* The memory parts of the machine model and the scenario loader: HMAT and
 * memory-side caches (validation refusals and QEMU arguments), memory-only
 * nodes, the balloon device, and the balloon and measure steps (what they
 * accept, and the error for each thing they refuse). */
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

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct hw_launch launch = { .kernel = "/k/vmlinux", .disk_dir = "/run/x" };

static unsigned cpu0[] = { 0 }, cpu1[] = { 1 };

/* Two nodes with a CPU each and a memory-only third, 512M in all. */
struct fixture {
	struct numa_node nodes[3];
	struct numa nu;
	struct machine m;
};

static void fixture_init(struct fixture *f, struct hmat_lb *lb, unsigned nlb, struct hmat_cache *hc,
			 unsigned nhc)
{
	memset(f, 0, sizeof(*f));
	f->nodes[0] = (struct numa_node){ .cpus = cpu0, .cpus_count = 1, .memory = "256M" };
	f->nodes[1] = (struct numa_node){ .cpus = cpu1, .cpus_count = 1, .memory = "128M" };
	f->nodes[2] = (struct numa_node){ .memory = "128M" };
	f->nu = (struct numa){ .nodes = f->nodes,
			       .nodes_count = 3,
			       .hmat = lb,
			       .hmat_count = nlb,
			       .caches = hc,
			       .caches_count = nhc };
	f->m = (struct machine){ .cpus = 2, .memory = "512M", .numa = &f->nu };
}

static void argv_of(struct machine *m, struct argv *a)
{
	struct hw_error err;

	if (machine_validate(m, &err) || machine_to_argv(m, &launch, a, &err))
		fail_msg("%s: %s", err.field, err.msg);
}

static void test_hmat_argv(void **state)
{
	struct hmat_lb lb[] = {
		{ .initiator = 0, .target = 0, .latency = 10, .bandwidth = "10G" },
		{ .initiator = 1, .target = 2, .latency = 60 },
		{ .initiator = 0, .target = 2, .bandwidth = "2G" },
	};
	struct hmat_cache hc[] = { { .node = 2, .size = "16M" },
				   { .node = 2,
				     .size = "64M",
				     .level = 2,
				     .policy = "write-through",
				     .associativity = "complex",
				     .line = 128 } };
	struct fixture f;
	struct argv a;

	(void)state;
	fixture_init(&f, lb, N(lb), hc, N(hc));
	argv_of(&f.m, &a);
	assert_true(argv_has(&a, "q35,hmat=on", true));
	assert_true(argv_has(&a, "node,nodeid=0,cpus=0,memdev=m0,initiator=0", true));
	assert_true(argv_has(&a, "node,nodeid=1,cpus=1,memdev=m1,initiator=1", true));
	assert_true(argv_has(&a, "node,nodeid=2,memdev=m2,initiator=0", true));
	assert_true(argv_has(&a,
			     "hmat-lb,initiator=0,target=0,hierarchy=memory,"
			     "data-type=access-latency,latency=10",
			     true));
	assert_true(argv_has(&a,
			     "hmat-lb,initiator=0,target=0,hierarchy=memory,"
			     "data-type=access-bandwidth,bandwidth=10240M",
			     true));
	assert_true(argv_has(&a,
			     "hmat-lb,initiator=1,target=2,hierarchy=memory,"
			     "data-type=access-latency,latency=60",
			     true));
	assert_true(argv_has(&a,
			     "hmat-lb,initiator=0,target=2,hierarchy=memory,"
			     "data-type=access-bandwidth,bandwidth=2048M",
			     true));
	assert_true(argv_has(&a,
			     "hmat-cache,node-id=2,size=16777216,level=1,"
			     "associativity=direct,policy=write-back,line=64",
			     true));
	assert_true(argv_has(&a,
			     "hmat-cache,node-id=2,size=67108864,level=2,"
			     "associativity=complex,policy=write-through,line=128",
			     true));
	argv_free(&a);
}

static void test_no_hmat_plain_q35(void **state)
{
	struct fixture f;
	struct argv a;

	(void)state;
	fixture_init(&f, NULL, 0, NULL, 0);
	argv_of(&f.m, &a);
	assert_true(argv_has(&a, "q35", true));
	assert_false(argv_has(&a, "q35,hmat=on", true));
	assert_true(argv_has(&a, "node,nodeid=2,memdev=m2", true));
	argv_free(&a);
}

static void test_hmat_refusals(void **state)
{
	struct hmat_lb lb[2];
	struct hmat_cache hc[2];
	struct fixture f;

	(void)state;
	lb[0] = (struct hmat_lb){ .initiator = 2, .target = 0, .latency = 5 };
	fixture_init(&f, lb, 1, NULL, 0);
	expect_refusal(&f.m, "machine.numa.hmat[0]", "initiator 2 is not a node with cpus");
	lb[0] = (struct hmat_lb){ .initiator = 0, .target = 3, .latency = 5 };
	expect_refusal(&f.m, "machine.numa.hmat[0]", "target 3 is not a node (0..2)");
	lb[0] = (struct hmat_lb){ .initiator = 0, .target = 1 };
	expect_refusal(&f.m, "machine.numa.hmat[0]", "give latency");
	lb[0] = (struct hmat_lb){ .initiator = 0, .target = 1, .latency = 5 };
	lb[1] = lb[0];
	fixture_init(&f, lb, 2, NULL, 0);
	expect_refusal(&f.m, "machine.numa.hmat[1]", "initiator 0 -> target 1 is already given");
	lb[1] = (struct hmat_lb){ .initiator = 1, .target = 1, .bandwidth = "512K" };
	expect_refusal(&f.m, "machine.numa.hmat[1].bandwidth", "below 1M");
	lb[1].bandwidth = "fast";
	expect_refusal(&f.m, "machine.numa.hmat[1].bandwidth", "fast");
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M" };
	fixture_init(&f, NULL, 0, hc, 1);
	expect_refusal(&f.m, "machine.numa.caches", "give machine.numa.hmat");
	fixture_init(&f, lb, 1, hc, 1);
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M", .level = 2 };
	expect_refusal(&f.m, "machine.numa.caches[0]", "needs level 1 on node 1 first");
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M", .level = 4 };
	expect_refusal(&f.m, "machine.numa.caches[0]", "levels 1 to 3");
	hc[0] = (struct hmat_cache){ .node = 5, .size = "1M" };
	expect_refusal(&f.m, "machine.numa.caches[0]", "node 5 is not a node");
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M", .policy = "write-around" };
	expect_refusal(&f.m, "machine.numa.caches[0]", "policy \"write-around\"");
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M", .associativity = "4-way" };
	expect_refusal(&f.m, "machine.numa.caches[0]", "associativity \"4-way\"");
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M", .line = 96 };
	expect_refusal(&f.m, "machine.numa.caches[0]", "not a power of two");
	hc[0] = (struct hmat_cache){ .node = 1, .size = "1M" };
	hc[1] = hc[0];
	fixture_init(&f, lb, 1, hc, 2);
	expect_refusal(&f.m, "machine.numa.caches[1]", "node 1 has a level 1 cache already");
}

static void test_memory_only_node_last(void **state)
{
	struct fixture f;

	(void)state;
	fixture_init(&f, NULL, 0, NULL, 0);
	f.nodes[2] = f.nodes[1];
	f.nodes[1] = (struct numa_node){ .memory = "128M" };
	expect_refusal(&f.m, "machine.numa.nodes[1]", "list memory-only nodes last");
}

static void test_balloon_argv(void **state)
{
	struct balloon on = { .free_page_reporting = true }, off = { 0 };
	struct machine m = { .memory = "384M", .balloon = &on };
	struct argv a;

	(void)state;
	argv_of(&m, &a);
	assert_true(argv_has(&a, "virtio-balloon-pci,id=balloon0,free-page-reporting=on", true));
	argv_free(&a);
	m.balloon = &off;
	argv_of(&m, &a);
	assert_true(argv_has(&a, "virtio-balloon-pci,id=balloon0,free-page-reporting=off", true));
	argv_free(&a);
	m.balloon = NULL;
	argv_of(&m, &a);
	for (size_t i = 0; i < a.n; i++)
		assert_null(strstr(a.v[i], "balloon"));
	argv_free(&a);
}

/* ---- the balloon and measure steps in scenario files ---- */

static const char head[] =
    "name: t\nmachine:\n  memory: 384M\n  balloon: {free_page_reporting: true}\n"
    "steps:\n";

/* Load text as a scenario file; 0 or the loader's error in err. */
static int load_text(const char *text, struct scenario **s, struct scenario_error *err)
{
	char path[] = "/tmp/ktb-test-mem-XXXXXX.yaml";
	int fd = mkstemps(path, 5), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ret = scenario_load(path, s, err);
	unlink(path);
	return ret;
}

static void test_steps_ok(void **state)
{
	static const char text[] =
	    "name: t\nmachine:\n  memory: 384M\n  balloon: {free_page_reporting: true}\n"
	    "steps:\n  - balloon: 256M\n    expect:\n      json: {actual_mb: 256}\n"
	    "  - measure: qemu_rss\n    as: before\n"
	    "  - measure: qemu_rss\n    since: before\n    within: 20s\n"
	    "    expect:\n      json: {delta_mb: {le: -100}}\n";
	struct scenario_error err;
	struct scenario *s = NULL;

	(void)state;
	assert_int_equal(load_text(text, &s, &err), 0);
	assert_true(s->machine->balloon->free_page_reporting);
	assert_int_equal(s->steps[0].kind, STEP_BALLOON);
	assert_int_equal(s->steps[0].balloon_bytes, 256ull << 20);
	assert_string_equal(s->steps[0].name, "balloon: 256M");
	assert_int_equal(s->steps[1].kind, STEP_MEASURE);
	assert_string_equal(s->steps[1].as, "before");
	assert_int_equal(s->steps[2].within_ms, 20000);
	assert_string_equal(s->steps[2].since, "before");
	scenario_free(s);
}

static const struct {
	const char *steps; /* appended to head (or a whole file when it starts "name") */
	const char *field, *msg;
} bad[] = {
	{ "  - balloon: lots\n", "steps[0].balloon", "\"lots\" is not a size" },
	{ "  - balloon: 32M\n", "steps[0].balloon", "outside 64M..machine.memory (384M)" },
	{ "  - balloon: 1G\n", "steps[0].balloon", "outside 64M" },
	{ "name: t\nmachine:\n  memory: 384M\nsteps:\n  - balloon: 256M\n", "steps[0].balloon",
	  "the machine has no balloon" },
	{ "  - balloon: 256M\n    expect:\n      exit: 0\n", "steps[0].expect.exit",
	  "a balloon step cannot check exit" },
	{ "  - measure: guest_rss\n", "steps[0].measure", "not a host metric; give qemu_rss" },
	{ "  - measure: qemu_rss\n    since: nothing\n", "steps[0].since",
	  "no earlier measure step saved \"nothing\"" },
	{ "  - measure: qemu_rss\n    since: later\n  - measure: qemu_rss\n    as: later\n",
	  "steps[0].since", "no earlier measure step saved \"later\"" },
	{ "  - measure: qemu_rss\n    as: Before\n", "steps[0].as", "[a-z0-9_]+" },
	{ "  - measure: qemu_rss\n    within: soon\n    expect:\n      json: {rss_mb: 1}\n",
	  "steps[0].within", "\"soon\" is not a duration" },
	{ "  - measure: qemu_rss\n    within: 5s\n", "steps[0].within", "give an expect" },
	{ "  - run: true\n    as: x\n", "steps[0].as", "\"as\" belongs to a measure step" },
	{ "  - balloon: 256M\n    measure: qemu_rss\n", "steps[0]", "two actions" },
};

static void test_steps_bad(void **state)
{
	struct scenario_error err;
	struct scenario *s;
	char text[512], msg[1024];

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		if (!strncmp(bad[i].steps, "name", 4))
			snprintf(text, sizeof(text), "%s", bad[i].steps);
		else
			snprintf(text, sizeof(text), "%s%s", head, bad[i].steps);
		s = NULL;
		assert_int_equal(load_text(text, &s, &err), -EINVAL);
		assert_null(s);
		scenario_error_format(&err, msg, sizeof(msg));
		if (strcmp(err.field, bad[i].field) || !strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: got \"%s\"", i, msg);
		assert_true(err.line > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hmat_argv),     cmocka_unit_test(test_no_hmat_plain_q35),
		cmocka_unit_test(test_hmat_refusals), cmocka_unit_test(test_memory_only_node_last),
		cmocka_unit_test(test_balloon_argv),  cmocka_unit_test(test_steps_ok),
		cmocka_unit_test(test_steps_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
