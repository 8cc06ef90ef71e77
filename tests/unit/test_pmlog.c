/* The guest kernel's suspend/resume log parsed into cycles: a captured S3
 * dmesg from a Debian 6.1 guest, and written s2idle, S4 and pm_test logs in
 * the same kernel's formats (tests/unit/data/pm/README says which is which). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmlog.h"
#include "util.h"

#include "test_data.h"

static void parse_sample(const char *name, struct pm_report *r)
{
	char *s = sample(name);

	assert_int_equal(pmlog_parse(s, r), 0);
	free(s);
}

static void assert_phases(const struct pm_cycle *c, const char *const *names, size_t n)
{
	assert_int_equal(c->phases_count, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(c->phases[i].name, names[i]);
		assert_true(c->phases[i].end_s >= c->phases[i].start_s);
		if (i)
			assert_true(c->phases[i].start_s >= c->phases[i - 1].end_s - 1e-9);
	}
}

static void test_s3_phases(void **state)
{
	static const char *const names[] = {
		"sync",		"freeze_user",	 "freeze_kernel",   "suspend",
		"suspend_late", "suspend_noirq", "suspend_machine", "resume_machine",
		"resume_noirq", "resume_early",	 "resume",	    "thaw_tasks",
		"finish",
	};
	struct pm_report r;
	const struct pm_cycle *c;

	(void)state;
	parse_sample("s3-deep.txt", &r);
	assert_int_equal(r.cycles_count, 1);
	c = &r.cycles[0];
	assert_int_equal(c->mode, PM_MODE_DEEP);
	assert_true(c->slept && c->complete && !c->pm_test);
	assert_phases(c, names, sizeof(names) / sizeof(names[0]));
	assert_int_equal(c->phases[6].half, PM_HALF_SUSPEND);
	assert_int_equal(c->phases[7].half, PM_HALF_RESUME);
	assert_float_equal(c->entry_s, 4.676222, 1e-9);
	/* the last line before "Low-level resume complete" (lapic_suspend) */
	assert_float_equal(c->sleep_s, 4.740412, 1e-9);
	assert_float_equal(c->wake_s, 4.743192, 1e-9);
	assert_float_equal(c->exit_s, 4.774961, 1e-9);
	assert_float_equal(c->phases[3].kernel_ms, 16.209, 1e-9);
	assert_float_equal(c->phases[0].kernel_ms, -1, 0);
	/* "completed (elapsed 0.007 seconds)", "(elapsed 0.001 seconds)" */
	assert_float_equal(c->phases[1].kernel_ms, 7, 1e-9);
	assert_float_equal(c->freeze_user_ms, 7, 1e-9);
	assert_float_equal(c->freeze_kernel_ms, 1, 1e-9);
	assert_float_equal(pm_cycle_freeze_ms(c), 8, 1e-9);
	assert_null(c->freeze_fail);
	assert_float_equal(pm_cycle_suspend_ms(c), 64.190, 1e-6);
	assert_float_equal(pm_cycle_resume_ms(c), 31.769, 1e-6);
	assert_int_equal(c->errors_count, 0);
	pm_report_free(&r);
}

