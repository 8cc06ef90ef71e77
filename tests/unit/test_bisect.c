/* Bisection logic: where the next cuts fall, how skipped candidates are
 * passed over, what exit codes and endpoints mean, and that multisection
 * needs no more rounds than its bound (and fewer than plain bisection). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <errno.h>
#include <string.h>

#include "bisect.h"

/* A simulated search over n candidates whose first bad one is culprit;
 * the candidates in skip[] cannot be tested, and flaky[] ones pass unless
 * tried `tries` >= 2 times. Returns the rounds taken; *tests counts the
 * candidates run, endpoints included. */
struct sim {
	size_t n, culprit;
	const bool *skip;
	unsigned k;
	size_t tests, rounds;
};

static enum bisect_verdict sim_judge(const struct sim *s, size_t i)
{
	if (s->skip && s->skip[i])
		return BISECT_SKIP;
	return i >= s->culprit ? BISECT_BAD : BISECT_GOOD;
}

static void sim_run(struct sim *s, struct bisect *b)
{
	size_t pts[16], got;

	assert_int_equal(bisect_init(b, s->n), 0);
	bisect_record(b, 0, sim_judge(s, 0));
	bisect_record(b, s->n - 1, sim_judge(s, s->n - 1));
	assert_int_equal(bisect_check_ends(b->v[0], b->v[s->n - 1]), BISECT_ENDS_OK);
	s->tests = 2;
	s->rounds = 0;
	while ((got = bisect_next(b, s->k, pts))) {
		assert_true(got <= s->k);
		for (size_t j = 0; j < got; j++) {
			assert_int_equal(b->v[pts[j]], BISECT_UNKNOWN);
			if (j)
				assert_true(pts[j] > pts[j - 1]);
			bisect_record(b, pts[j], sim_judge(s, pts[j]));
		}
		s->tests += got;
		s->rounds++;
		assert_true(s->rounds <= s->n);
	}
}

static void test_verdicts_from_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(bisect_verdict_of_exit(0), BISECT_GOOD);
	assert_int_equal(bisect_verdict_of_exit(1), BISECT_BAD);
	assert_int_equal(bisect_verdict_of_exit(125), BISECT_SKIP);
	assert_int_equal(bisect_verdict_of_exit(2), BISECT_ABORT);
	assert_int_equal(bisect_verdict_of_exit(130), BISECT_ABORT);
	assert_int_equal(bisect_verdict_of_exit(-1), BISECT_ABORT);
	assert_string_equal(bisect_verdict_name(BISECT_SKIP), "skip");
	assert_string_equal(bisect_verdict_name(BISECT_GOOD), "good");
}

static void test_endpoints(void **state)
{
	(void)state;
	assert_int_equal(bisect_check_ends(BISECT_GOOD, BISECT_BAD), BISECT_ENDS_OK);
	assert_int_equal(bisect_check_ends(BISECT_BAD, BISECT_BAD), BISECT_ENDS_FIRST_NOT_GOOD);
	assert_int_equal(bisect_check_ends(BISECT_GOOD, BISECT_GOOD), BISECT_ENDS_LAST_NOT_BAD);
	assert_int_equal(bisect_check_ends(BISECT_SKIP, BISECT_BAD), BISECT_ENDS_UNTESTED);
	assert_int_equal(bisect_check_ends(BISECT_GOOD, BISECT_SKIP), BISECT_ENDS_UNTESTED);
	/* a first that fails is reported even when the last could not be tested */
	assert_int_equal(bisect_check_ends(BISECT_BAD, BISECT_SKIP), BISECT_ENDS_FIRST_NOT_GOOD);
	assert_int_equal(bisect_check_ends(BISECT_GOOD, BISECT_ABORT), BISECT_ENDS_ABORT);
}

static void test_init_needs_two(void **state)
{
	struct bisect b;

	(void)state;
	assert_int_equal(bisect_init(&b, 1), -EINVAL);
	assert_int_equal(bisect_init(&b, 0), -EINVAL);
}

