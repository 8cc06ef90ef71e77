/* Scenario loader: every valid form parses into the structs, every kind of
 * bad input is refused with the exact file:line:col and field path. */
#include <dirent.h>
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

#define DATA KTB_TEST_DATA "/scenarios/"

static struct scenario *load_ok(const char *file)
{
	struct scenario_error err;
	struct scenario *s = NULL;
	char msg[1024];
	int ret = scenario_load(file, &s, &err);

	if (ret) {
		scenario_error_format(&err, msg, sizeof(msg));
		print_error("unexpected error: %s\n", msg);
	}
	assert_int_equal(ret, 0);
	assert_non_null(s);
	return s;
}

static void test_minimal(void **state)
{
	struct scenario *s = load_ok(DATA "minimal.yaml");

	(void)state;
	assert_string_equal(s->name, "minimal");
	assert_int_equal(s->timeout_ms, 120000);
	assert_non_null(s->machine);
	assert_int_equal(s->machine->cpus, 1);
	assert_int_equal(s->machine->memory_bytes, 512ull << 20);
	assert_int_equal(s->machine->disks_count, 0);
	assert_null(s->machine->numa);
	assert_int_equal(s->machine->sleep, 0);
	assert_int_equal(s->steps_count, 1);
	assert_int_equal(s->steps[0].kind, STEP_RUN);
	assert_string_equal(s->steps[0].run, "true");
	assert_string_equal(s->steps[0].name, "run: true");
	assert_int_equal(s->steps[0].timeout_ms, 60000);
	assert_int_equal(s->steps[0].line, 2);
	assert_string_equal(s->file, DATA "minimal.yaml");
	scenario_free(s);
}

/* kernel.requires: the names as given, in order; a file without it has none. */
static void test_requires(void **state)
{
	struct scenario *s = load_ok(DATA "good-requires.yaml");

	(void)state;
	assert_string_equal(s->kernel->cmdline, "quiet");
	assert_int_equal(s->kernel->requires_count, 2);
	assert_string_equal(s->kernel->requires[0], "CONFIG_KPROBES");
	assert_string_equal(s->kernel->requires[1], "CONFIG_FTRACE");
	scenario_free(s);
	s = load_ok(DATA "full.yaml");
	assert_int_equal(s->kernel->requires_count, 0);
	scenario_free(s);
}

/* kernel.requires with =y: the name without it, and that it must be built in. */
static void test_requires_builtin(void **state)
{
	struct scenario *s = load_ok(DATA "good-requires-builtin.yaml");

	(void)state;
	assert_int_equal(s->kernel->requires_count, 3);
	assert_string_equal(s->kernel->requires[0], "CONFIG_KUNIT");
	assert_true(s->kernel->requires_builtin[0]);
	assert_string_equal(s->kernel->requires[1], "CONFIG_FTRACE");
	assert_false(s->kernel->requires_builtin[1]);
	assert_string_equal(s->kernel->requires[2], "CONFIG_BLK_DEV_NVME");
	assert_true(s->kernel->requires_builtin[2]);
	scenario_free(s);
}

/* Patterns that some text misses load, though they match the empty text
 * ("^$": a JSON value that is "") or every one-byte text ("[^a]|^$" misses
 * "a"): only a pattern that matches every text checks nothing. */
static void test_regex_not_any(void **state)
{
	static const char y[] = "steps:\n"
				"  - run: ktb-probe machine\n"
				"    expect:\n"
				"      stdout: \"[^a]|^$\"\n"
				"      json: {cmdline: {re: \"^$\"}, model: {re: \"^.+$\"}}\n"
				"  - wait: 1s\n"
				"    for: \"^.\"\n";
	struct scenario_error err;
	struct scenario *s = NULL;

	(void)state;
	if (scenario_load_buffer("re.yaml", y, strlen(y), &s, &err))
		fail_msg("%d:%d: %s: %s", err.line, err.col, err.field, err.msg);
	scenario_free(s);
}

/* metrics on run steps: the field paths as written. */
static void test_metrics(void **state)
{
	struct scenario *s = load_ok(DATA "good-metrics.yaml");
	char *name = step_metric_name(s->steps[0].metrics[1]);

	(void)state;
	assert_int_equal(s->steps[0].metrics_count, 2);
	assert_string_equal(s->steps[0].metrics[0], "huge_pct");
	assert_string_equal(name, "system_latency_ms");
	free(name);
	scenario_free(s);
}

/* asleep_screen: a capture a later screen step may compare with. */
static void test_asleep_screen(void **state)
{
	struct scenario *s = load_ok(DATA "good-asleep-screen.yaml");
	struct step *st = s->steps;

	(void)state;
	assert_int_equal(st[0].kind, STEP_SUSPEND);
	assert_string_equal(st[0].asleep_screen, "dark");
	assert_string_equal(st[2].same_as, "dark");
	scenario_free(s);
}

/* awake_screen: the earlier capture and how long the display may take to
 * come back (default 5 s). */
static void test_awake_screen(void **state)
{
	struct scenario *s = load_ok(DATA "good-awake-screen.yaml");
	struct step *st = s->steps;

	(void)state;
	assert_null(st[0].awake_screen);
	assert_non_null(st[1].awake_screen);
	assert_string_equal(st[1].awake_screen->same_as, "before");
	assert_int_equal(st[1].awake_screen->within_ms, 3000);
	assert_string_equal(st[1].asleep_screen, "dark");
	assert_int_equal(st[2].awake_screen->within_ms, 5000);
	scenario_free(s);
}

/* ktap's three forms: a command, {run: CMD}, {console: true}. */
static void test_ktap(void **state)
{
	struct scenario *s = load_ok(DATA "good-ktap.yaml");
	struct step *st = s->steps;

	(void)state;
	assert_int_equal(st[0].kind, STEP_KTAP);
	assert_string_equal(st[0].ktap, "/usr/lib/kselftest/timers/nanosleep");
	assert_false(st[0].ktap_console);
	assert_string_equal(st[0].name, "ktap: /usr/lib/kselftest/timers/nanosleep");
	assert_string_equal(st[1].ktap, "printf ok");
	assert_false(st[1].ktap_console);
	assert_true(st[2].ktap_console);
	assert_string_equal(st[2].name, "ktap: console");
	assert_int_equal(st[2].timeout_ms, 5000);
	assert_string_equal(step_kind_name(STEP_KTAP), "ktap");
	scenario_free(s);
}