static void test_s3_devices(void **state)
{
	const struct pm_device *top[3];
	struct pm_report r;
	const struct pm_cycle *c;
	size_t nsusp = 0;

	(void)state;
	parse_sample("s3-deep.txt", &r);
	c = &r.cycles[0];
	assert_int_equal(c->devices_count, 101);
	for (size_t i = 0; i < c->devices_count; i++) {
		const struct pm_device *d = &c->devices[i];

		assert_int_equal(d->half,
				 d->end_s <= c->sleep_s ? PM_HALF_SUSPEND : PM_HALF_RESUME);
		nsusp += d->half == PM_HALF_SUSPEND;
	}
	assert_true(nsusp > 40 && nsusp < 60);
	assert_int_equal(pm_cycle_slowest(c, PM_HALF_SUSPEND, top, 3), 3);
	assert_string_equal(top[0]->device, "virtio-pci 0000:00:01.0");
	assert_string_equal(top[0]->callback, "pci_pm_suspend");
	assert_null(top[0]->driver);
	assert_int_equal(top[0]->usecs, 5919);
	assert_string_equal(top[1]->device, "i8042 i8042");
	assert_string_equal(top[2]->device, "serial 00:02");
	assert_int_equal(pm_cycle_slowest(c, PM_HALF_RESUME, top, 1), 1);
	assert_string_equal(top[0]->callback, "pci_pm_resume");
	assert_int_equal(top[0]->usecs, 6209);
	/* " ata6: PM: ..." has no driver name in front, a module behind */
	assert_int_equal(pm_cycle_slowest(c, PM_HALF_SUSPEND, top, 3), 3);
	for (size_t i = 0; i < c->devices_count; i++) {
		if (!strcmp(c->devices[i].device, "ata6") &&
		    c->devices[i].half == PM_HALF_SUSPEND) {
			assert_string_equal(c->devices[i].driver, "libata");
			assert_int_equal(c->devices[i].usecs, 474);
		}
	}
	pm_report_free(&r);
}

/* a kernel without kallsyms prints each callback as its address: the
 * devices are there all the same, named, their callbacks addresses */
static void test_s3_no_kallsyms(void **state)
{
	const struct pm_cycle *c;
	struct pm_report r;
	bool rtc = false;

	(void)state;
	parse_sample("s3-nokallsyms.txt", &r);
	assert_int_equal(r.cycles_count, 1);
	c = &r.cycles[0];
	assert_true(c->devices_count > 40);
	for (size_t i = 0; i < c->devices_count; i++) {
		const struct pm_device *d = &c->devices[i];

		if (strcmp(d->device, "rtc_cmos 00:03") || d->half != PM_HALF_RESUME)
			continue;
		assert_string_equal(d->callback, "0xffffffff812fa9c6");
		assert_null(d->driver);
		/* the slowed kernel's 300 ms sleep in cmos_resume */
		assert_true(d->usecs > 300000);
		rtc = true;
	}
	assert_true(rtc);
	pm_report_free(&r);
}

static void test_s3_json(void **state)
{
	struct pm_report r;
	json_t *j, *c, *sus, *res;
	long prev = -1;

	(void)state;
	parse_sample("s3-deep.txt", &r);
	j = pm_report_to_json(&r);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "cycles")), 1);
	c = json_array_get(json_object_get(j, "cycles"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "mode")), "deep");
	assert_float_equal(json_real_value(json_object_get(c, "suspend_kernel_ms")), 64.19, 1e-9);
	assert_float_equal(json_real_value(json_object_get(c, "resume_kernel_ms")), 31.769, 1e-9);
	assert_int_equal(json_array_size(json_object_get(c, "phases")), 13);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(c, "phases"), 3), "name")),
			    "suspend");
	sus = json_object_get(json_object_get(c, "devices"), "suspend");
	res = json_object_get(json_object_get(c, "devices"), "resume");
	assert_int_equal(json_array_size(sus), 20);
	assert_int_equal(json_array_size(res), 20);
	for (size_t i = json_array_size(sus); i-- > 0;) {
		long us =
		    (long)json_integer_value(json_object_get(json_array_get(sus, i), "usecs"));

		assert_true(us >= prev);
		prev = us;
	}
	assert_true(json_is_null(json_object_get(json_array_get(sus, 0), "driver")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sus, 0), "ret")), 0);
	assert_int_equal(json_array_size(json_object_get(c, "errors")), 0);
	assert_null(json_object_get(c, "hibernate"));
	json_decref(j);
	pm_report_free(&r);
}

