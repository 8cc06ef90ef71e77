/* ktb compare's core (samples.h, compare.h) on runs made here: a run
 * compared with itself has no regression; a resume 40% slower because one
 * device's callback went from 8 to 48 ms is a regression named with that
 * device; a metric of unknown direction that grew is "higher", not a
 * regression; two samples a side cannot tell anything apart; a metric in
 * one run only is not comparable; a scenario in one run only is refused;
 * a run that failed gives no samples, and a scenario whose new runs pass
 * less often than its base runs is a regression of its own; a change from
 * or to a median of 0 has no ratio but is judged by the test alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "result.h"
#include "samples.h"
#include "util.h"

/* jitter: a fixed spread of about +-3% around 1 */
static const double jitter[] = { 1.00, 0.98, 1.02, 0.99, 1.03, 0.97, 1.01, 1.00, 0.985, 1.015 };

/* a run of scenario name, n times: boot_ms around boot, resume_ms around
 * resume, the nvme device's resume callback around dev_us, passes around
 * passes (a metric whose name says no direction) */
static void add_runs(struct run_result *r, const char *name, unsigned n, double boot, double resume,
		     double dev_us, double passes, enum status status)
{
	for (unsigned i = 0; i < n; i++) {
		struct scenario_result *s;
		struct step_result *st;
		double j = jitter[i % 10];

		r->scenarios = xrealloc(r->scenarios, (r->count + 1) * sizeof(*r->scenarios));
		s = &r->scenarios[r->count++];
		memset(s, 0, sizeof(*s));
		s->name = xasprintf("%s#%u", name, i + 1);
		s->attempt = i + 1;
		s->status = status;
		s->metrics =
		    json_pack("{s:f, s:f, s:f, s:{s:f}}", "boot_ms", boot * j, "resume_ms",
			      resume * j, "passes", passes * j, "qemu_rss_mb", "after", 200.0);
		scenario_result_add_step(s)->name = xstrdup("machine");
		scenario_result_add_step(s)->name = xstrdup("run: true");
		st = scenario_result_add_step(s);
		st->name = xstrdup("suspend: s3");
		st->data = json_pack(
		    "{s:{s:[{s:{s:[], s:[{s:s, s:s, s:s, s:I, s:i}, {s:s, s:s, s:n, s:I, "
		    "s:i}]}}]}}",
		    "kernel", "cycles", "devices", "suspend", "resume", "device",
		    "nvme 0000:01:00.0", "callback", "pci_pm_resume", "driver", "nvme", "usecs",
		    (json_int_t)(dev_us * j), "ret", 0, "device", "atkbd serio0", "callback",
		    "serio_resume", "driver", "usecs", (json_int_t)(900 * j), "ret", 0);
	}
}

static const json_t *find_row(const json_t *doc, const char *metric)
{
	json_t *r;
	size_t i;

	json_array_foreach (json_object_get(doc, "comparisons"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "metric")), metric))
			return r;
	fail_msg("no comparison of %s", metric);
	return NULL;
}

static const char *verdict(const json_t *doc, const char *metric)
{
	return json_string_value(json_object_get(find_row(doc, metric), "verdict"));
}

static const struct compare_opts opts = { .threshold = 0.10, .confidence = 0.95 };

static void test_samples(void **state)
{
	struct run_result r = { 0 };
	json_t *s, *m;

	(void)state;
	add_runs(&r, "s3", 5, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&r, "s3", 2, 9999, 999, 99999, 9, ST_FAIL); /* left out */
	s = run_result_samples(&r);
	m = json_object_get(json_object_get(s, "s3"), "resume_ms");
	assert_int_equal(json_integer_value(json_object_get(m, "n")), 5);
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "ms");
	assert_string_equal(json_string_value(json_object_get(m, "better")), "lower");
	assert_true(json_real_value(json_object_get(m, "median")) == 100);
	/* nested metrics by their joined keys, with the unit their name says */
	m = json_object_get(json_object_get(s, "s3"), "qemu_rss_mb.after");
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "MB");
	/* no direction in the name */
	m = json_object_get(json_object_get(s, "s3"), "passes");
	assert_true(json_is_null(json_object_get(m, "better")));
	/* a device callback per cycle, named with its step, driver and device */
	m = json_object_get(json_object_get(s, "s3"),
			    "step 2 resume: nvme 0000:01:00.0 pci_pm_resume [nvme]");
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "us");
	assert_non_null(
	    json_object_get(json_object_get(s, "s3"), "step 2 resume: atkbd serio0 serio_resume"));
	json_decref(s);
	run_result_free(&r);
}

