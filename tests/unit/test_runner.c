/* The runner over the fake back end (fake_vm.h): the real vm.c, steps and
 * runner.c with a scripted guest and monitor instead of QEMU. What a
 * scenario's verdict is made of: the steps in order with the first that
 * does not pass ending it, the machine step after every boot, the step and
 * scenario deadlines, the "step N (name, line L): why" message, a guest
 * that dies or panics in a step, and a boot that fails. */
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

#include "fake_vm.h"
#include "result.h"
#include "runner.h"
#include "scenario.h"
#include "util.h"

#define PROBE "ktb-probe machine"
/* what ktb-probe machine prints on a machine with cpus: 2, memory: 512M */
#define PROBE_OUT                                                                                  \
	"{\"kernel\":{\"release\":\"6.1.0-fake\"},\"cpus\":{\"online\":%d,\"list\":\"0-1\","       \
	"\"possible\":2},\"memory\":{\"total_kb\":431304,\"present_kb\":523768},\"numa\":"         \
	"{\"node_count\":1,\"nodes\":[{\"id\":0,\"cpus\":[0,1],\"memory_kb\":431304,"              \
	"\"present_kb\":523768}],\"distances\":[[10]]},\"sleep\":{\"states\":[\"freeze\",\"mem\"," \
	"\"disk\"],\"mem_sleep\":[\"s2idle\"],\"disk\":[\"shutdown\"],\"s3\":false,"               \
	"\"s4\":false},\"balloon\":{\"device\":false,\"driver\":false,"                            \
	"\"free_page_reporting\":false},\"display\":{\"pci\":[]},\"disks\":[]}"

static char probe_ok[2048], probe_1cpu[2048];

/* Line numbers below are these lines' (machine: is line 4, the first step 8). */
#define HEAD                                                                                       \
	"name: t\n"                                                                                \
	"summary: a scenario for the runner's tests\n"                                             \
	"timeout: %s\n"                                                                            \
	"machine:\n"                                                                               \
	"  cpus: 2\n"                                                                              \
	"  memory: 512M\n"                                                                         \
	"steps:\n"

struct t {
	char *root;
	struct fake_vm f;
	struct scenario *s;
	struct scenario_result r;
	struct image img;
	int ret;
	const char *debug_vmlinux;
	const char *debug_modules;
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));

	snprintf(probe_ok, sizeof(probe_ok), PROBE_OUT, 2);
	snprintf(probe_1cpu, sizeof(probe_1cpu), PROBE_OUT, 1);
	t->root = tmp_template("ktb-test-runner");
	assert_non_null(mkdtemp(t->root));
	t->img = (struct image){ .vmlinux = "fake-vmlinux",
				 .initrd = "fake-initrd",
				 .release = "6.1.0-fake" };
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;

	fake_vm_clear(&t->f);
	scenario_result_free(&t->r);
	scenario_free(t->s);
	rm_rf(t->root);
	free(t->root);
	free(t);
	return 0;
}

/* Run the scenario HEAD(timeout) + steps against t->f's script. */
static void run(struct t *t, const char *timeout, const char *steps)
{
	struct scenario_error err;
	char *yaml = xasprintf(HEAD "%s", timeout, steps);
	struct run_opts o = { .image = &t->img,
			      .artifacts_root = t->root,
			      .run_id = "r",
			      .sig_fd = -1,
			      .backend = &fake_vm_ops,
			      .debug_vmlinux = t->debug_vmlinux,
			      .debug_modules = t->debug_modules };

	memset(&err, 0, sizeof(err));
	if (scenario_load_buffer("t.yaml", yaml, strlen(yaml), &t->s, &err)) {
		char buf[1024];

		scenario_error_format(&err, buf, sizeof(buf));
		fail_msg("%s", buf);
	}
	free(yaml);
	fake_vm_use(&t->f);
	t->ret = runner_run_scenario(t->s, &o, &t->r);
}

/* The rows every scripted guest has: the machine step's probe and dmesg. */
#define BASE_ROWS                                                                                  \
	{ .cmd = PROBE, .out = probe_ok },                                                         \
	{                                                                                          \
		.cmd = "dmesg", .out = ""                                                          \
	}