static void test_s2idle(void **state)
{
	struct pm_report r;
	const struct pm_cycle *c;
	const struct pm_device *top[1];

	(void)state;
	parse_sample("s2idle.txt", &r);
	assert_int_equal(r.cycles_count, 1);
	c = &r.cycles[0];
	assert_int_equal(c->mode, PM_MODE_S2IDLE);
	assert_true(c->slept && c->complete);
	assert_float_equal(c->sleep_s, 12.354741, 1e-9);
	assert_float_equal(c->wake_s, 17.902214, 1e-9);
	/* the 5.5 s in s2idle counts in neither half */
	assert_true(pm_cycle_suspend_ms(c) < 60 && pm_cycle_resume_ms(c) < 30);
	assert_string_equal(c->phases[c->phases_count - 5].name, "resume_noirq");
	assert_int_equal(pm_cycle_slowest(c, PM_HALF_SUSPEND, top, 1), 1);
	assert_int_equal(top[0]->usecs, 8066);
	pm_report_free(&r);
}

static void test_s4_console(void **state)
{
	static const char *const names[] = {
		"sync",	       "freeze_user",  "prealloc",	  "freeze_kernel", "freeze",
		"freeze_late", "freeze_noirq", "suspend_machine", "restore_noirq", "restore_early",
		"restore",     "thaw_tasks",   "finish",
	};
	struct pm_report r;
	const struct pm_cycle *c;
	json_t *j, *h;

	(void)state;
	parse_sample("s4-console.txt", &r);
	assert_int_equal(r.cycles_count, 1);
	c = &r.cycles[0];
	assert_int_equal(c->mode, PM_MODE_HIBERNATE);
	assert_true(c->slept && c->complete);
	/* the writing run's thaw and the loading kernel's lines are not phases */
	assert_phases(c, names, sizeof(names) / sizeof(names[0]));
	assert_float_equal(c->sleep_s, 14.544410, 1e-9);
	assert_float_equal(c->wake_s, 14.547190 - 0.001902, 1e-9);
	assert_int_equal(c->hib.image_pages, 37418);
	assert_int_equal(c->hib.wrote_kbytes, 150036);
	assert_int_equal(c->hib.read_kbytes, 150036);
	assert_float_equal(c->hib.write_s, 1.29, 1e-9);
	assert_float_equal(c->hib.read_s, 0.96, 1e-9);
	assert_int_equal(c->errors_count, 0);
	j = pm_report_to_json(&r);
	h = json_object_get(json_array_get(json_object_get(j, "cycles"), 0), "hibernate");
	assert_int_equal(json_integer_value(json_object_get(h, "image_kbytes")), 37418 * 4);
	json_decref(j);
	pm_report_free(&r);
}

static void test_pm_test(void **state)
{
	struct pm_report r;
	const struct pm_cycle *c;

	(void)state;
	parse_sample("pm-test.txt", &r);
	assert_int_equal(r.cycles_count, 3);
	c = &r.cycles[0];
	assert_true(c->pm_test && c->slept && c->complete);
	/* the wait is an mdelay(5000): the resume half starts when it ends */
	assert_float_equal(c->wake_s, c->sleep_s + 5, 1e-9);
	assert_string_equal(c->phases[c->phases_count - 3].name, "resume");
	assert_int_equal(c->errors_count, 0);
	c = &r.cycles[1];
	assert_int_equal(c->mode, PM_MODE_S2IDLE);
	assert_false(c->slept);
	assert_true(c->complete);
	assert_int_equal(c->errors_count, 2);
	assert_non_null(strstr(c->errors[0], "Unsupported test mode for suspend to idle"));
	assert_non_null(strstr(c->errors[1], "without reaching the sleep state"));
	assert_float_equal(pm_cycle_resume_ms(c), 0, 0);
	c = &r.cycles[2];
	assert_true(c->pm_test && c->slept);
	assert_string_equal(c->phases[c->phases_count - 2].name, "thaw_tasks");
	pm_report_free(&r);
}

/* A refusing device, a callback that never returns, a cycle cut off, and
 * the shapes lines take on a console: CRLF, "<6>" levels, no timestamp. */