static void test_self(void **state)
{
	struct run_result a = { 0 };
	json_t *doc = NULL;
	char why[200];

	(void)state;
	add_runs(&a, "s3", 10, 4000, 100, 8000, 3, ST_PASS);
	assert_int_equal(compare_runs(&a, &a, &opts, &doc, why, sizeof(why)), 0);
	assert_int_equal(compare_regressions(doc), 0);
	assert_string_equal(verdict(doc, "resume_ms"), "no change");
	assert_true(json_real_value(json_object_get(find_row(doc, "resume_ms"), "p")) == 1);
	json_decref(doc);
	run_result_free(&a);
}

static void test_slower(void **state)
{
	struct run_result a = { 0 }, b = { 0 };
	json_t *doc = NULL;
	const json_t *r;
	char why[200];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add_runs(&a, "s3", 10, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&b, "s3", 10, 4000, 140, 48000, 4, ST_PASS);
	assert_int_equal(compare_runs(&a, &b, &opts, &doc, why, sizeof(why)), 0);
	r = find_row(doc, "resume_ms");
	assert_string_equal(verdict(doc, "resume_ms"), "slower");
	assert_true(json_is_true(json_object_get(r, "regression")));
	assert_true(json_real_value(json_object_get(r, "ratio")) > 1.39 &&
		    json_real_value(json_object_get(r, "ratio")) < 1.41);
	/* the device that explains it */
	assert_string_equal(json_string_value(json_object_get(r, "because")),
			    "step 2 resume: nvme 0000:01:00.0 pci_pm_resume [nvme]");
	assert_string_equal(verdict(doc, "step 2 resume: nvme 0000:01:00.0 pci_pm_resume [nvme]"),
			    "slower");
	/* the rest did not move */
	assert_string_equal(verdict(doc, "boot_ms"), "no change");
	assert_string_equal(verdict(doc, "step 2 resume: atkbd serio0 serio_resume"), "no change");
	/* grew, no direction known: reported, not a regression */
	assert_string_equal(verdict(doc, "passes"), "higher");
	assert_false(json_is_true(json_object_get(find_row(doc, "passes"), "regression")));
	assert_int_equal(compare_regressions(doc), 2);
	/* the table: regressions first, with the device on the line after */
	f = open_memstream(&text, &len);
	compare_print(doc, f);
	fclose(f);
	assert_non_null(strstr(text, "resume_ms"));
	assert_non_null(
	    strstr(text, "because: step 2 resume: nvme 0000:01:00.0 pci_pm_resume [nvme]"));
	assert_true(strstr(text, "slower") < strstr(text, "no change"));
	free(text);
	/* the page: a plot for each changed metric, none for the rest */
	f = open_memstream(&text, &len);
	compare_html(doc, f);
	fclose(f);
	assert_non_null(strstr(text, "<svg"));
	assert_non_null(strstr(text, "resume_ms (slower)"));
	assert_null(strstr(text, "boot_ms (no change)"));
	free(text);
	json_decref(doc);
	run_result_free(&a);
	run_result_free(&b);
}

static void test_too_few(void **state)
{
	struct run_result a = { 0 }, b = { 0 };
	json_t *doc = NULL;
	char why[200];

	(void)state;
	/* twice as slow, but two samples a side: the smallest p is 1/3 */
	add_runs(&a, "s3", 2, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&b, "s3", 2, 8000, 200, 16000, 6, ST_PASS);
	assert_int_equal(compare_runs(&a, &b, &opts, &doc, why, sizeof(why)), 0);
	assert_string_equal(verdict(doc, "boot_ms"), "no change");
	assert_int_equal(compare_regressions(doc), 0);
	json_decref(doc);
	run_result_free(&a);
	run_result_free(&b);
}

static void test_lonely(void **state)
{
	struct run_result a = { 0 }, b = { 0 }, c = { 0 };
	json_t *doc = NULL, *l;
	char why[200];

	(void)state;
	add_runs(&a, "s3", 5, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&b, "s3", 5, 4000, 100, 8000, 3, ST_PASS);
	json_object_set_new(b.scenarios[0].metrics, "freeze_ms", json_real(5));
	assert_int_equal(compare_runs(&a, &b, &opts, &doc, why, sizeof(why)), 0);
	l = json_array_get(json_object_get(doc, "not_comparable"), 0);
	assert_string_equal(json_string_value(json_object_get(l, "metric")), "freeze_ms");
	assert_string_equal(json_string_value(json_object_get(l, "only_in")), "new");
	json_decref(doc);
	/* a scenario in one run only: bad input, named */
	add_runs(&c, "s3", 5, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&c, "other", 5, 4000, 100, 8000, 3, ST_PASS);
	doc = NULL;
	assert_int_equal(compare_runs(&a, &c, &opts, &doc, why, sizeof(why)), -EINVAL);
	assert_null(doc);
	assert_string_equal(why, "scenario other is in the new run only: compare runs of the same "
				 "scenarios");
	run_result_free(&a);
	run_result_free(&b);
	run_result_free(&c);
}