static void test_steps_in_order_first_failure_ends(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS,
		{ .cmd = "a", .out = "A\n" },
		{ .cmd = "b", .exit_code = 3, .err = "no\n" },
		{ .cmd = "c" },
		{ 0 },
	};

	t->f.cmds = cmds;
	run(t, "60s", "  - run: a\n  - name: bee\n    run: b\n  - run: c\n");
	assert_int_equal(t->ret, 0);
	assert_int_equal(t->r.status, ST_FAIL);
	/* the machine step first, then the steps up to the failing one */
	assert_int_equal(t->r.steps_count, 3);
	assert_string_equal(t->r.steps[0].name, "machine");
	assert_int_equal(t->r.steps[0].status, ST_PASS);
	assert_int_equal(t->r.steps[1].status, ST_PASS);
	assert_string_equal(t->r.steps[1].out, "A\n");
	assert_int_equal(t->r.steps[2].status, ST_FAIL);
	assert_int_equal(t->r.steps[2].exit_code, 3);
	assert_int_equal(fake_vm_asked(&t->f, PROBE), 0);
	assert_int_equal(fake_vm_asked(&t->f, "a"), 1);
	assert_int_equal(fake_vm_asked(&t->f, "b"), 2);
	assert_int_equal(fake_vm_asked(&t->f, "c"), -1);
	assert_string_equal(t->r.message, "step 2 (bee, line 9): exit: expected 0, got 3");
	assert_int_equal(t->f.spawns, 1);
	assert_int_equal(t->f.stops, 1);
}

static void test_all_pass(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "a" }, { 0 } };
	const struct fake_qmp qmp[] = {
		{ "query-status", "{\"return\": {\"status\": \"running\", \"running\": true}}" },
		{ 0 },
	};

	t->f.cmds = cmds;
	t->f.qmp = qmp;
	run(t, "60s",
	    "  - run: a\n  - qmp: query-status\n    expect:\n      json: {status: running}\n");
	assert_int_equal(t->r.status, ST_PASS);
	assert_null(t->r.message);
	assert_int_equal(t->r.steps_count, 3);
	assert_int_equal(t->f.monitor_n, 1);
	assert_string_equal(t->f.monitor[0], "query-status");
	/* dmesg is read after the steps */
	assert_int_equal(fake_vm_asked(&t->f, "dmesg"), 2);
	assert_non_null(json_object_get(t->r.metrics, "boot_ms"));
}

/* ktap steps through the runner: {console: true} reads the kernel log
 * through the agent (KUnit's lines among other messages, with timestamps),
 * a command's KTAP fails the step naming its failed case; every case is a
 * subtest of its step. */
static void test_ktap_steps(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		{ .cmd = PROBE, .out = probe_ok },
		{ .cmd = "dmesg",
		  .out = "[    0.000000] Linux version 6.1.0\n[    0.900000] KTAP version 1\n"
			 "[    0.900001] 1..1\n[    0.900002]     # Subtest: list\n"
			 "[    0.900003]     1..1\n[    0.900004]     ok 1 init\n"
			 "[    0.900005] ok 1 list\n[    1.000000] Run /init as init process\n" },
		{ .cmd = "kt", .out = "TAP version 13\n1..2\nok 1 a\nnot ok 2 b\n" },
		{ 0 },
	};

	t->f.cmds = cmds;
	run(t, "60s", "  - ktap: {console: true}\n  - ktap: kt\n");
	assert_int_equal(t->r.steps_count, 3);
	assert_int_equal(t->r.steps[1].status, ST_PASS);
	assert_string_equal(t->r.steps[1].name, "ktap: console");
	assert_int_equal(t->r.steps[1].subtests_count, 2);
	assert_string_equal(t->r.steps[1].subtests[1].name, "list.init");
	assert_null(t->r.steps[1].out);
	assert_int_equal(t->r.steps[2].status, ST_FAIL);
	assert_int_equal(t->r.steps[2].subtests_count, 2);
	assert_string_equal(t->r.message, "step 2 (ktap: kt, line 9): 1 of 2 tests failed: b");
	assert_int_equal(t->r.status, ST_FAIL);
}