static void test_full(void **state)
{
	struct scenario *s = load_ok(DATA "full.yaml");
	struct machine *m = s->machine;
	json_t *j;

	(void)state;
	assert_string_equal(s->name, "s3-nvme-4kn");
	assert_non_null(strstr(s->summary, "4Kn NVMe"));
	assert_int_equal(s->tags_count, 2);
	assert_string_equal(s->tags[1], "storage");
	assert_string_equal(s->kernel->cmdline, "initcall_debug");
	assert_int_equal(m->cpus, 2);
	assert_int_equal(m->memory_bytes, 1ull << 30);
	assert_int_equal(m->sleep, SLEEP_S3 | SLEEP_S4);
	assert_int_equal(m->disks_count, 1);
	assert_string_equal(m->disks[0].id, "data");
	assert_int_equal(m->disks[0].bus, DISK_BUS_NVME);
	assert_int_equal(m->disks[0].sector, DISK_SECTOR_4KN);
	assert_int_equal(m->disks[0].size_bytes, 256ull << 20);
	assert_int_equal(m->disks[0].paths, 1);
	assert_int_equal(m->numa->nodes_count, 2);
	assert_int_equal(m->numa->nodes[1].cpus[0], 1);
	assert_int_equal(m->numa->nodes[1].memory_bytes, 512ull << 20);
	assert_int_equal(m->numa->distances_count, 4);
	assert_int_equal(m->numa->distances[1], 20);
	assert_int_equal(s->steps_count, 3);
	assert_int_equal(s->steps[2].line, 27);
	j = s->steps[2].expect->json;
	assert_int_equal(json_integer_value(json_object_get(j, "logical_block_size")), 4096);
	assert_true(machine_needs_bios_boot(m));
	scenario_free(s);
}

static void test_numa_distances(void **state)
{
	struct scenario *s = load_ok(DATA "numa-4.yaml");
	struct numa *nu = s->machine->numa;

	(void)state;
	assert_int_equal(nu->nodes_count, 4);
	assert_int_equal(nu->nodes[0].cpus_count, 3);
	assert_int_equal(nu->nodes[2].cpus_count, 0);
	assert_int_equal(nu->nodes[3].cpus_count, 0);
	assert_int_equal(nu->distances_count, 16);
	assert_int_equal(nu->distances[2 * 4 + 3], 15);
	assert_int_equal(nu->distances[3 * 4 + 0], 40);
	assert_int_equal(s->machine->sleep, SLEEP_S4);
	assert_false(machine_needs_bios_boot(s->machine));
	assert_int_equal(s->steps[0].kind, STEP_WAIT);
	assert_int_equal(s->steps[0].wait_ms, 2000);
	scenario_free(s);
}

static void test_steps(void **state)
{
	struct scenario *s = load_ok(DATA "steps.yaml");
	struct step *st = s->steps;
	json_t *j, *a;

	(void)state;
	assert_string_equal(s->name, "steps.kinds_1");
	assert_int_equal(s->timeout_ms, 300000);
	assert_int_equal(s->steps_count, 6);
	assert_int_equal(st[0].kind, STEP_QMP);
	assert_string_equal(st[0].name, "status");
	j = st[0].expect->json;
	assert_string_equal(json_string_value(json_object_get(j, "status")), "running");
	a = json_object_get(json_object_get(json_object_get(j, "nested"), "a"), "b");
	assert_int_equal(json_array_size(a), 7);
	assert_int_equal(json_integer_value(json_array_get(a, 0)), 1);
	assert_true(json_real_value(json_array_get(a, 1)) == 2.5);
	assert_string_equal(json_string_value(json_array_get(a, 2)), "3");
	assert_true(json_is_true(json_array_get(a, 3)));
	assert_true(json_is_null(json_array_get(a, 4)));
	assert_true(json_is_null(json_array_get(a, 5)));
	assert_string_equal(json_string_value(json_array_get(a, 6)), "yes");

	assert_int_equal(st[1].kind, STEP_QMP);
	assert_int_equal(json_integer_value(json_object_get(st[1].arguments, "value")), 268435456);
	assert_int_equal(st[1].timeout_ms, 10000);
	assert_string_equal(st[1].name, "qmp: balloon");
	assert_int_equal(st[1].line, 10);
	assert_string_equal(st[2].qmp, "{\"execute\": \"system_wakeup\"}");
	assert_null(st[2].arguments);

	assert_int_equal(st[3].kind, STEP_RUN);
	assert_int_equal(*st[3].expect->exit, 3);
	assert_string_equal(st[3].expect->stdout_re, "^MemTotal: +[0-9]+");
	j = json_object_get(st[3].expect->json, "mem_total");
	assert_int_equal(json_integer_value(json_object_get(j, "ge")), 1000);
	assert_int_equal(json_integer_value(json_object_get(j, "le")), 2000);
	j = json_object_get(st[3].expect->json, "node.0.mem");
	assert_string_equal(json_string_value(json_object_get(j, "re")), "^[0-9]+$");

	assert_int_equal(st[4].kind, STEP_WAIT);
	assert_int_equal(st[4].wait_ms, 30000);
	assert_string_equal(st[4].wait_for, "Freezing user space");
	assert_int_equal(st[5].wait_ms, 500);
	assert_string_equal(step_kind_name(STEP_WAIT), "wait");
	scenario_free(s);
}

