/* The metric bisection's judge (metric_judge.h): ends that differ and ends
 * that do not (too close, too noisy, a median of 0); candidates like the
 * good end, like the bad end, between them and too noisy to tell, for a
 * metric that grows (a slowdown) and one that shrinks (a throughput); the
 * fewest samples the rank test needs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "metric_judge.h"
#include "statistics.h"

#define SET(a) ((struct metric_sample_set){ (a), sizeof(a) / sizeof((a)[0]) })

static const struct metric_opts o = { .threshold = 0.10, .confidence = 0.95 };

/* resume_ms: 100 ms on the good end, 130 on the bad one (a 30 ms delay) */
static const double good[] = { 99, 101, 100, 102, 98, 100, 103 };
static const double bad[] = { 131, 129, 130, 133, 128, 130, 132 };

static void test_ends(void **state)
{
	const double close[] = { 104, 106, 105, 107, 103, 105, 108 };
	const double noisy[] = { 60, 180, 95, 150, 70, 200, 110 };
	const double zero[] = { 0, 0, 0 };
	struct metric_ends e;

	(void)state;
	metric_ends_judge(SET(good), SET(bad), 1, &o, &e);
	assert_true(e.ok);
	assert_true(fabs(e.ratio - 1.3) < 1e-9);
	assert_true(e.p < 0.05);
	/* 5 % apart: tested apart, but under the threshold */
	metric_ends_judge(SET(good), SET(close), 1, &o, &e);
	assert_false(e.ok);
	assert_true(e.p < 0.05);
	/* the medians 30 % apart, the samples overlapping */
	metric_ends_judge(SET(good), SET(noisy), 1, &o, &e);
	assert_false(e.ok);
	assert_true(e.p > 0.05);
	/* a median of 0 has no ratio */
	metric_ends_judge(SET(zero), SET(bad), 1, &o, &e);
	assert_false(e.ok);
	/* a side without samples */
	metric_ends_judge((struct metric_sample_set){ good, 0 }, SET(bad), 1, &o, &e);
	assert_false(e.ok);
	/* a time that shrank on the bad end is not a slowdown to bisect; a
	 * metric that does not say which way is better goes either way */
	metric_ends_judge(SET(bad), SET(good), 1, &o, &e);
	assert_false(e.ok);
	assert_true(e.wrong_way);
	metric_ends_judge(SET(bad), SET(good), 0, &o, &e);
	assert_true(e.ok);
	assert_false(e.wrong_way);
	metric_ends_judge(SET(bad), SET(good), -1, &o, &e);
	assert_true(e.ok);
}

static void test_candidates(void **state)
{
	const double like_good[] = { 100, 99, 102, 101, 100 };
	const double like_bad[] = { 129, 131, 130, 134, 128 };
	const double between[] = { 114, 116, 115, 117, 113 };
	const double noisy[] = { 90, 140, 100, 135, 105 };
	const double two[] = { 130, 131 };
	struct metric_ends e;
	struct metric_judgement j;

	(void)state;
	metric_ends_judge(SET(good), SET(bad), 1, &o, &e);
	metric_judge(&e, SET(good), SET(bad), SET(like_good), &o, &j);
	assert_int_equal(j.side, METRIC_LIKE_GOOD);
	assert_true(j.apart_bad && !j.apart_good);
	assert_true(fabs(j.median - 100) < 1e-9);
	metric_judge(&e, SET(good), SET(bad), SET(like_bad), &o, &j);
	assert_int_equal(j.side, METRIC_LIKE_BAD);
	assert_true(fabs(j.ratio_good - 1.3) < 1e-9);
	assert_true(j.p_good < 0.05 && j.p_bad > 0.05);
	/* 15 % above the good end and 12 % under the bad one: both */
	metric_judge(&e, SET(good), SET(bad), SET(between), &o, &j);
	assert_int_equal(j.side, METRIC_UNDECIDED);
	assert_true(j.apart_good && j.apart_bad);
	/* spread over both ends: neither */
	metric_judge(&e, SET(good), SET(bad), SET(noisy), &o, &j);
	assert_int_equal(j.side, METRIC_UNDECIDED);
	assert_false(j.apart_good || j.apart_bad);
	/* two samples cannot reach the level against seven (p >= 2/36) */
	metric_judge(&e, SET(good), SET(bad), SET(two), &o, &j);
	assert_int_equal(j.side, METRIC_UNDECIDED);
	/* Holm: the smaller p doubled */
	metric_judge(&e, SET(good), SET(bad), SET(like_bad), &o, &j);
	assert_true(fabs(j.p_good - 2 * stats_rank_test(good, 7, like_bad, 5)) < 1e-9);
}

/* a metric that shrinks on the bad end (MB/s): the directions turn over */
static void test_shrinking(void **state)
{
	const double fast[] = { 200, 205, 198, 202, 201, 199 };
	const double slow[] = { 150, 152, 149, 151, 148, 150 };
	const double like_fast[] = { 203, 199, 200, 204, 201 };
	const double like_slow[] = { 151, 150, 149, 153, 147 };
	const double faster[] = { 260, 262, 258, 261, 259 };
	struct metric_ends e;
	struct metric_judgement j;

	(void)state;
	metric_ends_judge(SET(fast), SET(slow), -1, &o, &e);
	assert_true(e.ok);
	assert_true(e.ratio < 1);
	metric_judge(&e, SET(fast), SET(slow), SET(like_fast), &o, &j);
	assert_int_equal(j.side, METRIC_LIKE_GOOD);
	metric_judge(&e, SET(fast), SET(slow), SET(like_slow), &o, &j);
	assert_int_equal(j.side, METRIC_LIKE_BAD);
	/* far from the bad end, but away from the good end the wrong way: not
	 * like the bad end, and apart from it: like the good one */
	metric_judge(&e, SET(fast), SET(slow), SET(faster), &o, &j);
	assert_int_equal(j.side, METRIC_LIKE_GOOD);
	assert_false(j.apart_good);
}

/* ends that are not ok judge nothing */
static void test_no_ends(void **state)
{
	const double same[] = { 100, 101, 99, 100, 102 };
	struct metric_ends e;
	struct metric_judgement j;

	(void)state;
	metric_ends_judge(SET(good), SET(same), 1, &o, &e);
	assert_false(e.ok);
	metric_judge(&e, SET(good), SET(same), SET(bad), &o, &j);
	assert_int_equal(j.side, METRIC_UNDECIDED);
}

static void test_min_samples(void **state)
{
	(void)state;
	/* 2/C(8,4) = 0.029 is not under 0.025; 2/C(10,5) = 0.0079 is */
	assert_int_equal(metric_min_samples(0.95), 5);
	/* 0.05: 2/C(6,3) = 0.1, 2/C(8,4) = 0.029 */
	assert_int_equal(metric_min_samples(0.90), 4);
	/* 0.005: 2/C(12,6) = 0.0022 */
	assert_int_equal(metric_min_samples(0.99), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ends),	    cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_shrinking),   cmocka_unit_test(test_no_ends),
		cmocka_unit_test(test_min_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