/* A ktap step whose tests all skipped is a skip of the scenario, with the
 * reasons, but does not end it: the next steps run, and one that fails
 * makes the scenario a failure. */
static void test_ktap_skip_goes_on(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS,
		{ .cmd = "kt", .out = "KTAP version 1\n1..1\nok 1 a # SKIP no device\n" },
		{ .cmd = "a" },
		{ .cmd = "b", .exit_code = 1 },
		{ 0 },
	};

	t->f.cmds = cmds;
	run(t, "60s", "  - ktap: kt\n  - run: a\n");
	assert_int_equal(t->r.status, ST_SKIP);
	assert_string_equal(t->r.message,
			    "step 1 (ktap: kt, line 8): all 1 tests skipped: a (no device)");
	assert_int_equal(t->r.steps_count, 3);
	assert_int_equal(t->r.steps[1].status, ST_SKIP);
	assert_int_equal(t->r.steps[2].status, ST_PASS);
	scenario_result_free(&t->r);
	scenario_free(t->s);
	t->s = NULL;
	fake_vm_clear(&t->f);
	memset(&t->f, 0, sizeof(t->f));
	t->f.cmds = cmds;
	run(t, "60s", "  - ktap: kt\n  - run: b\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message, "step 2 (run: b, line 9): exit: expected 0, got 1");
}

/* A machine that is not what the scenario declares: no step runs. */
static void test_machine_step_fails_first(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		{ .cmd = PROBE, .out = probe_1cpu }, { .cmd = "dmesg" }, { .cmd = "a" }, { 0 }
	};

	t->f.cmds = cmds;
	run(t, "60s", "  - run: a\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_int_equal(t->r.steps_count, 1);
	assert_int_equal(fake_vm_asked(&t->f, "a"), -1);
	assert_string_equal(t->r.message,
			    "step machine (line 4): CPUs online: declared 2, the guest sees 1");
}

static void test_step_timeout(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "sleep", .act = FAKE_HANG }, { 0 } };

	t->f.cmds = cmds;
	run(t, "60s", "  - run: sleep\n    timeout: 300ms\n  - run: a\n");
	assert_int_equal(t->r.status, ST_TIMEOUT);
	assert_string_equal(t->r.message,
			    "step 1 (run: sleep, line 8): step did not finish within 300ms");
	assert_int_equal(t->r.steps_count, 2);
	assert_in_range(t->r.steps[1].duration_ms, 300, 3000);
	/* what the stuck command was doing is asked for, then nothing else runs */
	assert_int_equal(fake_vm_asked(&t->f, "a"), -1);
	assert_int_equal(t->f.guest_n, 4); /* probe, sleep, the stuck probe, dmesg */
	assert_non_null(strstr(t->f.guest[2], "wchan"));
}

static void test_scenario_timeout_during_step(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "sleep", .act = FAKE_HANG }, { 0 } };

	t->f.cmds = cmds;
	run(t, "2s", "  - run: sleep\n    timeout: 1m\n");
	assert_int_equal(t->r.status, ST_TIMEOUT);
	assert_string_equal(t->r.message, "step 1 (run: sleep, line 8): scenario timeout (2s) "
					  "reached during this step");
	assert_in_range(t->r.duration_ms, 1900, 9000);
}

/* A step's delay is waited out, not cut short. */
static void test_slow_command(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "slow", .delay_ms = 400 }, { 0 } };

	t->f.cmds = cmds;
	run(t, "60s", "  - run: slow\n    timeout: 5s\n");
	assert_int_equal(t->r.status, ST_PASS);
	assert_in_range(t->r.steps[1].duration_ms, 400, 3000);
}