/* One bad file each: where the loader must point and what it must say. */
static const struct bad_case {
	const char *file;
	int line, col;
	const char *field;
	const char *msg; /* a substring of the message */
} bad_cases[] = {
	{ "bad-unknown-top", 3, 1, "",
	  "unknown key \"buz\" (expected one of: name, summary, "
	  "tags, timeout, kernel, guest, machine, steps, tolerate)" },
	{ "bad-finding-any", 4, 23, "steps[0].expect.finding",
	  "/.*/ matches any report's title: it checks nothing" },
	{ "bad-tolerate-reason", 5, 39, "tolerate[0].reason",
	  "an empty reason; say why this kernel report is no failure here" },
	{ "bad-tolerate-regex", 5, 15, "tolerate[0].finding",
	  "not a POSIX extended regular expression" },
	{ "bad-requires-name", 4, 7, "kernel.requires[1]",
	  "\"config_ftrace\" is not a kernel option name; give it as .config spells it" },
	{ "bad-requires-dup", 2, 45, "kernel.requires[2]",
	  "CONFIG_KPROBES is already kernel.requires[0]" },
	{ "bad-unknown-machine", 4, 3, "machine", "unknown key \"gpus\"" },
	{ "bad-screen-nodisplay", 2, 13, "steps[0].screen",
	  "the machine has no display; give it display: bochs-display" },
	{ "bad-screen-same-as", 5, 14, "steps[0].same_as",
	  "no earlier step saved the capture \"before\"; give one screen: before" },
	{ "bad-metrics-path", 4, 18, "steps[0].metrics[1]",
	  "\"a..b\" is not a field path: words of [a-z0-9_] joined by '.'" },
	{ "bad-metrics-dup", 7, 9, "steps[1].metrics[0]",
	  "x.y sets the metric x_y, which steps[0] already sets" },
	{ "bad-metrics-kind", 4, 14, "steps[0].metrics",
	  "\"metrics\" belongs to a run step, this is a wait step" },
	{ "bad-asleep-screen-s4", 10, 20, "steps[0].asleep_screen",
	  "s4 powers the machine off: there is no screen while asleep" },
	{ "bad-asleep-screen-dup", 10, 20, "steps[1].asleep_screen",
	  "an earlier step already saved the capture \"asleep\"" },
	{ "bad-asleep-screen-cycles", 8, 20, "steps[0].asleep_screen",
	  "one capture per step: give cycles: 1" },
	{ "bad-awake-screen-same-as", 8, 29, "steps[0].awake_screen.same_as",
	  "no earlier step saved the capture \"dark\"; give one screen: dark" },
	{ "bad-awake-screen-rtc", 9, 19, "steps[1].awake_screen",
	  "wake: rtc is the guest's own alarm: the host has no wake to time from; wake by qmp" },
	{ "bad-awake-screen-within", 10, 15, "steps[1].awake_screen.within",
	  "\"soon\" is not a duration" },
	{ "bad-awake-screen-long", 8, 45, "steps[1].awake_screen.within",
	  "2m is more than 30s: the guest is asked whether it is back only after the captures" },
	{ "bad-awake-screen-key", 8, 37, "steps[1].awake_screen",
	  "unknown key \"poll\" (expected one of: same_as, within)" },
	{ "bad-awake-screen-missing", 8, 19, "steps[1].awake_screen",
	  "missing required key \"same_as\"" },
	{ "bad-awake-screen-nodisplay", 6, 19, "steps[0].awake_screen",
	  "the machine has no display; give it display: bochs-display" },
	{ "bad-awake-screen-on-screen", 6, 19, "steps[0].awake_screen",
	  "\"awake_screen\" belongs to a suspend step, this is a screen step" },
	{ "bad-screen-poll", 5, 11, "steps[0].poll",
	  "poll: captures until the screen equals same_as; give same_as" },
	{ "bad-unknown-disk", 9, 7, "machine.disks[1]",
	  "unknown key \"wwn\" (expected one of: "
	  "id, bus, size, sector, paths, rotational, image, multipath, zoned, hybrid)" },
	{ "bad-unknown-step", 4, 5, "steps[2]",
	  "unknown key \"sleep\" (expected one of: name, "
	  "run, wait, for, qmp, arguments, suspend, wake, after, pm_test, cycles, refused, "
	  "asleep_screen, awake_screen, "
	  "fail_path, "
	  "restore_path, timeout, balloon, measure, as, since, within, settle, power_loss, "
	  "hybrid_stats, ktap, screen, same_as, poll, junit, file, blktests, results, metrics, "
	  "expect)" },
	{ "bad-ktap-key", 2, 25, "steps[0].ktap", "\"timeout\" is not a ktap key" },
	{ "bad-ktap-both", 2, 11, "steps[0].ktap", "run: and console: both" },
	{ "bad-ktap-console", 3, 16, "steps[0].ktap.console", "only true" },
	{ "bad-ktap-empty", 2, 11, "steps[0].ktap", "give a command" },
	{ "bad-ktap-list", 2, 11, "steps[0].ktap", "give a command" },
	{ "bad-s2idle-wake", 3, 11, "steps[0].wake",
	  "qmp cannot end s2idle: QEMU's system_wakeup "
	  "and the RTC alarm do not wake s2idle; use key or button" },
	{ "bad-suspend-state", 2, 14, "steps[0].suspend", "\"s5\" is not one of s3, s2idle, s4" },
	{ "bad-wake-on-run", 3, 11, "steps[0].wake",
	  "\"wake\" belongs to a suspend step, this "
	  "is a run step" },
	{ "bad-pm-test", 3, 14, "steps[0].pm_test",
	  "\"cpu\" is not one of freezer, devices, "
	  "platform, processors, core" },
	{ "bad-refused", 3, 14, "steps[0].refused",
	  "\"busy\" is not freezing (the only refusal a step can expect)" },
	{ "bad-refused-cycles", 4, 14, "steps[0].refused",
	  "refused: freezing takes one cycle of s3 or s2idle, no pm_test" },
	{ "bad-unknown-expect", 5, 7, "steps[0].expect",
	  "unknown key \"stderr\" (expected one "
	  "of: exit, stdout, json, finding)" },
	{ "bad-cpus-type", 2, 9, "machine.cpus",
	  "expected a whole number (0 or more), got "
	  "\"two\"" },
	{ "bad-exit-type", 4, 13, "steps[0].expect.exit",
	  "expected a whole number, got "
	  "\"nonzero\"" },
	{ "bad-missing-id", 7, 7, "machine.disks[1]", "missing required key \"id\"" },
	{ "bad-missing-steps", 1, 1, "", "missing required key \"steps\"" },
	{ "bad-no-steps-list", 1, 8, "steps", "at least one step" },
	{ "bad-sector-enum", 6, 15, "machine.disks[0].sector",
	  "\"4k\" is not one of 512n, 512e, "
	  "4kn" },
	{ "bad-sleep-flag", 4, 7, "machine.sleep", "\"s5\" is not one of s3, s4" },
	{ "bad-dup-key", 4, 1, "", "key \"name\" appears twice" },
	{ "bad-root-scalar", 1, 1, "", "expected a mapping, got \"just a string\"" },
	{ "bad-step-timeout", 4, 14, "steps[1].timeout", "\"5 parsecs\" is not a duration" },
	{ "bad-scenario-timeout", 2, 10, "timeout", "\"soon\" is not a duration" },
	{ "bad-wait", 2, 11, "steps[0].wait", "\"forever\" is not a duration" },
	{ "bad-two-actions", 3, 5, "steps[1]", "two actions (run and qmp)" },
	{ "bad-no-action", 3, 5, "steps[1]", "no action; give one of run, wait, qmp" },
	{ "bad-for-on-run", 3, 10, "steps[0].for", "\"for\" belongs to a wait step" },
	{ "bad-qmp-json", 2, 10, "steps[0].qmp", "\"execute\"" },
	{ "bad-regex", 4, 15, "steps[0].expect.stdout", "not a POSIX extended regular expression" },
	{ "bad-regex-any", 4, 15, "steps[0].expect.stdout",
	  "/.*/ matches any output, even none: it checks nothing; write what the output "
	  "must hold" },
	{ "bad-regex-stdout-empty", 4, 15, "steps[0].expect.stdout",
	  "// matches any output, even none: it checks nothing" },
	{ "bad-regex-empty", 3, 10, "steps[0].for",
	  "// matches any console line, even an empty one, so the wait ends at the first "
	  "line: it checks nothing; write what the line waited for holds" },
	{ "bad-regex-alt-empty", 3, 10, "steps[0].for", "/(Freezing|)/ matches any console line" },
	{ "bad-regex-json-any", 4, 37, "steps[0].expect.json.cmdline.re",
	  "/^.*$/ matches any string, even \"\": it checks nothing; write what the value "
	  "must be" },
	{ "bad-json-empty", 4, 13, "steps[0].expect.json",
	  "an empty mapping checks nothing; give the values to check" },
	{ "bad-expect-empty", 3, 13, "steps[0].expect",
	  "an empty expect checks nothing; give exit, stdout or json" },
	{ "bad-screen-nothing", 5, 13, "steps[0].screen",
	  "a capture with neither expect nor same_as passes whatever the screen shows" },
	{ "bad-requires-n", 2, 30, "kernel.requires[1]",
	  "\"CONFIG_FTRACE=n\": kernel.requires lists what the scenario needs, not what it "
	  "must lack; write CONFIG_FTRACE (built in or a module) or CONFIG_FTRACE=y (built "
	  "in)" },
	{ "bad-requires-m", 4, 7, "kernel.requires[1]",
	  "\"CONFIG_LIST_KUNIT_TEST=m\": a module cannot be required" },
	{ "bad-requires-value", 2, 14, "kernel.requires[0]",
	  "\"CONFIG_KUNIT=yes\": only =y may follow an option" },
	{ "bad-json-list", 4, 13, "steps[0].expect.json", "expected a mapping, got a list" },
	{ "bad-Name", 0, 0, "name", "rename the file or set name:" },
	{ "bad-sata-4kn", 6, 15, "machine.disks[0].sector",
	  "QEMU's ide-hd cannot present "
	  "4096-byte logical sectors; use virtio, scsi or nvme" },
	{ "bad-nvme-512e", 6, 15, "machine.disks[0].sector",
	  "QEMU's nvme-ns reports 512/512 for "
	  "512e; use virtio, scsi or sata" },
	{ "bad-paths", 6, 14, "machine.disks[0].paths",
	  "paths > 1 on virtio: QEMU gives this bus "
	  "one path per disk; use nvme (native NVMe multipath) or scsi (dm-multipath)" },
	{ "bad-mp-paths-max", 3, 45, "machine.disks[0].paths", "5 paths; a disk takes at most 4" },
	{ "bad-mp-nvme-mode", 3, 59, "machine.disks[0].multipath",
	  "native NVMe multipath, "
	  "which has no mode; drop multipath" },
	{ "bad-mp-one-path", 3, 49, "machine.disks[0].multipath",
	  "multipath needs paths: 2 or "
	  "more" },
	{ "bad-mp-mode", 3, 66, "machine.disks[0].multipath.mode",
	  "\"request\" is not one of "
	  "rq, bio" },
	{ "bad-zoned-bus", 3, 44, "machine.disks[0].zoned",
	  "NVMe ZNS namespaces here; use bus: "
	  "nvme" },
	{ "bad-zoned-size", 3, 56, "machine.disks[0].zoned.zone_size",
	  "24M does not divide the "
	  "disk's 64M into whole zones" },
	{ "bad-fail-path-disk", 5, 23, "steps[0].fail_path.disk",
	  "\"nope\" is not one of the "
	  "machine's disks" },
	{ "bad-fail-path-path", 6, 36, "steps[1].restore_path.path",
	  "disk mp has paths 0 to 1; "
	  "there is no path 2" },
	{ "bad-fail-path-single", 5, 23, "steps[0].fail_path.disk",
	  "disk one has one path; give "
	  "it paths: 2 or more" },
	{ "bad-hybrid", 6, 23, "machine.disks[0].hybrid.cache", "no larger than the disk" },
	{ "bad-dup-ids", 4, 12, "machine.disks[1].id", "already the id of machine.disks[0]" },
	{ "bad-disk-size", 5, 13, "machine.disks[0].size", "not a multiple of" },
	{ "bad-distances-asym", 9, 14, "machine.numa.distances[0][1]",
	  "20 but distances[1][0] is "
	  "21; distances must be symmetric" },
	{ "bad-distances-diag", 9, 22, "machine.numa.distances[1][1]", "12 on the diagonal" },
	{ "bad-numa-cpus", 6, 7, "machine.numa.nodes", "cpu 2 is in no node" },
	{ "bad-numa-memory", 6, 7, "machine.numa.nodes",
	  "add up to 768M but machine.memory is 1G" },
	{ "bad-syntax", 4, 4, "", "YAML syntax error" },
	{ "bad-empty", 1, 1, "", "the file is empty" },
};