static const char refused[] =
    "<6>[   50.000100] PM: suspend entry (deep)\r\n"
    "[   50.010000] Filesystems sync: 0.009 seconds\r\n"
    "shell output without a timestamp\n"
    "[   50.020000] Freezing user space processes completed (elapsed 0.008 seconds)\n"
    "[   50.030000] nvme 0000:00:04.0: PM: calling nvme_suspend+0x0/0x1a0 [nvme] @ 9, parent: "
    "pci0000:00\n"
    "[   50.031000] nvme 0000:00:04.0: PM: nvme_suspend+0x0/0x1a0 [nvme] returned -16 after 988 "
    "usecs\n"
    "[   50.031100] nvme 0000:00:04.0: PM: failed to suspend async: error -16\n"
    "[   50.031200] PM: suspend of devices aborted after 1.100 msecs\n"
    "[   50.031300] PM: Some devices failed to suspend, or early wake event detected\n"
    "[   50.040000] PM: suspend exit\n"
    "[   60.000000] PM: suspend entry (shallow)\n"
    "[   60.010000] virtio_blk virtio1: PM: calling virtio_dev_freeze+0x0/0x90 @ 9, parent: "
    "0000:00:05.0\n";

static void test_refused_and_cut_off(void **state)
{
	struct pm_report r;
	const struct pm_cycle *c;

	(void)state;
	assert_int_equal(pmlog_parse(refused, &r), 0);
	assert_int_equal(r.cycles_count, 2);
	c = &r.cycles[0];
	assert_float_equal(c->entry_s, 50.0001, 1e-9);
	assert_false(c->slept);
	assert_int_equal(c->devices_count, 1);
	assert_int_equal(c->devices[0].ret, -16);
	assert_string_equal(c->devices[0].driver, "nvme");
	assert_int_equal(c->errors_count, 5);
	assert_string_equal(c->errors[0],
			    "nvme 0000:00:04.0: nvme_suspend returned -16 after 988 usecs");
	assert_non_null(strstr(c->errors[1], "failed to suspend async"));
	assert_non_null(strstr(c->errors[2], "aborted after"));
	assert_non_null(strstr(c->errors[3], "Some devices failed to suspend"));
	c = &r.cycles[1];
	assert_int_equal(c->mode, PM_MODE_SHALLOW);
	assert_false(c->complete);
	assert_int_equal(c->errors_count, 2);
	assert_non_null(strstr(c->errors[0], "virtio_blk virtio1: virtio_dev_freeze called at"));
	assert_non_null(strstr(c->errors[1], "no exit line"));
	pm_report_free(&r);
}

/* Captured: the freezer gives up on a task in D state; the cycle names it,
 * has no freeze time, and the JSON says so. */
static void test_freeze_failed(void **state)
{
	struct pm_report r;
	const struct pm_cycle *c;
	json_t *j, *f, *t;

	(void)state;
	parse_sample("freeze-fail.txt", &r);
	assert_int_equal(r.cycles_count, 1);
	c = &r.cycles[0];
	assert_int_equal(c->mode, PM_MODE_S2IDLE);
	assert_true(c->complete && !c->slept);
	assert_non_null(c->freeze_fail);
	assert_false(c->freeze_fail->aborted);
	assert_float_equal(c->freeze_fail->after_s, 2.009, 1e-9);
	assert_int_equal(c->freeze_fail->refusing, 1);
	assert_int_equal(c->freeze_fail->tasks_count, 1);
	assert_string_equal(c->freeze_fail->tasks[0].name, "ktb-io");
	assert_int_equal(c->freeze_fail->tasks[0].pid, 127);
	assert_int_equal(c->freeze_fail->tasks[0].state, 'D');
	assert_float_equal(pm_cycle_freeze_ms(c), -1, 0);
	assert_non_null(strstr(c->errors[0], "Freezing of tasks failed after 2.009 seconds"));
	j = pm_report_to_json(&r);
	t = json_object_get(json_array_get(json_object_get(j, "cycles"), 0), "freeze_ms");
	assert_true(json_is_null(t));
	f = json_object_get(json_array_get(json_object_get(j, "cycles"), 0), "freeze_failed");
	t = json_array_get(json_object_get(f, "tasks"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "name")), "ktb-io");
	assert_string_equal(json_string_value(json_object_get(t, "state")), "D");
	assert_int_equal(json_integer_value(json_object_get(f, "refusing")), 1);
	json_decref(j);
	pm_report_free(&r);
}

