/* How the suspend step judges (step_pm.h): a kernel that refuses, S3 that
 * QEMU never saw (a guest that claims it slept, one that hangs), the
 * kernel's suspend entries per cycle, an S4 restart that booted afresh, the
 * wakeup sources that grew, and each cycle's timings in the step's data.
 * No guest, no QEMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "step_pm.h"
#include "step_screen.h"
#include "util.h"

/* The freezer's failure in words: the tasks by name, pid and state, apart
 * from the kernel's other refusals. */
static void test_freeze_message(void **state)
{
	json_t *ff =
	    json_loads("{\"aborted\": false, \"after_s\": 2.009, \"refusing\": 2, "
		       "\"tasks\": [{\"name\": \"ktb-io\", \"pid\": 127, \"state\": \"D\"}, "
		       "{\"name\": \"dd\", \"pid\": 9, \"state\": \"D\"}]}",
		       0, NULL);
	char *m;

	(void)state;
	m = pm_freeze_message(ff);
	assert_string_equal(m, "freezing failed: 2 tasks refusing to freeze after 2.009 s: "
			       "ktb-io (pid 127, state D), dd (pid 9, state D)");
	free(m);
	json_object_set_new(ff, "aborted", json_true());
	json_object_set_new(ff, "refusing", json_integer(1));
	json_array_clear(json_object_get(ff, "tasks"));
	m = pm_freeze_message(ff);
	assert_string_equal(m, "freezing aborted (a wakeup event): 1 task refusing to freeze "
			       "after 2.009 s");
	free(m);
	json_decref(ff);
}

static void test_refusal(void **state)
{
	char err[] = "sh: write error: Device or resource busy\n";
	char empty[] = "";
	char *m;

	(void)state;
	m = pm_refusal(err);
	assert_string_equal(m, "the kernel refused to suspend: sh: write error: Device or "
			       "resource busy");
	free(m);
	m = pm_refusal(empty);
	assert_string_equal(m, "the kernel refused to suspend: (no message)");
	free(m);
	m = pm_refusal(NULL);
	assert_string_equal(m, "the kernel refused to suspend: (no message)");
	free(m);
}

static void test_unreached(void **state)
{
	char *m = (char *)"unset";

	(void)state;
	/* the sleep command returned 0, yet no SUSPEND event: a false claim */
	assert_int_equal(pm_unreached(true, true, &m), -EIO);
	assert_non_null(m);
	assert_non_null(strstr(m, "the guest says it suspended"));
	assert_non_null(strstr(m, "QEMU never saw S3"));
	free(m);
	/* it exited non-zero: the refusal already said why */
	assert_int_equal(pm_unreached(true, false, &m), -EIO);
	assert_null(m);
	/* no exit either: the guest hangs on the way down */
	assert_int_equal(pm_unreached(false, false, &m), -ETIMEDOUT);
	assert_string_equal(m, "guest did not reach S3 within 30 s");
	free(m);
}

static void test_entries(void **state)
{
	struct step st = { .cycles = 3, .sleep_state = SLEEP_STATE_S3 };
	char *m;

	(void)state;
	assert_null(pm_entries_verdict(&st, 2, 5));
	assert_null(pm_entries_verdict(&st, 0, 4));
	m = pm_entries_verdict(&st, 2, 4);
	assert_string_equal(m, "the kernel's log shows 2 suspend entries (s3) for 3 cycles");
	free(m);
	st.cycles = 1;
	st.sleep_state = SLEEP_STATE_S2IDLE;
	m = pm_entries_verdict(&st, 1, 1);
	assert_string_equal(m, "the kernel's log shows 0 suspend entries (s2idle) for 1 cycle");
	free(m);
	st.cycles = 2;
	m = pm_entries_verdict(&st, 1, 2);
	assert_string_equal(m, "the kernel's log shows 1 suspend entry (s2idle) for 2 cycles");
	free(m);
	/* a log that could not be read, or pm_test (no real sleep): unjudged */
	assert_null(pm_entries_verdict(&st, -1, 1));
	assert_null(pm_entries_verdict(&st, 1, -1));
	st.pm_test = "devices";
	assert_null(pm_entries_verdict(&st, 1, 1));
}

/* suspend_stats around a step: a success per cycle and no failure; with
 * refused, one failure and no success */