static void check_bad(const struct bad_case *b)
{
	struct scenario_error err;
	struct scenario *s = (struct scenario *)1;
	char path[512], msg[1024];
	int ret;

	snprintf(path, sizeof(path), DATA "%s.yaml", b->file);
	ret = scenario_load(path, &s, &err);
	scenario_error_format(&err, msg, sizeof(msg));
	print_message("%s\n", msg);
	assert_int_equal(ret, -EINVAL);
	assert_null(s);
	assert_string_equal(err.file, path);
	assert_string_equal(err.field, b->field);
	assert_int_equal(err.line, b->line);
	assert_int_equal(err.col, b->col);
	if (!strstr(err.msg, b->msg))
		fail_msg("%s: message \"%s\" lacks \"%s\"", b->file, err.msg, b->msg);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		check_bad(&bad_cases[i]);
}

static void test_missing_file(void **state)
{
	struct scenario_error err;
	struct scenario *s;
	char msg[1024];

	(void)state;
	assert_int_equal(scenario_load(DATA "no-such.yaml", &s, &err), -ENOENT);
	assert_null(s);
	scenario_error_format(&err, msg, sizeof(msg));
	assert_string_equal(msg, DATA "no-such.yaml: cannot read the scenario: No such file or "
				      "directory");
	assert_int_equal(scenario_load(DATA, &s, &err), -EISDIR);
}

static void test_error_format(void **state)
{
	struct scenario_error e = {
		.file = "a.yaml", .line = 3, .col = 5, .field = "steps[2]", .msg = "no action"
	};
	char buf[256];

	(void)state;
	scenario_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "a.yaml:3:5: steps[2]: no action");
	e.col = 0;
	scenario_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "a.yaml:3: steps[2]: no action");
	e.line = 0;
	e.field[0] = '\0';
	scenario_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "a.yaml: no action");
	scenario_error_format(&e, buf, 4);
	assert_string_equal(buf, "a.y");
}

static void test_multipath(void **state)
{
	struct scenario *s = load_ok(DATA "multipath.yaml");
	const struct disk *d = s->machine->disks;

	(void)state;
	assert_int_equal(d[1].paths, 3);
	assert_non_null(d[1].multipath);
	assert_int_equal(d[1].multipath->mode, MULTIPATH_BIO);
	assert_int_equal(d[1].multipath->no_path, MULTIPATH_FAIL);
	assert_null(d[0].multipath);
	assert_null(d[1].zoned);
	assert_non_null(d[2].zoned);
	assert_int_equal(d[2].zoned->zone_size_bytes, 16ull << 20);
	assert_int_equal(s->steps[0].kind, STEP_FAIL_PATH);
	assert_string_equal(s->steps[0].name, "fail_path: mp path 2");
	assert_int_equal(s->steps[0].fail_path->disk_index, 1);
	assert_int_equal(s->steps[0].fail_path->path, 2);
	assert_int_equal(s->steps[1].kind, STEP_RESTORE_PATH);
	assert_string_equal(s->steps[1].name, "back");
	assert_int_equal(s->steps[1].restore_path->disk_index, 1);
	assert_non_null(s->steps[1].expect);
	assert_string_equal(step_kind_name(STEP_RESTORE_PATH), "restore_path");
	scenario_free(s);
}

/* Hostile input, from memory: each is refused at an exact place, by the
 * limits (scenario_limits.c) before anything is built from it. */