/* plain bisection of 7 rungs cuts in the middle, then in the middles */
static void test_plain_cuts_in_the_middle(void **state)
{
	struct bisect b;
	size_t pt, lo, hi;

	(void)state;
	bisect_init(&b, 7);
	bisect_record(&b, 0, BISECT_GOOD);
	bisect_record(&b, 6, BISECT_BAD);
	assert_int_equal(bisect_next(&b, 1, &pt), 1);
	assert_int_equal(pt, 3);
	bisect_record(&b, 3, BISECT_BAD);
	assert_int_equal(bisect_next(&b, 1, &pt), 1);
	assert_int_equal(pt, 1);
	bisect_record(&b, 1, BISECT_GOOD);
	assert_int_equal(bisect_next(&b, 1, &pt), 1);
	assert_int_equal(pt, 2);
	bisect_record(&b, 2, BISECT_GOOD);
	assert_int_equal(bisect_next(&b, 1, &pt), 0);
	bisect_range(&b, &lo, &hi);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 3);
	assert_false(bisect_ambiguous(&b));
	bisect_free(&b);
}

/* k points cut 11 candidates (9 inside) into k + 1 nearly equal parts */
static void test_multisection_spreads_points(void **state)
{
	struct bisect b;
	size_t pts[4];

	(void)state;
	bisect_init(&b, 11);
	bisect_record(&b, 0, BISECT_GOOD);
	bisect_record(&b, 10, BISECT_BAD);
	assert_int_equal(bisect_next(&b, 2, pts), 2);
	assert_int_equal(pts[0], 3);
	assert_int_equal(pts[1], 6);
	assert_int_equal(bisect_next(&b, 3, pts), 3);
	assert_int_equal(pts[0], 2);
	assert_int_equal(pts[1], 5);
	assert_int_equal(pts[2], 7);
	/* more points than candidates left: every one of them, once */
	bisect_record(&b, 3, BISECT_GOOD);
	bisect_record(&b, 6, BISECT_BAD);
	assert_int_equal(bisect_next(&b, 4, pts), 2);
	assert_int_equal(pts[0], 4);
	assert_int_equal(pts[1], 5);
	bisect_free(&b);
}

/* for every culprit and every ladder up to 40, each k needs at most
 * bisect_rounds_max rounds, and the first bad candidate is found */
static void test_rounds_within_bound(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= 4; k++)
		for (size_t n = 2; n <= 40; n++)
			for (size_t c = 1; c < n; c++) {
				struct sim s = { .n = n, .culprit = c, .k = k };
				struct bisect b;
				size_t lo, hi;

				sim_run(&s, &b);
				bisect_range(&b, &lo, &hi);
				assert_int_equal(hi, c);
				assert_int_equal(lo, c - 1);
				assert_true(s.rounds <= bisect_rounds_max(n, k));
				bisect_free(&b);
			}
}

static size_t worst_rounds(size_t n, unsigned k)
{
	size_t worst = 0;

	for (size_t c = 1; c < n; c++) {
		struct sim s = { .n = n, .culprit = c, .k = k };
		struct bisect b;

		sim_run(&s, &b);
		if (s.rounds > worst)
			worst = s.rounds;
		bisect_free(&b);
	}
	return worst;
}

/* the point of -j 3: two cuts a round, so fewer rounds than bisection */
static void test_multisection_needs_fewer_rounds(void **state)
{
	(void)state;
	assert_int_equal(bisect_rounds_max(11, 1), 4);
	assert_int_equal(bisect_rounds_max(11, 2), 3);
	assert_int_equal(bisect_rounds_max(11, 3), 2);
	assert_int_equal(worst_rounds(11, 1), 4);
	assert_int_equal(worst_rounds(11, 2), 3);
	assert_int_equal(worst_rounds(11, 3), 2);
	assert_int_equal(worst_rounds(7, 1), 3);
	assert_int_equal(worst_rounds(7, 2), 2);
	assert_int_equal(worst_rounds(100, 1), 7);
	assert_int_equal(worst_rounds(100, 2), 5);
	/* a plain bisection of the 7-rung ladder: ceil(log2 7) + 2 boots at most */
	for (size_t c = 1; c < 7; c++) {
		struct sim s = { .n = 7, .culprit = c, .k = 1 };
		struct bisect b;

		sim_run(&s, &b);
		assert_true(s.tests <= 3 + 2);
		bisect_free(&b);
	}
}