static void test_guest_dies_mid_step(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS, { .cmd = "crash", .act = FAKE_DIE }, { .cmd = "a" }, { 0 }
	};

	t->f.cmds = cmds;
	t->f.die_reason = "QEMU killed by signal 9: qemu: terminating on signal 9";
	run(t, "60s", "  - run: crash\n  - run: a\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message, "step 1 (run: crash, line 8): QEMU killed by signal 9: "
					  "qemu: terminating on signal 9");
	assert_int_equal(fake_vm_asked(&t->f, "a"), -1);
	/* the machine is gone: no dmesg is asked for */
	assert_int_equal(fake_vm_asked(&t->f, "dmesg"), -1);
	assert_non_null(t->r.console_tail);
}

static void test_panic_mid_step(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "oops", .act = FAKE_PANIC }, { 0 } };

	t->f.cmds = cmds;
	run(t, "60s", "  - run: oops\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message, "step 1 (run: oops, line 8): kernel panic on the "
					  "console: Kernel panic - not syncing: fake");
	assert_non_null(strstr(t->r.console_tail, "Kernel panic - not syncing: fake"));
}

static void test_boot_panic_is_a_fail(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "a" }, { 0 } };

	t->f.cmds = cmds;
	t->f.boot_console = "Linux version 6.1\nKernel panic - not syncing: VFS: no root\n";
	run(t, "60s", "  - run: a\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message,
			    "kernel panic during boot: Kernel panic - not syncing: VFS: no root");
	assert_int_equal(t->r.steps_count, 0);
	assert_int_equal(t->f.guest_n, 0);
}

static void test_boot_error_is_an_error(void **state)
{
	struct t *t = *state;

	t->f.spawn_ret = -ENOENT;
	run(t, "60s", "  - run: a\n");
	assert_int_equal(t->r.status, ST_ERROR);
	assert_string_equal(t->r.message,
			    "VM did not boot: cannot start qemu-fake: No such file or directory");
	assert_int_equal(t->f.stops, 1);
}

static void test_boot_never_done_is_a_timeout(void **state)
{
	struct t *t = *state;

	t->f.agent_silent = true;
	run(t, "1s", "  - run: a\n");
	assert_int_equal(t->r.status, ST_TIMEOUT);
	assert_string_equal(t->r.message, "boot did not finish within the scenario timeout: the "
					  "guest agent did not answer within the deadline");
}

/* S4: the machine powers off and starts again; the machine step checks it
 * again before the next step. */
#define S4_YAML                                                                                    \
	"name: t\n"                                                                                \
	"summary: a hibernation\n"                                                                 \
	"timeout: 60s\n"                                                                           \
	"machine:\n"                                                                               \
	"  cpus: 1\n"                                                                              \
	"  memory: 512M\n"                                                                         \
	"  sleep: [s4]\n"                                                                          \
	"  disks:\n"                                                                               \
	"    - {id: swap, bus: virtio, size: 768M, sector: 4kn}\n"                                 \
	"  hibernate: {disk: swap}\n"                                                              \
	"steps:\n"                                                                                 \
	"  - suspend: s4\n"                                                                        \
	"  - run: after\n"
#define S4_PROBE                                                                                   \
	"{\"cpus\":{\"online\":1,\"list\":\"0\",\"possible\":1},\"memory\":{\"total_kb\":"         \
	"431552,\"present_kb\":523736},\"numa\":{\"node_count\":1,\"nodes\":[{\"id\":0,\"cpus\":"  \
	"[0],\"memory_kb\":431552,\"present_kb\":523736}],\"distances\":[[10]]},\"sleep\":{"       \
	"\"states\":[\"freeze\",\"mem\",\"disk\"],\"mem_sleep\":[\"s2idle\"],\"disk\":"            \
	"[\"platform\",\"shutdown\"],\"s3\":false,\"s4\":true},\"balloon\":{\"device\":"           \
	"false,\"driver\":false,\"free_page_reporting\":false},\"display\":{\"pci\":[]},"          \
	"\"disks\":[{\"id\":\"swap\","                                                             \
	"\"name\":\"vda\",\"dev\":\"/dev/vda\",\"size_bytes\":805306368,"                          \
	"\"logical_block_size\":4096,\"physical_block_size\":4096,\"rotational\":true,"            \
	"\"zoned\":\"none\",\"zones\":0,\"serial\":\"swap\",\"transport\":\"virtio\",\"bus\":"     \
	"\"virtio\","                                                                              \
	"\"majmin\":\"254:0\",\"multipath\":null}]}"