/* Newer kernels say what was being frozen, and a wakeup aborts it; the
 * task lines stop at the thaw. */
static void test_freeze_aborted(void **state)
{
	static const char log[] =
	    "[ 1.000000] PM: suspend entry (deep)\n"
	    "[ 1.100000] Freezing remaining freezable tasks aborted after 0.050 seconds (2 "
	    "tasks refusing to freeze, wq_busy=0):\n"
	    "[ 1.100100] task:kworker/u2:1   state:R  running task     stack:0 pid:42 "
	    "ppid:2 flags:0x00004000\n"
	    "[ 1.110000] Restarting tasks ... done.\n"
	    "[ 1.110100] task:late-line state:D stack:0 pid:7\n"
	    "[ 1.120000] PM: suspend exit\n";
	struct pm_report r;
	const struct pm_freeze_fail *f;

	(void)state;
	assert_int_equal(pmlog_parse(log, &r), 0);
	f = r.cycles[0].freeze_fail;
	assert_non_null(f);
	assert_true(f->aborted);
	assert_int_equal(f->refusing, 2);
	assert_int_equal(f->tasks_count, 1);
	assert_string_equal(f->tasks[0].name, "kworker/u2:1");
	assert_int_equal(f->tasks[0].pid, 42);
	pm_report_free(&r);
}

static void test_no_cycles_and_bad_args(void **state)
{
	struct pm_report r;
	json_t *j;

	(void)state;
	assert_int_equal(pmlog_parse(NULL, &r), -EINVAL);
	assert_int_equal(pmlog_parse("", NULL), -EINVAL);
	assert_int_equal(pmlog_parse("[    1.0] hello\nnot a kernel line\n[", &r), 0);
	assert_int_equal(r.cycles_count, 0);
	j = pm_report_to_json(&r);
	assert_int_equal(json_array_size(json_object_get(j, "cycles")), 0);
	json_decref(j);
	pm_report_free(&r);
	pm_report_free(NULL);
}

/* A log whose clock goes back (found by fuzz_pmlog): the cycle's times
 * still only go forward, the sleep point after the last suspend phase and
 * the wake after the sleep point; a wake line before any phase is no wake. */
static void test_clock_back(void **state)
{
	static const char *const names[] = { "sync", "suspend_machine", "finish" };
	static const char back[] = "[    7.000000] PM: suspend entry (s2idle)\n"
				   "[    7.100000] Filesystems sync: 0.000 seconds\n"
				   "[    4.700000] PM: suspend-to-idle\n"
				   "[    4.800000] ACPI: PM: Low-level resume complete\n"
				   "[    5.000000] PM: suspend exit\n";
	struct pm_report r;
	const struct pm_cycle *c;

	(void)state;
	assert_int_equal(pmlog_parse(back, &r), 0);
	assert_int_equal(r.cycles_count, 1);
	c = &r.cycles[0];
	assert_phases(c, names, 3);
	assert_true(c->complete && c->slept);
	assert_true(c->sleep_s == c->phases[1].end_s && c->sleep_s == 7.1);
	assert_true(c->wake_s == c->sleep_s && c->exit_s == c->phases[2].end_s);
	assert_true(c->exit_s >= c->wake_s);
	pm_report_free(&r);
	assert_int_equal(pmlog_parse("[    1.000000] PM: suspend entry (deep)\n"
				     "[    1.100000] ACPI: PM: Low-level resume complete\n",
				     &r),
			 0);
	assert_false(r.cycles[0].slept);
	pm_report_free(&r);
}