static void test_stats(void **state)
{
	struct step st = { .cycles = 2, .sleep_state = SLEEP_STATE_S2IDLE };
	struct pm_counts b = { 3, 4, 1 }, a = { 5, 6, 1 };
	char *m;

	(void)state;
	assert_null(pm_stats_verdict(&st, &b, &a));
	/* the exit status said 0, but the kernel counted a failure */
	a.fail = 2;
	m = pm_stats_verdict(&st, &b, &a);
	assert_string_equal(m, "the kernel counts 1 failed suspend in the step, 0 expected "
			       "(/sys/power/suspend_stats/fail)");
	free(m);
	a.fail = 1, a.success = 5;
	m = pm_stats_verdict(&st, &b, &a);
	assert_string_equal(m, "the kernel counts 1 successful suspend for 2 cycles "
			       "(/sys/power/suspend_stats/success)");
	free(m);
	/* refused: the failure is the point, a success is not */
	st.cycles = 1;
	st.refused = "freezing";
	a = (struct pm_counts){ 4, 4, 2 };
	assert_null(pm_stats_verdict(&st, &b, &a));
	a.fail = 1;
	m = pm_stats_verdict(&st, &b, &a);
	assert_string_equal(m, "the kernel counts 0 failed suspends in the step, 1 expected "
			       "(/sys/power/suspend_stats/fail)");
	free(m);
	a = (struct pm_counts){ 4, 5, 2 };
	m = pm_stats_verdict(&st, &b, &a);
	assert_string_equal(m, "the kernel counts 1 successful suspend in the step, 0 expected "
			       "(refused: freezing; /sys/power/suspend_stats/success)");
	free(m);
	/* no suspend_stats (an older kernel), or pm_test: unjudged */
	st.refused = NULL;
	a = (struct pm_counts){ 4, -1, -1 };
	assert_null(pm_stats_verdict(&st, &b, &a));
	a = (struct pm_counts){ 4, 4, 9 };
	st.pm_test = "devices";
	assert_null(pm_stats_verdict(&st, &b, &a));
}

static void test_hib_restored(void **state)
{
	(void)state;
	assert_true(hib_restored(0, 1));
	assert_true(hib_restored(2, 3));
	/* a fresh boot's log has no image created */
	assert_false(hib_restored(0, 0));
	assert_false(hib_restored(3, 1));
}

static void test_wakeup(void **state)
{
	char before_txt[] = "W 3 serio0\nW 0 PNP0C0C:00\nW 1 alarmtimer.0.auto\nI \n";
	char after_txt[] = "restored\nW 4 serio0\nW 0 PNP0C0C:00\nW 2 alarmtimer.0.auto\n"
			   "W 1 new\nW x bad\nI 8\n";
	bool restored = false;
	int irq = -1;
	json_t *before = pm_wakeup_parse(before_txt, &irq, &restored), *after, *grew;

	(void)state;
	assert_int_equal(irq, 0);
	assert_false(restored);
	assert_int_equal(json_object_size(before), 3);
	assert_int_equal(json_integer_value(json_object_get(before, "serio0")), 3);
	after = pm_wakeup_parse(after_txt, &irq, &restored);
	assert_int_equal(irq, 8);
	assert_true(restored);
	assert_int_equal(json_object_size(after), 4);
	grew = pm_wakeup_grew(before, after);
	/* grew, sorted by name; an unchanged count is not a wake source */
	assert_int_equal(json_array_size(grew), 3);
	assert_string_equal(json_string_value(json_array_get(grew, 0)), "alarmtimer.0.auto");
	assert_string_equal(json_string_value(json_array_get(grew, 1)), "new");
	assert_string_equal(json_string_value(json_array_get(grew, 2)), "serio0");
	json_decref(grew);
	json_decref(before);
	json_decref(after);
	assert_int_equal(json_object_size(before = pm_wakeup_parse(NULL, &irq, &restored)), 0);
	json_decref(before);
}