static void test_machine_step_after_restart(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		{ .cmd = PROBE, .out = S4_PROBE },
		{ .cmd = "dmesg" },
		/* the image count before the hibernation, then after the restore */
		{ .cmd = "dmesg | grep -c 'PM: hibernation: Creating image'*",
		  .out = "0\n",
		  .once = true },
		{ .cmd = "dmesg | grep -c 'PM: hibernation: Creating image'*", .out = "1\n1000\n" },
		{ .cmd = "set -e; dev=$(readlink -f /dev/ktb/swap)*" },
		{ .cmd = "echo disk > /sys/power/state", .act = FAKE_POWEROFF, .delay_ms = 50 },
		{ .cmd = "after" },
		{ 0 },
	};
	struct scenario_error err;
	struct run_opts o = { .image = &t->img,
			      .artifacts_root = t->root,
			      .run_id = "r",
			      .sig_fd = -1,
			      .backend = &fake_vm_ops,
			      .debug_vmlinux = t->debug_vmlinux,
			      .debug_modules = t->debug_modules };
	unsigned probes = 0;

	memset(&err, 0, sizeof(err));
	t->img.bzimage = "fake-bzImage";
	t->f.cmds = cmds;
	assert_int_equal(scenario_load_buffer("t.yaml", S4_YAML, strlen(S4_YAML), &t->s, &err), 0);
	fake_vm_use(&t->f);
	assert_int_equal(runner_run_scenario(t->s, &o, &t->r), 0);
	assert_int_equal(t->r.status, ST_PASS);
	assert_int_equal(t->f.spawns, 2);
	assert_int_equal(t->r.steps_count, 4);
	assert_string_equal(t->r.steps[0].name, "machine");
	assert_string_equal(t->r.steps[1].name, "suspend: s4");
	assert_string_equal(t->r.steps[2].name, "machine");
	assert_int_equal(t->r.steps[2].status, ST_PASS);
	assert_string_equal(t->r.steps[3].name, "run: after");
	for (unsigned i = 0; i < t->f.guest_n; i++)
		probes += !strcmp(t->f.guest[i], PROBE);
	assert_int_equal(probes, 2);
	assert_true(fake_vm_asked(&t->f, PROBE) <
		    fake_vm_asked(&t->f, "echo disk > /sys/power/state"));
	assert_int_equal(json_integer_value(json_object_get(t->r.metrics, "hibernate_image_bytes")),
			 1000 * 4096);
}

/* A WARNING as the kernel prints it: the finding "WARNING in fake_func". */
#define WARN_TEXT                                                                                  \
	"[    5.100000] ------------[ cut here ]------------\n"                                    \
	"[    5.100001] WARNING: CPU: 0 PID: 57 at drivers/fake.c:12 fake_func+0x1a/0x40 [fake]\n" \
	"[    5.100002] Modules linked in: fake\n"                                                 \
	"[    5.100003] RIP: 0010:fake_func+0x1a/0x40 [fake]\n"                                    \
	"[    5.100004] Call Trace:\n"                                                             \
	"[    5.100005]  <TASK>\n"                                                                 \
	"[    5.100006]  fake_caller+0x10/0x20 [fake]\n"                                           \
	"[    5.100007]  do_one_initcall+0x41/0x200\n"                                             \
	"[    5.100008]  </TASK>\n"                                                                \
	"[    5.100009] ---[ end trace 0000000000000000 ]---\n"

/* A scenario that expects or tolerates no report ends the step on a
 * report's first line, as before; the report is a finding of that step. */
