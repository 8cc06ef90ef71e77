/* The statistics ktb compare rests on (statistics.h): the rank test's exact
 * p-values against a brute-force count of every split (made with Python's
 * itertools.combinations over the same midranks), ties included; its normal
 * approximation beyond the exact size; the bootstrap interval's ratio,
 * bounds and repeatability; Holm's adjusted values by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "statistics.h"

#define NEAR(x, y) assert_true(fabs((x) - (y)) < 1e-9)

static void test_median(void **state)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	(void)state;
	NEAR(stats_median(odd, 3), 3);
	NEAR(stats_median(even, 4), 2.5);
	NEAR(stats_median(one, 1), 7);
	/* the input is left as it was */
	NEAR(odd[0], 5);
}

static void test_rank_exact(void **state)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	const double ta[] = { 10, 12, 12, 15, 20, 20 }, tb[] = { 11, 12, 20, 25, 30, 30, 31 };
	const double ua[] = { 3, 3, 4, 5 }, ub[] = { 3, 4, 4, 6, 7 };
	const double same[] = { 1, 2, 3 }, flat[] = { 5, 5, 5 };

	(void)state;
	/* apart completely: 2 of the C(10,5) = 252 splits are that far */
	NEAR(stats_rank_test(a, 5, b, 5), 2.0 / 252);
	NEAR(stats_rank_test(b, 5, a, 5), 2.0 / 252);
	/* ties, counted over every split (brute force) */
	NEAR(stats_rank_test(ta, 6, tb, 7), 0.1247086247086247);
	NEAR(stats_rank_test(ua, 4, ub, 5), 0.3888888888888889);
	/* no difference at all */
	NEAR(stats_rank_test(same, 3, same, 3), 1);
	NEAR(stats_rank_test(flat, 3, flat, 3), 1);
	/* one sample each: nothing can be told apart */
	NEAR(stats_rank_test(a, 1, b, 1), 1);
	/* an empty side */
	NEAR(stats_rank_test(a, 0, b, 5), -1);
}

static void test_rank_normal(void **state)
{
	double a[40], b[40], c[40];

	(void)state;
	for (int i = 0; i < 40; i++) {
		a[i] = i;
		b[i] = 40 + i;
		c[i] = i + 0.5;
	}
	/* 80 samples: the normal approximation; apart, p is tiny */
	assert_true(stats_rank_test(a, 40, b, 40) < 1e-10);
	/* interleaved, no difference to speak of */
	assert_true(stats_rank_test(a, 40, c, 40) > 0.5);
	/* the exact count and the approximation agree near the border: 60
	 * samples counted, the first 30 of each the same either way */
	assert_true(fabs(stats_rank_test(a, 30, c, 30) - stats_rank_test(a, 30, c, 31)) < 0.2);
}

static void test_ratio_ci(void **state)
{
	const double base[] = { 100, 102, 98, 101, 99, 100, 103, 97, 100, 101 };
	const double slow[] = { 130, 131, 128, 132, 129, 130, 133, 127, 130, 131 };
	const double flat_a[] = { 10, 10, 10 }, flat_b[] = { 20, 20, 20 }, zero[] = { 0, 0 };
	double r, lo, hi, r2, lo2, hi2;

	(void)state;
	assert_int_equal(stats_ratio_ci(base, 10, slow, 10, 0.95, 0, &r, &lo, &hi), 0);
	NEAR(r, 130.0 / 100.0);
	assert_true(lo <= r && r <= hi);
	/* 30% slower, well outside the base's spread */
	assert_true(lo > 1.2 && hi < 1.4);
	/* the same inputs, the same interval: a fixed seed */
	assert_int_equal(stats_ratio_ci(base, 10, slow, 10, 0.95, 0, &r2, &lo2, &hi2), 0);
	NEAR(lo, lo2);
	NEAR(hi, hi2);
	/* no spread: the interval is the point */
	assert_int_equal(stats_ratio_ci(flat_a, 3, flat_b, 3, 0.95, 500, &r, &lo, &hi), 0);
	NEAR(r, 2);
	NEAR(lo, 2);
	NEAR(hi, 2);
	/* a median of 0 has no ratio */
	assert_int_equal(stats_ratio_ci(zero, 2, flat_b, 3, 0.95, 0, &r, &lo, &hi), -1);
	assert_int_equal(stats_ratio_ci(flat_a, 0, flat_b, 3, 0.95, 0, &r, &lo, &hi), -1);
}

static void test_holm(void **state)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, one[] = { 0.2 }, big[] = { 0.5, 0.6 };

	(void)state;
	/* sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1
	 * = 0.04, which may not fall below 0.06 */
	stats_holm(p, 4);
	NEAR(p[0], 0.03);
	NEAR(p[1], 0.06);
	NEAR(p[2], 0.06);
	NEAR(p[3], 0.02);
	stats_holm(one, 1);
	NEAR(one[0], 0.2);
	/* capped at 1 */
	stats_holm(big, 2);
	NEAR(big[0], 1);
	NEAR(big[1], 1);
	stats_holm(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),	    cmocka_unit_test(test_rank_exact),
		cmocka_unit_test(test_rank_normal), cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_holm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