static const struct buf_case {
	const char *yaml;
	size_t len; /* 0: strlen */
	int line, col;
	const char *field;
	const char *msg;
} buf_cases[] = {
	{ "steps:\n  - run: x\n    expect: {stdout: \"(((a{1,1000}){1,1000}){1,1000})\"}\n", 0, 3,
	  22, "steps[0].expect.stdout", "a repetition count over 255" },
	{ "steps:\n  - wait: 1s\n    for: \"(a{,255}){,255}\"\n", 0, 3, 10, "steps[0].for",
	  "expand to more than 1000" },
	{ "steps:\n  - wait: 1s\n    for: \"(((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)\"\n", 0, 3, 10,
	  "steps[0].for", "expand to more than 1000" },
	{ "steps:\n  - wait: 1s\n    for: \"(()|^b?){64}\"\n", 0, 3, 10, "steps[0].for",
	  "an anchor (^, $, \\b, ...) under a repetition" },
	{ "steps:\n  - wait: 1s\n    for: \"(^|[^0-9])[0-9]+$\"\n", 0, 0, 0, NULL, NULL },
	/* found by fuzz/scenario: glibc compiled these for hours */
	{ "steps:\n  - wait: 1s\n    for: \"b???{33}*\"\n", 0, 3, 10, "steps[0].for",
	  "matches the empty string in more than 1024 ways" },
	{ "steps:\n  - wait: 1s\n    for: \"x((b|)?){33}*\"\n", 0, 3, 10, "steps[0].for",
	  "matches the empty string in more than 1024 ways" },
	{ "steps:\n  - wait: 1s\n    for: "
	  "\"x((b?\?)(b?\?)(b?\?)(b?\?)(b?\?)(b?\?)(b?\?)(b?\?)(b?\?)(b?\?)(b?\?))*\"\n",
	  0, 3, 10, "steps[0].for", "matches the empty string in more than 1024 ways" },
	{ "steps:\n  - wait: 1s\n    for: \"x(y(b?)?z(c?)?){5}*\"\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - wait: 1s\n    for: \"x((b?)?){10}\"\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - wait: 1s\n    for: \"x(b?){33}*\"\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - wait: 1s\n    for: \"(a{15}){15}\"\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - run: x\n    expect: {stdout: \"(a)\\\\1\"}\n", 0, 3, 22,
	  "steps[0].expect.stdout", "back-reference \\1" },
	{ "steps:\n  - run: x\n    expect: {json: {a.b: {ge: 1, re: \"a{300}\"}}}\n", 0, 3, 38,
	  "steps[0].expect.json.a.b.re", "a repetition count over 255" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {re: [x]}}}\n", 0, 3, 29,
	  "steps[0].expect.json.a.re", "expected a string" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {re: x, other: 1}}}\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - qmp: x\n    arguments: {a: &a [1], b: *a}\n", 0, 3, 20,
	  "steps[0].arguments.a", "anchors and aliases" },
	{ "steps:\n  - run: x\n    expect: {json: {a: "
	  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]"
	  "]]]]]]]]]]}}}\n",
	  0, 3, 51,
	  "steps[0].expect.json.a[0][0][0][0][0][0][0][0][0][0][0][0]"
	  "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]",
	  "nest more than 32 deep" },
	{ "steps:\n  - qmp: x\n    arguments: {a: 1, b: 2, a: 3}\n", 0, 3, 29, "steps[0].arguments",
	  "key \"a\" appears twice (first on line 3)" },
	{ "steps:\n  - run: x\n---\nsteps: []\n", 0, 3, 1, "", "a second YAML document" },
	{ "steps:\n  - {? [a] : b}\n", 0, 2, 8, "steps[0]", "a key must be a string" },
	{ "steps:\n  - run: \"a\0b\"\n", 20, 2, 12, "steps[0].run", "control character U+0000" },
	{ "steps:\n  - run: \"a\xc0\xafz\"\n", 0, 2, 12, "steps[0].run", "byte 0xc0 is not UTF-8" },
	{ "steps:\n  - run: \"a\xed\xa0\x80z\"\n", 0, 2, 12, "steps[0].run",
	  "byte 0xed is not UTF-8" },
	{ "\xef\xbb\xbfsteps:\n  - run: \"\xc3\xa9\"\n", 0, 0, 0, NULL, NULL },
	{ "", 0, 1, 1, "", "the file is empty" },
	{ "name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nsteps: [{run: "
	  "x}]\n",
	  0, 1, 7, "name", "65 characters; a name is at most 64" },
	{ "machine: {disks: [{id: d, bus: nvme, size: 1M, image: a/../../b}]}\nsteps: [{run: x}]\n",
	  0, 1, 55, "machine.disks[0].image", "is not inside the scenario's folder" },
	{ "machine: {disks: [{id: d, bus: nvme, size: 1M, image: sub/b..c}]}\nsteps: [{run: x}]\n",
	  0, 0, 0, NULL, NULL },
	{ "timeout: 1e300s\nsteps: [{run: x}]\n", 0, 1, 10, "timeout", "longer than 24h" },
	{ "timeout: nan\nsteps: [{run: x}]\n", 0, 1, 10, "timeout", "not a duration" },
	{ "timeout: 0x10\nsteps: [{run: x}]\n", 0, 1, 10, "timeout", "not a duration" },
	{ "timeout: 24h\nsteps: [{run: x}]\n", 0, 0, 0, NULL, NULL },
	{ "machine: {cpus: 18446744073709551616}\nsteps: [{run: x}]\n", 0, 1, 17, "machine.cpus",
	  "expected a whole number" },
	{ "steps: [{qmp: migrate, arguments: {uri: \"exec:touch /tmp/x\"}}]\n", 0, 1, 15,
	  "steps[0].qmp", "migrate reaches past the guest to the host" },
	{ "steps: [{qmp: '{\"execute\": \"dump-guest-memory\", \"arguments\": {\"paging\": false, "
	  "\"protocol\": \"file:/tmp/x\"}}'}]\n",
	  0, 1, 15, "steps[0].qmp", "dump-guest-memory reaches past the guest" },
	{ "steps: [{qmp: human-monitor-command, arguments: {command-line: \"migrate exec:id\"}}]\n",
	  0, 1, 15, "steps[0].qmp", "takes only \"info ...\"" },
	{ "steps: [{qmp: human-monitor-command, arguments: {command-line: \"info numa\"}}]\n", 0, 0,
	  0, NULL, NULL },
	{ "steps: [{qmp: device_add, arguments: {driver: loader, file: /etc/shadow}}]\n", 0, 1, 15,
	  "steps[0].qmp", "device_add reaches past" },
};

static void check_buf(const struct buf_case *b)
{
	size_t len = b->len ? b->len : strlen(b->yaml);
	struct scenario_error err;
	struct scenario *s = NULL;
	char msg[1024];
	int ret = scenario_load_buffer("dir/hostile.yaml", b->yaml, len, &s, &err);

	scenario_error_format(&err, msg, sizeof(msg));
	print_message("%s\n", ret ? msg : "loads");
	if (!b->msg) {
		if (ret)
			fail_msg("%s: unexpected error: %s", b->yaml, msg);
		scenario_free(s);
		return;
	}
	assert_int_equal(ret, -EINVAL);
	assert_null(s);
	assert_string_equal(err.field, b->field);
	assert_int_equal(err.line, b->line);
	assert_int_equal(err.col, b->col);
	if (!strstr(err.msg, b->msg))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, b->msg);
}

static void test_hostile(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(buf_cases) / sizeof(buf_cases[0]); i++)
		check_buf(&buf_cases[i]);
}

/* What the loader refuses because it is knowable before a boot, and what
 * it still takes: each row loads from memory, field and message as in
 * buf_cases (NULL msg: it must load). */
