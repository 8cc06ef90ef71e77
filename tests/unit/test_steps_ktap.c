/* The ktap step's verdict: pass with skips, a failure naming the failed
 * tests where the fault is, malformed KTAP an error naming its line; every
 * test a subtest of the step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "step_ktap.h"
#include "util.h"

/* The step of a fresh scenario result, judged on text. */
static struct step_result *judge(struct scenario_result *r, const char *text)
{
	struct step_result *sr;

	memset(r, 0, sizeof(*r));
	sr = scenario_result_add_step(r);
	ktap_judge(sr, text, strlen(text));
	return sr;
}

static void test_pass_with_skips(void **state)
{
	struct scenario_result r;
	struct step_result *sr = judge(&r, "KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP no\n");

	(void)state;
	assert_int_equal(sr->status, ST_PASS);
	assert_null(sr->message);
	assert_int_equal(sr->subtests_count, 2);
	assert_string_equal(sr->subtests[1].name, "b");
	assert_int_equal(sr->subtests[1].status, ST_SKIP);
	assert_string_equal(sr->subtests[1].reason, "no");
	scenario_result_free(&r);
}

static void test_fail_names_leaves(void **state)
{
	struct scenario_result r;
	struct step_result *sr =
	    judge(&r, "KTAP version 1\n1..3\n"
		      "    1..2\n    not ok 1 c1\n    ok 2 c2\nnot ok 1 s1\n"
		      "    1..5\n    not ok 1 d1\n    not ok 2 d2\n"
		      "    not ok 3 d3\n    not ok 4 d4\n    ok 5 d5\nnot ok 2 s2\n"
		      "ok 3 s3\n");

	(void)state;
	assert_int_equal(sr->status, ST_FAIL);
	assert_string_equal(sr->message, "2 of 3 tests failed: s1.c1, s2.d1, s2.d2 (and 2 more)");
	assert_int_equal(sr->subtests_count, 10);
	scenario_result_free(&r);
	/* a failed test without subtests is itself the fault */
	sr = judge(&r, "TAP version 13\n1..1\nnot ok 1 lonely\n");
	assert_string_equal(sr->message, "1 of 1 tests failed: lonely");
	scenario_result_free(&r);
}

static void test_malformed(void **state)
{
	struct scenario_result r;
	struct step_result *sr = judge(&r, "KTAP version 1\n1..3\nok 1 a\nok 2 b\n");

	(void)state;
	assert_int_equal(sr->status, ST_ERROR);
	assert_string_equal(
	    sr->message, "malformed KTAP, line 4: the output ended after 2 of the 3 planned tests");
	assert_int_equal(sr->subtests_count, 0);
	scenario_result_free(&r);
	sr = judge(&r, "");
	assert_int_equal(sr->status, ST_ERROR);
	assert_string_equal(sr->message,
			    "malformed KTAP: no \"KTAP version 1\" or \"TAP version 13\" line");
	scenario_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_with_skips),
		cmocka_unit_test(test_fail_names_leaves),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