/* An S4 console cut off in the kernel that loads the image, or at the
 * snapshot (found by fuzz_pmlog): the image-writing run's resume half is
 * dropped, its wake with it, and a cycle that never woke has its wake at
 * the sleep point, not at its entry. */
static void test_s4_cut_in_boot_kernel(void **state)
{
	static const char log[] = "[    1.000000] PM: hibernation: hibernation entry\n"
				  "[    1.100000] PM: hibernation: Creating image:\n"
				  "[    1.200000] PM: thaw of devices complete after 5.0 msecs\n"
				  "[    0.000000] Linux version 6.1.0-57-amd64\n"
				  "[    0.500000] PM: Image not found (code -22)\n";
	struct pm_report r;
	const struct pm_cycle *c;

	(void)state;
	assert_int_equal(pmlog_parse(log, &r), 0);
	c = &r.cycles[0];
	assert_true(c->slept && !c->complete);
	assert_true(c->sleep_s == 1.1 && c->wake_s == c->sleep_s && c->exit_s == c->sleep_s);
	assert_int_equal(c->phases[c->phases_count - 1].half, PM_HALF_SUSPEND);
	pm_report_free(&r);
	/* cut off at the snapshot: no wake, and none before the sleep point */
	assert_int_equal(pmlog_parse("[    1.000000] PM: hibernation: hibernation entry\n"
				     "[    1.100000] PM: hibernation: Creating image:\n",
				     &r),
			 0);
	c = &r.cycles[0];
	assert_true(c->slept && c->wake_s == c->sleep_s && c->exit_s == c->sleep_s);
	assert_true(pm_cycle_resume_ms(c) == 0);
	pm_report_free(&r);
}

/* Figures that are no time the clock ran (found by fuzz_pmlog: the JSON
 * turned 1e300 ms into an integer) are not taken; the phases still are. */
static void test_garbage_figures(void **state)
{
	static const char log[] =
	    "[    1.000000] PM: suspend entry (deep)\n"
	    "[    1.050000] Freezing user space processes ... (elapsed nan seconds) done.\n"
	    "[    1.100000] PM: suspend of devices complete after 1e300 msecs\n"
	    "[    1.150000] PM: late suspend of devices complete after -3 msecs\n"
	    "[    1.200000] PM: noirq suspend of devices complete after 2.5 msecs\n"
	    "[    1.300000] PM: suspend exit\n";
	struct pm_report r;
	const struct pm_cycle *c;
	json_t *j;

	(void)state;
	assert_int_equal(pmlog_parse(log, &r), 0);
	c = &r.cycles[0];
	assert_int_equal(c->phases_count, 5);
	assert_true(c->freeze_user_ms == -1 && c->phases[0].kernel_ms == -1);
	assert_true(c->phases[1].kernel_ms == -1 && c->phases[2].kernel_ms == -1);
	assert_true(c->phases[3].kernel_ms == 2.5);
	j = pm_report_to_json(&r);
	assert_non_null(j);
	json_decref(j);
	pm_report_free(&r);
	/* a timestamp that is no number is no timestamp: the line is not read */
	assert_int_equal(pmlog_parse("[nan] PM: suspend entry (deep)\n"
				     "[inf] PM: suspend entry (deep)\n",
				     &r),
			 0);
	assert_int_equal(r.cycles_count, 0);
	pm_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s3_phases),
		cmocka_unit_test(test_s3_devices),
		cmocka_unit_test(test_s3_no_kallsyms),
		cmocka_unit_test(test_s3_json),
		cmocka_unit_test(test_s2idle),
		cmocka_unit_test(test_s4_console),
		cmocka_unit_test(test_pm_test),
		cmocka_unit_test(test_refused_and_cut_off),
		cmocka_unit_test(test_freeze_failed),
		cmocka_unit_test(test_freeze_aborted),
		cmocka_unit_test(test_no_cycles_and_bad_args),
		cmocka_unit_test(test_clock_back),
		cmocka_unit_test(test_garbage_figures),
		cmocka_unit_test(test_s4_cut_in_boot_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