#define MP_MACHINE                                                                                 \
	"machine:\n  disks:\n    - {id: mp, bus: nvme, size: 64M, paths: 2}\n"                     \
	"    - {id: hy, bus: hybrid, size: 64M, hybrid: {cache: 16M}}\n"                           \
	"    - {id: swap, bus: virtio, size: 768M}\n  hibernate: {disk: swap}\nsteps:\n"
static const struct buf_case known_cases[] = {
	/* a sleep state the machine does not declare */
	{ "steps:\n  - suspend: s3\n", 0, 2, 14, "steps[0].suspend",
	  "s3 needs firmware that offers it, and this machine declares no S3: give the "
	  "machine sleep: [s3]" },
	{ "machine: {sleep: [s4]}\nsteps:\n  - suspend: s3\n", 0, 3, 14, "steps[0].suspend",
	  "give the machine sleep: [s3]" },
	{ "machine: {sleep: [s3]}\nsteps:\n  - suspend: s3\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - suspend: s2idle\n", 0, 0, 0, NULL, NULL },
	/* keys that do nothing on the step they are on */
	{ MP_MACHINE "  - {suspend: s4, after: 2s, timeout: 3m}\n", 0, 8, 26, "steps[0].after",
	  "s4 powers the machine off and starts it again at once: nothing waits after" },
	{ "machine: {sleep: [s3]}\nsteps:\n  - {suspend: s3, pm_test: core, after: 2s}\n", 0, 3, 41,
	  "steps[0].after", "with pm_test the guest never sleeps" },
	{ "machine: {sleep: [s3]}\nsteps:\n  - {suspend: s3, pm_test: core, wake: rtc}\n", 0, 3, 40,
	  "steps[0].wake", "with pm_test the guest never sleeps, so nothing wakes it" },
	/* durations that cannot fit in their step's timeout, or the scenario's */
	{ "steps:\n  - wait: 60s\n", 0, 2, 11, "steps[0].wait",
	  "60s of pause does not fit in the step's timeout (60s, the default), which would "
	  "end the step first; give the step a timeout: longer than 60s" },
	{ "steps:\n  - wait: 59s\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - {wait: 90s, timeout: 1m}\n", 0, 2, 12, "steps[0].wait",
	  "90s of pause does not fit in the step's timeout (60s)" },
	{ "steps:\n  - {wait: 90s, timeout: 91s}\n", 0, 0, 0, NULL, NULL },
	{ "steps:\n  - {wait: 2m, for: ready, timeout: 5m}\n", 0, 2, 12, "steps[0].wait",
	  "2m of waiting does not fit in the scenario's timeout (120s), which the boot and "
	  "every step share; give the scenario a timeout: longer than 120s" },
	{ "timeout: 10m\nsteps:\n  - {wait: 2m, for: ready, timeout: 5m}\n", 0, 0, 0, NULL, NULL },
	{ "machine: {sleep: [s3]}\nsteps:\n  - {suspend: s3, after: 30s, cycles: 3, timeout: "
	  "80s}\n",
	  0, 3, 26, "steps[0].after",
	  "3 cycles of 30s asleep do not fit in the step's timeout (80s)" },
	{ "machine: {sleep: [s3]}\nsteps:\n  - {suspend: s3, wake: rtc, after: 100ms, cycles: "
	  "30, timeout: 30s}\n",
	  0, 3, 37, "steps[0].after", "30 cycles of 1s asleep do not fit" },
	{ "machine: {sleep: [s3]}\nsteps:\n  - {suspend: s3, after: 59s}\n", 0, 0, 0, NULL, NULL },
	{ "machine: {display: bochs-display, sleep: [s3]}\nsteps:\n  - {screen: a, expect: "
	  "{json: {width: 1}}}\n  - {suspend: s3, after: 30s, awake_screen: {same_as: a, "
	  "within: 30s}}\n",
	  0, 4, 66, "steps[1].awake_screen.within",
	  "30s asleep and 30s of captures do not fit in the step's timeout (60s, the default "
	  "60s a cycle)" },
	{ "steps:\n  - {measure: qemu_rss, settle: 30s, within: 30s, expect: {json: {rss_mb: "
	  "{ge: 1}}}}\n",
	  0, 2, 46, "steps[0].within", "settle 30s and within 30s do not fit" },
	{ "steps:\n  - {measure: qemu_rss, settle: 1m}\n", 0, 2, 33, "steps[0].settle",
	  "settle 1m does not fit" },
	{ "machine: {display: bochs-display}\nsteps:\n  - {screen: a, expect: {json: {width: "
	  "1}}}\n  - {screen: b, same_as: a, poll: 1m}\n",
	  0, 4, 35, "steps[1].poll", "1m of captures does not fit" },
	{ "timeout: 100s\nsteps:\n  - wait: 50s\n  - run: x\n  - wait: 50s\n", 0, 1, 10, "timeout",
	  "the steps pause or sleep 100s in all (steps[0] 50s, steps[2] 50s), which does not "
	  "fit in the scenario's timeout (100s) with the boot" },
	{ "timeout: 100s\nsteps:\n  - wait: 40s\n  - {wait: 1m, for: x, timeout: 61s}\n", 0, 0, 0,
	  NULL, NULL },
	/* operators misspelt, or named as other tools name them */
	{ "steps:\n  - run: x\n    expect: {json: {size: {gte: 1}}}\n", 0, 3, 28,
	  "steps[0].expect.json.size",
	  "\"gte\" is not an operator; did you mean ge:? (the operators are ge, gt, le, lt, "
	  "ne, re and len; to compare with a mapping that has the key gte, check its member "
	  "instead: size.gte: VALUE)" },
	{ "steps:\n  - run: x\n    expect: {json: {a.b: {ge: 1, lte: 5}}}\n", 0, 3, 34,
	  "steps[0].expect.json.a.b", "\"lte\" is not an operator; did you mean le:?" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {regex: x}}}\n", 0, 3, 25,
	  "steps[0].expect.json.a", "did you mean re:?" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {neq: 0}}}\n", 0, 3, 25,
	  "steps[0].expect.json.a", "did you mean ne:?" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {Le: 0}}}\n", 0, 3, 25,
	  "steps[0].expect.json.a", "did you mean le:?" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {eg: 0}}}\n", 0, 3, 25,
	  "steps[0].expect.json.a", "did you mean ge:?" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {lenght: 2}}}\n", 0, 3, 25,
	  "steps[0].expect.json.a", "did you mean len:?" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {eq: 2}}}\n", 0, 3, 25,
	  "steps[0].expect.json.a",
	  "\"eq\" is not an operator: a plain value is compared for equality, write the "
	  "value itself (a: VALUE)" },
	{ "steps:\n  - run: x\n    expect: {json: {a: {id: 2}, b: {state: on}, c: {ge: 1, "
	  "foo: 2}}}\n",
	  0, 0, 0, NULL, NULL },
	/* paths: restore only what a fail_path took, fail only what is there */
	{ MP_MACHINE "  - restore_path: {disk: mp, path: 1}\n", 0, 8, 19, "steps[0].restore_path",
	  "no earlier fail_path took path 1 of mp away: restore_path of an active path "
	  "checks nothing; fail it first" },
	{ MP_MACHINE "  - fail_path: {disk: mp, path: 0}\n  - fail_path: {disk: mp, path: 0}\n", 0,
	  9, 16, "steps[1].fail_path",
	  "steps[0] already failed path 0 of mp and no restore_path brought it back; restore "
	  "it first" },
	{ MP_MACHINE "  - fail_path: {disk: mp, path: 0}\n  - restore_path: {disk: mp, path: "
		     "0}\n  - restore_path: {disk: mp, path: 0}\n",
	  0, 10, 19, "steps[2].restore_path", "path 0 of mp is active again after steps[1]" },
	{ MP_MACHINE "  - fail_path: {disk: mp, path: 0}\n  - power_loss: all\n  - restore_path: "
		     "{disk: mp, path: 0}\n",
	  0, 10, 19, "steps[2].restore_path", "path 0 of mp is active again after steps[1]" },
	{ MP_MACHINE
	  "  - fail_path: {disk: mp, path: 0}\n  - fail_path: {disk: mp, path: 1}\n  - "
	  "restore_path: {disk: mp, path: 1}\n  - restore_path: {disk: mp, path: 0}\n  - "
	  "fail_path: {disk: mp, path: 0}\n  - {suspend: s4, timeout: 3m}\n  - "
	  "restore_path: {disk: mp, path: 0}\n",
	  0, 0, 0, NULL, NULL },
	/* QEMU is gone after quit or a reset (-no-reboot) */
	{ "steps:\n  - qmp: quit\n  - run: x\n", 0, 2, 10, "steps[0].qmp",
	  "quit ends QEMU (it runs with -no-reboot, so a reset ends it too): steps[1] and the "
	  "steps after it could not run" },
	{ "steps:\n  - qmp: '{\"execute\": \"system_reset\"}'\n  - run: x\n", 0, 2, 10,
	  "steps[0].qmp", "system_reset ends QEMU" },
	{ "steps:\n  - run: x\n  - qmp: quit\n", 0, 0, 0, NULL, NULL },
	/* nor can the guest do anything while QMP stop holds it */
	{ "steps:\n  - qmp: stop\n  - wait: 1s\n  - run: x\n", 0, 4, 10, "steps[2].run",
	  "steps[0] paused the VM (qmp: stop) and no qmp: cont resumed it: the guest cannot "
	  "carry out this step" },
	{ "steps:\n  - qmp: '{\"execute\": \"stop\"}'\n  - {wait: 5s, for: x}\n", 0, 3, 21,
	  "steps[1].for", "steps[0] paused the VM" },
	{ "machine: {display: vga}\nsteps:\n  - qmp: stop\n  - {screen: a, expect: {json: "
	  "{width: 1}}}\n  - {measure: qemu_rss}\n  - wait: 1s\n  - qmp: cont\n  - run: x\n",
	  0, 0, 0, NULL, NULL },
	/* sizes are whole numbers: the fraction in a unit below */
	{ "machine: {memory: 1.5G}\nsteps: [{run: x}]\n", 0, 1, 19, "machine.memory",
	  "\"1.5G\" is not a size: a size is a whole number of its unit; write 1536M" },
	{ "machine: {memory: 512M, balloon: {}}\nsteps: [{balloon: 256M}]\n", 0, 0, 0, NULL, NULL },
	{ "machine: {memory: 512M, balloon: {}}\nsteps: [{balloon: 0.25G}]\n", 0, 2, 19,
	  "steps[0].balloon", "write 256M" },
	{ "machine: {memory: 1.3G}\nsteps: [{run: x}]\n", 0, 1, 19, "machine.memory",
	  "write a positive whole number with an optional binary unit K, M, G or T" },
	{ "machine: {unverified: cpus}\nsteps: [{run: x}]\n", 0, 1, 23, "machine.unverified",
	  "expected a list such as [cpus, memory], got \"cpus\"" },
};