static void test_finding_ends_an_unprepared_step(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS, { .cmd = "a" }, { .cmd = "warn", .console = WARN_TEXT }, { 0 }
	};

	t->f.cmds = cmds;
	run(t, "60s", "  - run: a\n  - run: warn\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_non_null(strstr(t->r.message, "step 2 (run: warn, line 9): kernel warning on the "
					     "console"));
	assert_int_equal(t->r.findings_count, 1);
	assert_string_equal(t->r.findings[0].kind, "warning");
	assert_string_equal(t->r.findings[0].title, "WARNING in fake_func");
	assert_int_equal(t->r.findings[0].step, 2);
	assert_int_equal(t->r.findings[0].verdict, FINDING_FAILS);
	assert_int_equal(strlen(t->r.findings[0].signature), 64);
	assert_true(t->r.findings[0].frames_count >= 2);
}

/* Expected by its step: the scenario passes and goes on past it. */
static void test_finding_expected(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS, { .cmd = "warn", .console = WARN_TEXT }, { .cmd = "a" }, { 0 }
	};

	t->f.cmds = cmds;
	run(t, "60s", "  - run: warn\n    expect: {finding: \"^WARNING in fake_\"}\n  - run: a\n");
	assert_int_equal(t->r.status, ST_PASS);
	assert_int_not_equal(fake_vm_asked(&t->f, "a"), -1);
	assert_int_equal(t->r.findings_count, 1);
	assert_int_equal(t->r.findings[0].step, 1);
	assert_int_equal(t->r.findings[0].verdict, FINDING_EXPECTED);
	assert_string_equal(t->r.findings[0].reason, "^WARNING in fake_");
	assert_true(t->r.findings[0].console_line > 0);
}

/* An expected report that never came fails its step. */
static void test_finding_expected_missing(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS, { .cmd = "quiet" }, { .cmd = "a" }, { 0 } };

	t->f.cmds = cmds;
	run(t, "60s", "  - run: quiet\n    expect: {finding: \"^WARNING in \"}\n  - run: a\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message,
			    "step 1 (run: quiet, line 8): finding: expected a kernel report whose "
			    "title matches /^WARNING in / during the step; none was printed");
	assert_int_equal(t->r.findings_count, 0);
}

/* Tolerated by title, with the reason kept; one the list does not name
 * fails the step it was printed in, after the steps ran on. */
static void test_finding_tolerated_and_not(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS, { .cmd = "warn", .console = WARN_TEXT }, { .cmd = "a" }, { 0 }
	};
	const char *steps = "  - run: warn\n  - run: a\ntolerate:\n"
			    "  - {finding: \"^WARNING in fake_func$\", reason: \"known, bug 1\"}\n";

	t->f.cmds = cmds;
	run(t, "60s", steps);
	assert_int_equal(t->r.status, ST_PASS);
	assert_int_equal(t->r.findings[0].verdict, FINDING_TOLERATED);
	assert_string_equal(t->r.findings[0].reason, "known, bug 1");
	scenario_result_free(&t->r);
	scenario_free(t->s);
	fake_vm_clear(&t->f);
	memset(t->f.used, 0, sizeof(t->f.used));
	run(t, "60s",
	    "  - run: warn\n  - run: a\ntolerate:\n"
	    "  - {finding: \"^memcg OOM kill: \", reason: \"on purpose\"}\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_int_not_equal(fake_vm_asked(&t->f, "a"), -1);
	assert_int_equal(t->r.steps[1].status, ST_FAIL);
	assert_int_equal(t->r.steps[2].status, ST_PASS);
	assert_non_null(strstr(t->r.message, "step 1 (run: warn, line 8): kernel report: "
					     "WARNING in fake_func (console line "));
}

/* A report in a ktap step whose tests all skipped (the scenario tolerates
 * another, so the step ran to its end) fails that step and the scenario:
 * a skip must not hide the kernel's report. */
static void test_finding_in_a_skipped_step(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS,
		{ .cmd = "kt",
		  .out = "KTAP version 1\n1..1\nok 1 a # SKIP no device\n",
		  .console = WARN_TEXT },
		{ .cmd = "a" },
		{ 0 },
	};

	t->f.cmds = cmds;
	run(t, "60s",
	    "  - ktap: kt\n  - run: a\ntolerate:\n"
	    "  - {finding: \"^memcg OOM kill: \", reason: \"on purpose\"}\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_int_equal(t->r.steps[1].status, ST_FAIL);
	assert_int_equal(t->r.steps[2].status, ST_PASS);
	assert_non_null(strstr(t->r.message, "step 1 (ktap: kt, line 8): kernel report: "
					     "WARNING in fake_func (console line "));
}

