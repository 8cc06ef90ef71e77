/* Console capture: real 6.1 kernel output (tests/unit/data/console/) is
 * flagged with the right kind at the right line and a clean boot is not;
 * line splitting, the raw log, tail, console_seen and regex watches. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "console.h"
#include "util.h"

struct fatal_case {
	const char *file;
	const char *kind;
	int line; /* 1-based line of the file that must be reported */
};

static const struct fatal_case fatal_cases[] = {
	{ "panic_sysrq.txt", "panic", 6 },
	{ "oops_null_deref.txt", "oops", 5 },
	{ "oops_gpf.txt", "oops", 1 },
	{ "kernel_bug.txt", "oops", 3 },
	{ "warning.txt", "warning", 4 },
	{ "hung_task.txt", "hung task", 3 },
	{ "soft_lockup.txt", "soft lockup", 2 },
	{ "rcu_stall.txt", "rcu stall", 2 },
	/* captured from real runs of Debian's 6.1.0-57 under QEMU */
	{ "real_panic_sysrq.txt", "panic", 6 },
	{ "real_warning_topology.txt", "warning", 3 },
	{ "kasan.txt", "kasan", 3 },
	{ "sched_atomic.txt", "bug", 2 },
};

static char *load(const char *name, size_t *len)
{
	char *path = xasprintf("%s/console/%s", KTB_TEST_DATA, name);
	char *text = read_file(path, len);

	assert_non_null(text);
	free(path);
	return text;
}

/* Line n (1-based) of text, malloc'd. */
static char *nth_line(const char *text, int n)
{
	while (--n > 0)
		text = strchr(text, '\n') + 1;
	return strndup(text, strcspn(text, "\n"));
}

/* As a serial port delivers it: "\r\n" line ends, in uneven pieces. */
static int feed_serial(struct console *c, const char *text, size_t len, size_t piece)
{
	char *crlf = xcalloc(2, len + 1);
	size_t n = 0;
	int firsts = 0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = text[i];
	}
	for (size_t off = 0, k = 0; off < n; k++) {
		size_t step = piece ? piece : 1 + (k * 7) % 61;

		step = step < n - off ? step : n - off;
		firsts += console_feed(c, crlf + off, step);
		off += step;
	}
	free(crlf);
	return firsts;
}

static int feed_str(struct console *c, const char *s)
{
	return console_feed(c, s, strlen(s));
}

static void test_console_fatal_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fatal_cases) / sizeof(fatal_cases[0]); i++) {
		const struct fatal_case *fc = &fatal_cases[i];
		size_t len;
		char *text = load(fc->file, &len);
		char *want = nth_line(text, fc->line);

		for (size_t piece = 0; piece < 2; piece++) {
			struct console *c = console_new(NULL, 10);

			/* console_feed says "first fatal line" exactly once. */
			assert_int_equal(feed_serial(c, text, len, piece), 1);
			if (!console_fatal(c) || strcmp(console_fatal(c), want))
				fail_msg("%s: flagged '%s', want line %d '%s'", fc->file,
					 console_fatal(c), fc->line, want);
			assert_string_equal(console_fatal_kind(c), fc->kind);
			console_free(c);
		}
		free(want);
		free(text);
	}
}

static void check_clean(const char *file, const char *marker)
{
	size_t len;
	char *text = load(file, &len);
	struct console *c = console_new(NULL, 5);
	char *line = text;

	assert_int_equal(feed_serial(c, text, len, 0), 0);
	assert_null(console_fatal(c));
	assert_null(console_fatal_kind(c));
	assert_true(console_seen(c, marker));
	for (char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (console_classify(line))
			fail_msg("clean boot line flagged: '%s'", line);
	}
	console_free(c);
	free(text);
}

static void test_console_clean_boot(void **state)
{
	(void)state;
	check_clean("clean_boot.txt", "KTB_READY_MARKER");
	/* a real boot of 6.1.0-57 under TCG with two NUMA nodes */
	check_clean("real_clean_boot_numa.txt", "ktb: guest ready");
}