/* a skipped candidate is passed over and its neighbour tested instead;
 * the culprit is still exact when the skip is not next to it */
static void test_skip_takes_a_neighbour(void **state)
{
	bool skip[4] = { false, true, false, false };
	struct sim s = { .n = 4, .culprit = 3, .k = 1, .skip = skip };
	struct bisect b;
	size_t lo, hi;

	(void)state;
	sim_run(&s, &b);
	assert_int_equal(b.v[1], BISECT_SKIP);
	assert_int_equal(b.v[2], BISECT_GOOD);
	bisect_range(&b, &lo, &hi);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 3);
	assert_false(bisect_ambiguous(&b));
	assert_int_equal(s.tests, 4);
	bisect_free(&b);
}

/* a skip right before the culprit leaves two suspects, as in git */
static void test_skip_next_to_culprit_is_ambiguous(void **state)
{
	bool skip[7] = { false, false, false, true, false, false, false };
	struct sim s = { .n = 7, .culprit = 4, .k = 1, .skip = skip };
	struct bisect b;
	size_t lo, hi;

	(void)state;
	sim_run(&s, &b);
	bisect_range(&b, &lo, &hi);
	assert_int_equal(lo, 2);
	assert_int_equal(hi, 4);
	assert_true(bisect_ambiguous(&b));
	bisect_free(&b);
}

/* with every interior candidate untestable nothing is left to try */
static void test_all_skipped(void **state)
{
	bool skip[5] = { false, true, true, true, false };
	struct sim s = { .n = 5, .culprit = 2, .k = 2, .skip = skip };
	struct bisect b;
	size_t lo, hi;

	(void)state;
	sim_run(&s, &b);
	assert_int_equal(s.tests, 5);
	bisect_range(&b, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 4);
	assert_true(bisect_ambiguous(&b));
	bisect_free(&b);
}

/* skips never stop the search from converging, for any culprit */
static void test_skips_anywhere_converge(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= 3; k++)
		for (size_t c = 1; c < 12; c++)
			for (size_t sk = 1; sk < 11; sk++) {
				bool skip[12] = { 0 };
				struct sim s = { .n = 12, .culprit = c, .k = k, .skip = skip };
				struct bisect b;
				size_t lo, hi;

				skip[sk] = true;
				sim_run(&s, &b);
				bisect_range(&b, &lo, &hi);
				/* the exact culprit, or a range holding it and only skips */
				assert_true(lo < c && c <= hi);
				for (size_t i = lo + 1; i < hi; i++)
					assert_int_equal(b.v[i], BISECT_SKIP);
				assert_int_equal(bisect_ambiguous(&b), hi != c || hi - lo > 1);
				bisect_free(&b);
			}
}

/* a flaky run that passes above a bad one does not move the range */
static void test_good_above_bad_is_ignored(void **state)
{
	struct bisect b;
	size_t lo, hi;

	(void)state;
	bisect_init(&b, 6);
	bisect_record(&b, 0, BISECT_GOOD);
	bisect_record(&b, 5, BISECT_BAD);
	bisect_record(&b, 2, BISECT_BAD);
	bisect_record(&b, 4, BISECT_GOOD);
	bisect_range(&b, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 2);
	bisect_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts_from_exit_codes),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_init_needs_two),
		cmocka_unit_test(test_plain_cuts_in_the_middle),
		cmocka_unit_test(test_multisection_spreads_points),
		cmocka_unit_test(test_rounds_within_bound),
		cmocka_unit_test(test_multisection_needs_fewer_rounds),
		cmocka_unit_test(test_skip_takes_a_neighbour),
		cmocka_unit_test(test_skip_next_to_culprit_is_ambiguous),
		cmocka_unit_test(test_all_skipped),
		cmocka_unit_test(test_skips_anywhere_converge),
		cmocka_unit_test(test_good_above_bad_is_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