/* The frames of a finding in file:line with a vmlinux that has DWARF (here
 * a program built for the purpose, whose kd_leaf stands for a kernel
 * function) and a folder of modules' .ko files (kd-fixture.ko, built for
 * it too); a module without its .ko stays raw, the finding saying which;
 * without a vmlinux, the finding says why not. */
static void test_finding_decoded(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS,
		{ .cmd = "warn",
		  .console = "[    5.100001] WARNING: CPU: 0 PID: 57 at drivers/fake.c:12 "
			     "kd_leaf+0x0/0x15\n"
			     "[    5.100003] RIP: 0010:kd_leaf+0x0/0x15\n"
			     "[    5.100004] Call Trace:\n"
			     "[    5.100005]  <TASK>\n"
			     "[    5.100006]  kd_outer+0x14/0x40\n"
			     "[    5.100007]  fake_caller+0x10/0x20 [fake]\n"
			     "[    5.100008]  kdm_entry+0x0/0x20 [kd_fixture]\n"
			     "[    5.100009]  </TASK>\n"
			     "[    5.100009] ---[ end trace 0000000000000000 ]---\n" },
		{ 0 }
	};
	const char *steps = "  - run: warn\n    expect: {finding: \"^WARNING in kd_leaf$\"}\n";

	t->f.cmds = cmds;
	t->debug_vmlinux = KDECODE_FIXTURE;
	t->debug_modules = KDECODE_MODULES;
	run(t, "60s", steps);
	assert_int_equal(t->r.status, ST_PASS);
	assert_int_equal(t->r.findings_count, 1);
	assert_non_null(t->r.findings[0].undecoded);
	assert_non_null(strstr(t->r.findings[0].undecoded, "module fake: no fake.ko in "));
	assert_string_equal(t->r.findings[0].frames[0].func, "kd_leaf");
	assert_true(t->r.findings[0].frames[0].locs_count >= 1);
	assert_non_null(strstr(t->r.findings[0].frames[0].locs[0].file, "kdecode_fixture.c"));
	/* kd_outer+0x14 is kd_inlined's code, inlined into kd_outer */
	assert_int_equal(t->r.findings[0].frames[1].locs_count, 2);
	assert_string_equal(t->r.findings[0].frames[1].locs[0].func, "kd_inlined");
	assert_string_equal(t->r.findings[0].frames[1].locs[1].func, "kd_outer");
	/* a module without its .ko stays raw; one with it is decoded */
	assert_int_equal(t->r.findings[0].frames[2].locs_count, 0);
	assert_true(t->r.findings[0].frames[3].locs_count >= 1);
	assert_string_equal(t->r.findings[0].frames[3].locs[0].func, "kdm_entry");
	assert_non_null(strstr(t->r.findings[0].frames[3].locs[0].file, "kdecode_module.c"));
	scenario_result_free(&t->r);
	scenario_free(t->s);
	fake_vm_clear(&t->f);
	memset(t->f.used, 0, sizeof(t->f.used));
	t->debug_vmlinux = NULL;
	t->debug_modules = NULL;
	run(t, "60s", steps);
	assert_non_null(t->r.findings[0].undecoded);
	assert_non_null(strstr(t->r.findings[0].undecoded, "no vmlinux with debug information"));
	assert_int_equal(t->r.findings[0].frames[0].locs_count, 0);
}

/* A report only dmesg had (the console's loglevel hid it) fails the
 * scenario, named, with no step. */
static void test_finding_in_dmesg_only(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { { .cmd = PROBE, .out = probe_ok },
					 { .cmd = "dmesg", .out = WARN_TEXT },
					 { .cmd = "a" },
					 { 0 } };

	t->f.cmds = cmds;
	run(t, "60s", "  - run: a\n");
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message, "kernel report in dmesg: WARNING in fake_func");
	assert_int_equal(t->r.findings_count, 1);
	assert_true(t->r.findings[0].from_dmesg);
	assert_int_equal(t->r.findings[0].step, -1);
}