static void test_console_classify_prefixes(void **state)
{
	(void)state;
	assert_string_equal(console_classify("Kernel panic - not syncing: VFS: Unable to mount "
					     "root fs on unknown-block(0,0)"),
			    "panic");
	assert_string_equal(console_classify("<0>[    3.100000] Kernel panic - not syncing: "
					     "Attempted to kill init! exitcode=0x00000100"),
			    "panic");
	assert_string_equal(console_classify("<4>[   30.512400] WARNING: CPU: 0 PID: 1 at "
					     "fs/sysfs/dir.c:32 sysfs_warn_dup+0x5e/0x70"),
			    "warning");
	assert_string_equal(console_classify("[    5.000000][    T1] BUG: unable to handle page "
					     "fault for address: ffffffffc0a3d000"),
			    "oops");
	assert_string_equal(console_classify("Oops: 0000 [#1] PREEMPT SMP NOPTI"), "oops");
	assert_string_equal(console_classify("[   80.100000] rcu: INFO: rcu_preempt self-detected "
					     "stall on CPU"),
			    "rcu stall");
	assert_string_equal(console_classify("[   12.000000] BUG: workqueue lockup - pool cpus=0 "
					     "node=0 flags=0x0 nice=0 stuck for 31s!"),
			    "bug");
	assert_string_equal(console_classify("[   12.000000] UBSAN: shift-out-of-bounds in "
					     "drivers/ata/libata-core.c:123:4"),
			    "ubsan");
	assert_string_equal(console_classify("[   99.000000] watchdog: Watchdog detected hard "
					     "LOCKUP on cpu 1"),
			    "hard lockup");
	assert_string_equal(
	    console_classify("[   99.000000] NMI watchdog: Watchdog detected hard LOCKUP "
			     "on cpu 1"),
	    "hard lockup");
	assert_string_equal(console_classify("[   20.000000] WARNING: possible circular locking "
					     "dependency detected"),
			    "lockdep");
	/* an OOM kill is a finding, not a crash: the run goes on */
	assert_null(console_classify("[   40.000000] Memory cgroup out of memory: Killed process "
				     "119 (ktb-mem) total-vm:107720kB"));
	assert_null(console_classify("[   40.000000] ktb-mem invoked oom-killer: "
				     "gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=1000"));
}

static void test_console_classify_harmless(void **state)
{
	static const char *const harmless[] = {
		"[    3.701000] ACPI Error: Could not disable RealTimeClock events "
		"(20220331/evxfevnt-243)",
		"[    1.090000] i8042: PNP: No PS/2 controller found.",
		"[    0.454000] PCI: Using host bridge windows from ACPI; if necessary, use "
		"\"pci=nocrs\" and report a bug",
		"[    1.083000] AMD-Vi: AMD IOMMUv2 functionality not available on this system - "
		"This is not a bug.",
		"CONFIG_DEBUG_BUGVERBOSE=y",
		"[    4.000000] debugfs: Directory 'vda' with parent 'block' already present!",
		"Warning: /etc/fstab not found, skipping",
		"[Firmware Bug]: TSC doesn't count with P0 frequency!",
		"[   30.512000] ------------[ cut here ]------------",
		"[   12.345678] sysrq: Trigger a crash",
		"[  245.302800] \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this "
		"message.",
		"grep 'BUG: ' /var/log/kern.log",
		"ktb-guest: step 3: echo WARNING: nothing to do",
		"[   25.113800]  ? __warn+0x81/0x130",
		"[   25.122900] ---[ end trace 0000000000000000 ]---",
		"",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(harmless) / sizeof(harmless[0]); i++)
		if (console_classify(harmless[i]))
			fail_msg("flagged as %s: '%s'", console_classify(harmless[i]), harmless[i]);
}

static void test_console_split_lines(void **state)
{
	struct console *c = console_new(NULL, 10);
	char *tail;

	(void)state;
	feed_str(c, "one\r");
	feed_str(c, "\ntw");
	feed_str(c, "o\rthree\n\nfour\r\r\nfi");
	tail = console_tail(c, 10);
	/* "\r\n" split across feeds is one end; "\r\r\n" too; "\n\n" is a blank
	 * line; the unfinished "fi" comes last. */
	assert_string_equal(tail, "one\ntwo\nthree\n\nfour\nfi\n");
	free(tail);
	feed_str(c, "ve");
	console_flush(c);
	tail = console_tail(c, 2);
	assert_string_equal(tail, "four\nfive\n");
	free(tail);
	console_free(c);
}