static const json_t *outcome(const json_t *doc, const char *scenario)
{
	json_t *o;
	size_t i;

	json_array_foreach (json_object_get(doc, "outcomes"), i, o)
		if (!strcmp(json_string_value(json_object_get(o, "scenario")), scenario))
			return o;
	fail_msg("no outcome of %s", scenario);
	return NULL;
}

static const char *outcome_verdict(const json_t *doc, const char *scenario)
{
	return json_string_value(json_object_get(outcome(doc, scenario), "verdict"));
}

/* the new runs of s3 fail (all, or 2 of 5): their metrics have no samples,
 * and the pass rate is the regression; the same rate on both sides is not */
static void test_fails(void **state)
{
	struct run_result a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	json_t *doc = NULL;
	char why[200];

	(void)state;
	add_runs(&a, "s3", 5, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&b, "s3", 5, 4000, 100, 8000, 3, ST_FAIL);
	assert_int_equal(compare_runs(&a, &b, &opts, &doc, why, sizeof(why)), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "comparisons")), 0);
	assert_string_equal(outcome_verdict(doc, "s3"), "passes less");
	assert_int_equal(compare_regressions(doc), 1);
	json_decref(doc);
	/* 3 of 5 pass: too few samples to tell the numbers apart, but the runs
	 * that failed are counted */
	add_runs(&c, "s3", 3, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&c, "s3", 2, 4000, 100, 8000, 3, ST_TIMEOUT);
	assert_int_equal(compare_runs(&a, &c, &opts, &doc, why, sizeof(why)), 0);
	assert_true(compare_regressions(doc) == 1);
	assert_true(json_is_true(json_object_get(outcome(doc, "s3"), "regression")));
	json_decref(doc);
	/* the other way round: passes more, no regression */
	assert_int_equal(compare_runs(&c, &a, &opts, &doc, why, sizeof(why)), 0);
	assert_string_equal(outcome_verdict(doc, "s3"), "passes more");
	assert_int_equal(compare_regressions(doc), 0);
	json_decref(doc);
	/* 3 of 5 against 6 of 10: the same rate */
	add_runs(&d, "s3", 6, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&d, "s3", 4, 4000, 100, 8000, 3, ST_FAIL);
	assert_int_equal(compare_runs(&c, &d, &opts, &doc, why, sizeof(why)), 0);
	assert_string_equal(outcome_verdict(doc, "s3"), "same");
	assert_int_equal(compare_regressions(doc), 0);
	json_decref(doc);
	run_result_free(&a);
	run_result_free(&b);
	run_result_free(&c);
	run_result_free(&d);
}

/* freeze_ms 0 in every base run and about 300 ms in every new one: no
 * ratio, but slower, a regression; 0 on both sides: no change */
static void test_from_zero(void **state)
{
	struct run_result a = { 0 }, b = { 0 };
	json_t *doc = NULL;
	char why[200];

	(void)state;
	add_runs(&a, "s3", 8, 4000, 100, 8000, 3, ST_PASS);
	add_runs(&b, "s3", 8, 4000, 100, 8000, 3, ST_PASS);
	for (size_t i = 0; i < 8; i++) {
		json_object_set_new(a.scenarios[i].metrics, "freeze_ms", json_real(0));
		json_object_set_new(b.scenarios[i].metrics, "freeze_ms",
				    json_real(300 * jitter[i]));
		json_object_set_new(a.scenarios[i].metrics, "thaw_ms", json_real(0));
		json_object_set_new(b.scenarios[i].metrics, "thaw_ms", json_real(0));
	}
	assert_int_equal(compare_runs(&a, &b, &opts, &doc, why, sizeof(why)), 0);
	assert_true(json_is_null(json_object_get(find_row(doc, "freeze_ms"), "ratio")));
	assert_string_equal(verdict(doc, "freeze_ms"), "slower (a median of 0 on one side)");
	assert_string_equal(verdict(doc, "thaw_ms"), "no change");
	assert_int_equal(compare_regressions(doc), 1);
	json_decref(doc);
	assert_int_equal(compare_runs(&b, &a, &opts, &doc, why, sizeof(why)), 0);
	assert_string_equal(verdict(doc, "freeze_ms"), "faster (a median of 0 on one side)");
	assert_int_equal(compare_regressions(doc), 0);
	json_decref(doc);
	run_result_free(&a);
	run_result_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples),	  cmocka_unit_test(test_self),
		cmocka_unit_test(test_slower),	  cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_lonely),	  cmocka_unit_test(test_fails),
		cmocka_unit_test(test_from_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