/* A soft lockup as the kernel prints it: its head, then the rest. */
#define SPIN_HEAD                                                                                  \
	"[   42.516772] watchdog: BUG: soft lockup - CPU#0 stuck for 15s! [sh:74]\n"               \
	"[   42.518496] CPU: 0 PID: 74 Comm: sh Tainted: G      D\n"
#define SPIN_REST                                                                                  \
	"[   42.519000] RIP: 0010:lkdtm_SOFTLOCKUP+0x10/0x20\n"                                    \
	"[   42.519001] Call Trace:\n"                                                             \
	"[   42.519002]  <TASK>\n"                                                                 \
	"[   42.519003]  direct_entry+0x10/0x20\n"                                                 \
	"[   42.519004]  </TASK>\n"
#define SPIN_STEP                                                                                  \
	"  - run: spin\n    expect: {finding: \"^BUG: soft lockup in lkdtm_SOFTLOCKUP$\"}\n"

/* The last step ends while the kernel prints a report (its head is in,
 * the rest comes 300 ms later): the console is read on until the report
 * is whole, and the step's expectation sees its title. */
static void test_finding_whole_after_the_steps(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		BASE_ROWS,
		{ .cmd = "spin",
		  .console = SPIN_HEAD,
		  .console_later = SPIN_REST,
		  .console_later_ms = 300 },
		{ 0 },
	};

	t->f.cmds = cmds;
	run(t, "60s", SPIN_STEP);
	assert_int_equal(t->r.status, ST_PASS);
	assert_int_equal(t->r.findings_count, 1);
	assert_string_equal(t->r.findings[0].title, "BUG: soft lockup in lkdtm_SOFTLOCKUP");
	assert_int_equal(t->r.findings[0].verdict, FINDING_EXPECTED);
}

/* The rest never comes (the guest stopped printing): after a quiet
 * second the head is judged as it is, and fails the step. */
static void test_finding_cut_for_good(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = { BASE_ROWS,
					 { .cmd = "spin", .console = SPIN_HEAD },
					 { 0 } };

	t->f.cmds = cmds;
	run(t, "60s", SPIN_STEP);
	assert_int_equal(t->r.status, ST_FAIL);
	assert_string_equal(t->r.message,
			    "step 1 (run: spin, line 8): kernel report: BUG: soft lockup (console "
			    "line 1)");
}

/* A dmesg taken while the kernel printed the report is taken again: the
 * whole one is kept, and it is the console's report, not one of its own. */
static void test_dmesg_taken_again(void **state)
{
	struct t *t = *state;
	const struct fake_cmd cmds[] = {
		{ .cmd = "dmesg", .out = SPIN_HEAD, .once = true },
		{ .cmd = "dmesg", .out = SPIN_HEAD SPIN_REST },
		{ .cmd = PROBE, .out = probe_ok },
		{ .cmd = "spin", .console = SPIN_HEAD SPIN_REST },
		{ 0 },
	};
	unsigned asked = 0;

	t->f.cmds = cmds;
	run(t, "60s", SPIN_STEP);
	assert_int_equal(t->r.status, ST_PASS);
	assert_int_equal(t->r.findings_count, 1);
	assert_false(t->r.findings[0].from_dmesg);
	for (unsigned i = 0; i < t->f.guest_n; i++)
		asked += !strcmp(t->f.guest[i], "dmesg");
	assert_int_equal(asked, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_steps_in_order_first_failure_ends, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_all_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ktap_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ktap_skip_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_machine_step_fails_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_machine_step_after_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scenario_timeout_during_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_dies_mid_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_panic_mid_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_panic_is_a_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_error_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_never_done_is_a_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_ends_an_unprepared_step, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_finding_expected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_expected_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_tolerated_and_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_in_a_skipped_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_in_dmesg_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_decoded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_whole_after_the_steps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_finding_cut_for_good, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dmesg_taken_again, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