static void test_console_panic_split_across_feeds(void **state)
{
	struct console *c = console_new(NULL, 4);

	(void)state;
	assert_int_equal(feed_str(c, "[   12.346001] Kernel pa"), 0);
	assert_null(console_fatal(c));
	assert_int_equal(feed_str(c, "nic - not syncing: sysrq triggered crash\r"), 1);
	assert_string_equal(console_fatal(c),
			    "[   12.346001] Kernel panic - not syncing: sysrq triggered crash");
	assert_string_equal(console_fatal_kind(c), "panic");
	/* Later fatal lines do not replace the first. */
	assert_int_equal(feed_str(c, "\nWARNING: CPU: 1 PID: 2 at x.c:1 f+0x1/0x2\n"), 0);
	assert_string_equal(console_fatal_kind(c), "panic");
	console_free(c);
}

static void test_console_tail_ring(void **state)
{
	struct console *c = console_new(NULL, 3);
	char *tail;

	(void)state;
	for (int i = 0; i < 10; i++) {
		char line[32];

		snprintf(line, sizeof(line), "line %d\n", i);
		console_feed(c, line, strlen(line));
	}
	tail = console_tail(c, 100);
	assert_string_equal(tail, "line 7\nline 8\nline 9\n");
	free(tail);
	tail = console_tail(c, 1);
	assert_string_equal(tail, "line 9\n");
	free(tail);
	tail = console_tail(c, 0);
	assert_string_equal(tail, "");
	free(tail);
	console_free(c);

	c = console_new(NULL, 0);
	feed_str(c, "a\nb\n");
	tail = console_tail(c, 5);
	assert_string_equal(tail, "");
	free(tail);
	console_free(c);
}

static void test_console_raw_log(void **state)
{
	const char raw[] = "\x1b[0mboot\r\n[    1.0] ok\rpartial";
	char *buf = NULL;
	size_t size = 0;
	FILE *log = open_memstream(&buf, &size);
	struct console *c = console_new(log, 4);

	(void)state;
	console_feed(c, raw, 10);
	console_feed(c, raw + 10, sizeof(raw) - 1 - 10);
	fflush(log);
	assert_int_equal(size, sizeof(raw) - 1);
	assert_memory_equal(buf, raw, size);
	console_free(c);
	fclose(log);
	free(buf);
}

static void test_console_seen_and_reset(void **state)
{
	struct console *c = console_new(NULL, 4);

	(void)state;
	assert_false(console_seen(c, "KTB_READY"));
	feed_str(c, "ktb-guest: ready KTB_REA");
	/* A marker may arrive in pieces; the partial line counts. */
	assert_false(console_seen(c, "KTB_READY"));
	feed_str(c, "DY\n");
	assert_true(console_seen(c, "KTB_READY"));
	console_reset_match(c);
	assert_false(console_seen(c, "KTB_READY"));
	feed_str(c, "again KTB_READY\n");
	assert_true(console_seen(c, "KTB_READY"));
	console_free(c);
}

static void test_console_watch(void **state)
{
	struct console *c = console_new(NULL, 4);

	(void)state;
	assert_int_equal(console_watch(c, "(unbalanced"), -EINVAL);
	feed_str(c, "PM: suspend exit\n");
	assert_int_equal(console_watch(c, "^\\[ *[0-9.]+\\] PM: suspend (entry|exit)"), 0);
	/* Only lines after the call count. */
	assert_false(console_matched(c));
	feed_str(c, "[    3.702000] PM: suspend en");
	assert_false(console_matched(c)); /* not a complete line yet */
	feed_str(c, "try (deep)\r\n");
	assert_true(console_matched(c));
	assert_int_equal(console_watch(c, "PM: hibernation: hibernation exit$"), 0);
	assert_false(console_matched(c));
	feed_str(c, "[   9.1] PM: hibernation: hibernation exit\r\n");
	assert_true(console_matched(c));
	console_reset_match(c);
	assert_false(console_matched(c));
	console_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_fatal_files),
		cmocka_unit_test(test_console_clean_boot),
		cmocka_unit_test(test_console_classify_prefixes),
		cmocka_unit_test(test_console_classify_harmless),
		cmocka_unit_test(test_console_split_lines),
		cmocka_unit_test(test_console_panic_split_across_feeds),
		cmocka_unit_test(test_console_tail_ring),
		cmocka_unit_test(test_console_raw_log),
		cmocka_unit_test(test_console_seen_and_reset),
		cmocka_unit_test(test_console_watch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