static void test_cycle_json(void **state)
{
	struct sleep_cycle cy = { .suspend_ms = 120, .resume_ms = 340, .cycle_ms = 1500 };
	struct step st = { .cycles = 1 };
	json_t *j = pm_cycle_json(1, &cy, &st);

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(j, "cycle")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "suspend_ms")), 120);
	assert_int_equal(json_integer_value(json_object_get(j, "resume_ms")), 340);
	assert_int_equal(json_integer_value(json_object_get(j, "cycle_ms")), 1500);
	assert_null(json_object_get(j, "wakeup_sources"));
	json_decref(j);
	cy.wakeup_sources = json_pack("[s]", "serio0");
	j = pm_cycle_json(0, &cy, &st);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(j, "wakeup_sources"), 0)), "serio0");
	assert_true(json_is_null(json_object_get(j, "wakeup_irq")));
	json_decref(j);
	cy.wakeup_irq = 1;
	j = pm_cycle_json(0, &cy, &st);
	assert_int_equal(json_integer_value(json_object_get(j, "wakeup_irq")), 1);
	json_decref(j);
	json_decref(cy.wakeup_sources);
	/* pm_test returns by itself: no resume to time */
	cy.wakeup_sources = NULL;
	st.pm_test = "core";
	j = pm_cycle_json(0, &cy, &st);
	assert_null(json_object_get(j, "resume_ms"));
	assert_null(json_object_get(j, "cycle_ms"));
	json_decref(j);
}

/* awake_screen: the return and its resolution in the data; a display that
 * never came back, came back in another size or had nothing to compare
 * with, in words naming the key. */
static void test_awake_screen(void **state)
{
	struct screen_back b = { .captures = 4,
				 .span_ms = 180,
				 .back_ms = 180,
				 .resolution_ms = 95,
				 .differ = 0,
				 .width = 1280,
				 .height = 800,
				 .ref_width = 1280,
				 .ref_height = 800 };
	json_t *j;
	char *m, *t;

	(void)state;
	assert_null(screen_back_verdict(&b, "before"));
	j = screen_back_json(&b, "before");
	t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(t, "{\"back_ms\":180,\"captures\":4,\"differ_pixels\":0,"
			       "\"interval_ms\":45,\"resolution_ms\":95,\"same_as\":\"before\"}");
	free(t);
	json_decref(j);

	b = (struct screen_back){ .captures = 100,
				  .span_ms = 5012,
				  .back_ms = -1,
				  .differ = 1024000,
				  .width = 1280,
				  .height = 800,
				  .ref_width = 1280,
				  .ref_height = 800 };
	m = screen_back_verdict(&b, "before");
	assert_string_equal(m, "awake_screen: the screen differs from \"before\" 5.0 s after the "
			       "wake: 100.00% of its pixels (1024000) (100 captures, one every "
			       "50 ms)");
	free(m);
	j = screen_back_json(&b, "before");
	assert_true(json_is_null(json_object_get(j, "back_ms")));
	assert_true(json_is_null(json_object_get(j, "resolution_ms")));
	assert_int_equal(json_integer_value(json_object_get(j, "differ_pixels")), 1024000);
	json_decref(j);

	b.differ = UINT64_MAX;
	b.width = 720;
	b.height = 400;
	m = screen_back_verdict(&b, "before");
	assert_string_equal(m, "awake_screen: the screen is 720x400, \"before\" was 1280x800, "
			       "5.0 s after the wake (100 captures, one every 50 ms)");
	free(m);
	j = screen_back_json(&b, "before");
	assert_true(json_is_null(json_object_get(j, "differ_pixels")));
	json_decref(j);

	/* a blank reference passes any comparison: never a pass */
	b = (struct screen_back){ .back_ms = -1, .blank_ref = true, .differ = UINT64_MAX };
	m = screen_back_verdict(&b, "dark");
	assert_string_equal(m, "awake_screen: \"dark\" is blank (every pixel black): nothing "
			       "was on the screen to compare with");
	free(m);
}

static void test_median(void **state)
{
	json_t *c = json_pack("[{s:i}, {s:i}, {s:i}, {}]", "ms", 30, "ms", 10, "ms", 20);

	(void)state;
	assert_int_equal(median_of(c, "ms"), 20);
	json_array_append_new(c, json_pack("{s:i}", "ms", 41));
	assert_int_equal(median_of(c, "ms"), 25);
	assert_int_equal(median_of(c, "other"), -1);
	json_decref(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freeze_message), cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_unreached),      cmocka_unit_test(test_entries),
		cmocka_unit_test(test_stats),	       cmocka_unit_test(test_hib_restored),
		cmocka_unit_test(test_wakeup),	       cmocka_unit_test(test_cycle_json),
		cmocka_unit_test(test_median),	       cmocka_unit_test(test_awake_screen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
