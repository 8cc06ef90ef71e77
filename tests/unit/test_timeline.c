/* The suspend/resume timeline as SVG: well-formed XML whatever the guest's
 * log held, the phases and slowest devices of the captured S3 cycle in it,
 * a phases-only picture without pm_print_times, and no picture without a
 * cycle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "util.h"

#include "test_data.h"
#include "xml_check.h"

/* The SVG of one cycle of @log, as a string; asserts timeline_svg's @want. */
static char *render(const char *log, size_t cycle, int want)
{
	struct pm_report r;
	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);

	assert_non_null(f);
	assert_int_equal(pmlog_parse(log, &r), 0);
	assert_int_equal(timeline_svg(&r, cycle, f), want);
	assert_int_equal(fclose(f), 0);
	pm_report_free(&r);
	return svg;
}

static void test_s3_picture(void **state)
{
	static const char *const want[] = {
		"sync",
		"freeze_user",
		"freeze_kernel",
		"suspend_late",
		"suspend_noirq",
		"resume_noirq",
		"resume_early",
		"thaw_tasks",
		"S3 sleep",
		"S3 (deep)",
		"virtio-pci 0000:00:01.0",
		"pci_pm_suspend",
		"5.92 ms",
		"6.21 ms",
		"Slowest suspend callbacks",
		"Slowest resume callbacks",
		"; freeze 8 ms",
	};
	char *log = sample("s3-deep.txt"), *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_non_null(strstr(svg, want[i]));
	/* self-contained: nothing to run, nothing to fetch */
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "href"));
	assert_null(strstr(svg, "@import"));
	free(svg);
	free(log);
}

/* A cycle whose freezer gave up says so in its title, naming the task, and
 * has no freeze time. */
static void test_freeze_failed(void **state)
{
	char *log = sample("freeze-fail.txt"), *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg,
			       "did not sleep: freezing failed after 2.009 s (1 task refusing: "
			       "ktb-io)"));
	assert_null(strstr(svg, "; freeze "));
	free(svg);
	free(log);
}

static void test_phases_only(void **state)
{
	char *log = sample("s4-console.txt"), *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg, "S4 (hibernate)"));
	assert_non_null(strstr(svg, "restore_noirq"));
	assert_non_null(strstr(svg, "prealloc"));
	assert_non_null(strstr(svg, "No per-device times"));
	assert_null(strstr(svg, "Slowest"));
	free(svg);
	free(log);
}

/* Each pm_test cycle, the refused one (no sleep point) included. */
static void test_pm_test_cycles(void **state)
{
	char *log = sample("pm-test.txt");

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char *svg = render(log, i, 0);

		assert_true(xml_wellformed(svg));
		assert_non_null(strstr(svg, i == 1 ? "did not sleep" : "pm_test wait"));
		free(svg);
	}
	free(render(log, 3, -EINVAL));
	free(log);
}

static void test_no_cycles(void **state)
{
	char *svg;

	(void)state;
	svg = render("[    1.000000] nothing to see\n", 0, -ENODATA);
	assert_true(!svg || !*svg);
	free(svg);
	assert_int_equal(timeline_svg(NULL, 0, stdout), -ENODATA);
}

/* Whatever a device calls itself reaches the picture escaped. */
static void test_hostile_names(void **state)
{
	static const char log[] =
	    "[    1.000000] PM: suspend entry (deep)\n"
	    "[    1.001000] we<i>rd &dev \"q\" 'a' \x01\xff: PM: cb<x>+0x0/0x1 [m&d] returned 0 "
	    "after 900 usecs\n"
	    "[    1.002000] ACPI: PM: Preparing to enter system sleep state S3\n"
	    "[    1.003000] ACPI: PM: Waking up from system sleep state S3\n"
	    "[    1.004000] ]]> PM: Some devices failed to suspend <now> & \xc3\n"
	    "[    1.005000] PM: suspend exit\n";
	char *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg, "we&lt;i&gt;rd &amp;dev &quot;q&quot; &apos;a&apos; ??"));
	assert_non_null(strstr(svg, "cb&lt;x&gt;"));
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s3_picture),     cmocka_unit_test(test_phases_only),
		cmocka_unit_test(test_pm_test_cycles), cmocka_unit_test(test_no_cycles),
		cmocka_unit_test(test_hostile_names),  cmocka_unit_test(test_freeze_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