static void test_known_before_boot(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(known_cases) / sizeof(known_cases[0]); i++)
		check_buf(&known_cases[i]);
}

/* libyaml's syntax errors, with what they most likely mean. */
static const struct buf_case syntax_cases[] = {
	{ "steps:\n\t- run: x\n", 0, 2, 1, "",
	  "line 2 holds a tab: YAML indents with spaces only; replace the tab with spaces" },
	{ "steps:\n  - run: x\n\texpect: {exit: 0}\n", 0, 3, 1, "", "line 3 holds a tab" },
	{ "steps:\n  - run: echo a: b\n", 0, 2, 16, "",
	  "the value on line 2 holds \": \", which YAML reads as a second key; quote the "
	  "value: run: \"echo a: b\"" },
	{ "steps:\n  - run: echo \"a\": b\n", 0, 2, 18, "",
	  "quote the value: run: 'echo \"a\": b'" },
	{ "machine:\n  cpus: 1\n   memory: 512M\nsteps: [{run: x}]\n", 0, 3, 10, "",
	  "line 3 is indented deeper (3 spaces) than line 2 (2), so YAML reads it as more of "
	  "line 2's value" },
	{ "machine:\n  cpus 1\n  memory: 1G\nsteps: [{run: x}]\n", 0, 3, 9, "",
	  "line 2 has no \": \" after its key" },
	{ "steps:\n  - run: x\n   expect: {exit: 0}\n", 0, 3, 4, "",
	  "line 3 is indented 3 spaces, but the list begun on line 2 has its '-' at 2 and the "
	  "keys of its entries at 4" },
	{ "machine:\n  cpus: 1\n memory: 512M\nsteps: [{run: x}]\n", 0, 3, 2, "",
	  "line 3 is indented 1 space, but the mapping begun on line 1 has its keys at 0, line "
	  "2 at 2" },
	{ "steps:\n  - wait: 1s\n    for: \"\\d+\"\n", 0, 3, 11, "",
	  "in double quotes a backslash starts an escape" },
	{ "steps:\n  - run: \"abc\n", 0, 3, 1, "",
	  "the quote opened on line 2, column 10, is never closed" },
	{ "steps:\n  - {run: echo a: b}\n", 0, 2, 17, "", "quote a value that holds \": \"" },
	{ "tags: [a, b\nsteps: [{run: x}]\n", 0, 2, 6, "",
	  "in the flow list [...] begun on line 1, quote a value" },
	{ "steps:\n  - run: x\n    expect\n      exit: 1\n", 0, 4, 11, "",
	  "line 3 holds a key without \": \" after it; write key: value" },
	{ "steps:\n  - run: echo a: b\n", 0, 2, 16, "",
	  "(the parse stops here: the rest of the file is checked once this is fixed)" },
	{ "- run: x\n- wait: 1s\n", 0, 1, 1, "",
	  "expected a mapping, got a list; a scenario is a mapping of keys (name, machine, "
	  "steps, ...): if this list is the steps, write steps: on a line above it" },
};

static void test_syntax_hints(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(syntax_cases) / sizeof(syntax_cases[0]); i++)
		check_buf(&syntax_cases[i]);
}

/* Every error the loader can reach is reported, in the file's order, with
 * its own place; past SCENARIO_MAX_ERRORS they are counted. */
static void test_all_errors(void **state)
{
	static const char y[] = "name: Bad\n"				     /* 1 */
				"timeout: soon\n"			     /* 2 */
				"kernel: {requires: [CONFIG_A, config_b]}\n" /* 3 */
				"steps:\n"				     /* 4 */
				"  - wait: forever\n"			     /* 5 */
				"  - run: x\n"				     /* 6 */
				"  - suspend: s3\n";			     /* 7 */
	static const char keys[] = "machine:\n  memroy: 1G\n  cpus: 1\n  sleep: [s5]\n"
				   "steps:\n  - run: x\n    expcet: {exit: 0}\n  - {wiat: 1s}\n";
	static const struct {
		int line, col;
		const char *field, *msg;
	} want[] = {
		{ 1, 7, "name", "\"Bad\" does not match" },
		{ 2, 10, "timeout", "\"soon\" is not a duration" },
		{ 3, 31, "kernel.requires[1]", "\"config_b\" is not a kernel option name" },
		{ 5, 11, "steps[0].wait", "\"forever\" is not a duration" },
		{ 7, 14, "steps[2].suspend", "s3 needs firmware that offers it" },
	}, want_keys[] = {
		{ 2, 3, "machine", "unknown key \"memroy\"" },
		{ 4, 11, "machine.sleep", "\"s5\" is not one of s3, s4" },
		{ 7, 5, "steps[0]", "unknown key \"expcet\"" },
		{ 8, 6, "steps[1]", "unknown key \"wiat\"" },
	};
	struct scenario_error err;
	struct scenario *s = NULL;
	char line[2048], *p = NULL, *buf;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(scenario_load_buffer("all.yaml", y, strlen(y), &s, &err), -EINVAL);
	assert_null(s);
	assert_int_equal(scenario_error_count(&err), 5);
	for (unsigned i = 0; i < 5; i++) {
		scenario_error_format_nth(&err, i, line, sizeof(line));
		print_message("%s\n", line);
		assert_int_equal(i ? err.more[i - 1].line : err.line, want[i].line);
		assert_int_equal(i ? err.more[i - 1].col : err.col, want[i].col);
		assert_string_equal(i ? err.more[i - 1].field : err.field, want[i].field);
		if (!strstr(line, want[i].msg))
			fail_msg("error %u \"%s\" lacks \"%s\"", i, line, want[i].msg);
	}
	/* the schema's complaints, all of them, before libcyaml reads anything */
	assert_int_equal(scenario_load_buffer("keys.yaml", keys, strlen(keys), &s, &err), -EINVAL);
	assert_int_equal(scenario_error_count(&err), 4);
	for (unsigned i = 0; i < 4; i++) {
		scenario_error_format_nth(&err, i, line, sizeof(line));
		print_message("%s\n", line);
		assert_int_equal(i ? err.more[i - 1].line : err.line, want_keys[i].line);
		assert_int_equal(i ? err.more[i - 1].col : err.col, want_keys[i].col);
		assert_string_equal(i ? err.more[i - 1].field : err.field, want_keys[i].field);
		if (!strstr(line, want_keys[i].msg))
			fail_msg("error %u \"%s\" lacks \"%s\"", i, line, want_keys[i].msg);
	}
	/* 25 bad steps: 20 kept, 5 counted, one line says so */
	buf = malloc(4096);
	p = buf + sprintf(buf, "steps:\n");
	for (int i = 0; i < 25; i++)
		p += sprintf(p, "  - wait: bad%d\n", i);
	assert_int_equal(scenario_load_buffer("many.yaml", buf, strlen(buf), &s, &err), -EINVAL);
	assert_int_equal(scenario_error_count(&err), 25);
	assert_string_equal(err.more[SCENARIO_MAX_ERRORS - 2].field, "steps[19].wait");
	free(buf);
	p = NULL;
	f = open_memstream(&p, &len);
	scenario_error_print(f, "ktb: ", &err);
	fclose(f);
	assert_non_null(strstr(p, "ktb: many.yaml:21:11: steps[19].wait: \"bad19\" is not a "
				  "duration"));
	assert_null(strstr(p, "steps[20]"));
	assert_non_null(strstr(p, "\nktb: many.yaml: and 5 more errors (the first 20 are "
				  "shown)\n"));
	free(p);
}

/* The limits on counts: entries of one list, values of the file. */
static void test_hostile_counts(void **state)
{
	struct scenario_error err;
	struct scenario *s = NULL;
	char *y = malloc(1 << 20), *p = y;

	(void)state;
	p += sprintf(p, "tags: [");
	for (int i = 0; i < 1001; i++)
		p += sprintf(p, "t,");
	p += sprintf(p, "]\nsteps: [{run: x}]\n");
	assert_int_equal(scenario_load_buffer("h.yaml", y, strlen(y), &s, &err), -EINVAL);
	assert_string_equal(err.field, "tags");
	assert_non_null(strstr(err.msg, "more than 1000 entries"));
	p = y + sprintf(y, "steps:\n");
	for (int i = 0; i < 51; i++) {
		p += sprintf(p, "  - {run: x, expect: {json: {a: [");
		for (int j = 0; j < 999; j++)
			p += sprintf(p, "1,");
		p += sprintf(p, "]}}}\n");
	}
	assert_int_equal(scenario_load_buffer("h.yaml", y, strlen(y), &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "more than 50000 values"));
	free(y);
}

/* A file over 1M is refused while being read, at the line the limit falls on. */
static void test_hostile_size(void **state)
{
	char path[] = "/tmp/ktb-test-big-XXXXXX";
	struct scenario_error err;
	struct scenario *s = NULL;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_non_null(f);
	fprintf(f, "steps:\n  - run: \"");
	for (int i = 0; i < (1 << 20); i++)
		fputc('x', f);
	fprintf(f, "\"\n");
	fclose(f);
	assert_int_equal(scenario_load(path, &s, &err), -EINVAL);
	unlink(path);
	assert_null(s);
	assert_int_equal(err.line, 2);
	assert_string_equal(err.field, "steps[0].run");
	assert_non_null(strstr(err.msg, "goes on past 1048576 bytes"));
}

/* Every scenario of the library in the tree must load, too. */
static void test_library(void **state)
{
	const char *dir = KTB_SOURCE_DIR_TEST "/scenarios";
	struct scenario_error err;
	struct scenario *s;
	char path[1024], msg[1024];
	struct dirent *e;
	DIR *d = opendir(dir);

	(void)state;
	if (!d)
		skip();
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		scenario_load(path, &s, &err);
		scenario_error_format(&err, msg, sizeof(msg));
		if (!s)
			fail_msg("%s", msg);
		scenario_free(s);
	}
	closedir(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requires),      cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_full),	      cmocka_unit_test(test_numa_distances),
		cmocka_unit_test(test_steps),	      cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_missing_file),  cmocka_unit_test(test_error_format),
		cmocka_unit_test(test_multipath),     cmocka_unit_test(test_library),
		cmocka_unit_test(test_hostile),	      cmocka_unit_test(test_hostile_counts),
		cmocka_unit_test(test_hostile_size),  cmocka_unit_test(test_ktap),
		cmocka_unit_test(test_asleep_screen), cmocka_unit_test(test_awake_screen),
		cmocka_unit_test(test_metrics),	      cmocka_unit_test(test_requires_builtin),
		cmocka_unit_test(test_regex_not_any), cmocka_unit_test(test_known_before_boot),
		cmocka_unit_test(test_syntax_hints),  cmocka_unit_test(test_all_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
