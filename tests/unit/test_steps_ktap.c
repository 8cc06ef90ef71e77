/* The ktap step's verdict: pass with skips, a failure naming the failed
 * tests where the fault is, malformed KTAP an error naming its line; every
 * test a subtest of the step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "step_ktap.h"
#include "util.h"

/* The step of a fresh scenario result, judged on text (console: the
 * kernel's log, else a command's output). */
static struct step_result *judge_from(struct scenario_result *r, const char *text, bool console)
{
	struct step_result *sr;

	memset(r, 0, sizeof(*r));
	sr = scenario_result_add_step(r);
	ktap_judge(sr, text, strlen(text), console);
	return sr;
}

static struct step_result *judge(struct scenario_result *r, const char *text)
{
	return judge_from(r, text, false);
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

/* No test point ran and none was skipped: a failure, whatever the plan
 * says; a check that passes on nothing tests nothing. */
static void test_no_test_ran(void **state)
{
	struct scenario_result r;
	struct step_result *sr = judge(&r, "KTAP version 1\n1..0\n");

	(void)state;
	assert_int_equal(sr->status, ST_FAIL);
	assert_string_equal(sr->message, "no test ran: the KTAP plan is 1..0");
	scenario_result_free(&r);
	/* suites whose nested plans are empty: no case ran in any */
	sr = judge(&r, "KTAP version 1\n1..2\n    1..0\nok 1 a\n    KTAP version 1\n"
		       "    1..0\nok 2 b\n");
	assert_int_equal(sr->status, ST_FAIL);
	assert_non_null(strstr(sr->message, "no test ran: every suite reported holds no test"));
	assert_int_equal(sr->subtests_count, 2);
	scenario_result_free(&r);
}

/* Every point skipped: the step is a skip naming each with its reason;
 * a suite skipped as a whole is its cases; "1..0 # SKIP why" is kselftest's
 * skip of a whole program. One point that ran makes it a pass. */
static void test_all_skipped(void **state)
{
	struct scenario_result r;
	struct step_result *sr =
	    judge(&r, "TAP version 13\n1..2\nok 1 a # SKIP needs root\nok 2 # SKIP\n");

	(void)state;
	assert_int_equal(sr->status, ST_SKIP);
	assert_string_equal(sr->message,
			    "all 2 tests skipped: a (needs root), 2 (no reason given)");
	scenario_result_free(&r);
	sr = judge(&r, "KTAP version 1\n1..1\n    1..2\n    ok 1 c1 # SKIP no device\n"
		       "    ok 2 c2 # TODO later\nok 1 suite # SKIP\n");
	assert_int_equal(sr->status, ST_SKIP);
	assert_string_equal(sr->message, "all 2 tests skipped: suite.c1 (no device), "
					 "suite.c2 (TODO later)");
	scenario_result_free(&r);
	sr = judge(&r, "TAP version 13\n1..0 # SKIP needs root\n");
	assert_int_equal(sr->status, ST_SKIP);
	assert_string_equal(sr->message, "all tests skipped: needs root");
	scenario_result_free(&r);
	sr = judge(&r, "KTAP version 1\n1..7\nok 1 a # SKIP x\nok 2 b # SKIP x\n"
		       "ok 3 c # SKIP x\nok 4 d # SKIP x\nok 5 e # SKIP x\nok 6 f # SKIP x\n"
		       "ok 7 g # SKIP x\n");
	assert_string_equal(sr->message, "all 7 tests skipped: a (x), b (x), c (x), d (x), "
					 "e (x) (and 2 more)");
	scenario_result_free(&r);
	sr = judge(&r, "KTAP version 1\n1..2\nok 1 a # SKIP x\nok 2 b\n");
	assert_int_equal(sr->status, ST_PASS);
	scenario_result_free(&r);
}

/* The kernel's log with no KTAP in it: no KUnit suite ran at boot, a
 * failure saying what to require; from a command it stays an error. */
static void test_console_without_ktap(void **state)
{
	struct scenario_result r;
	struct step_result *sr =
	    judge_from(&r, "[    0.000000] Linux version 6.1.0\n[    1.0] Run /init\n", true);

	(void)state;
	assert_int_equal(sr->status, ST_FAIL);
	assert_non_null(strstr(sr->message, "no test ran: the kernel log since boot holds no "
					    "KTAP, so no KUnit suite ran at boot"));
	assert_non_null(strstr(sr->message, "CONFIG_KUNIT=y"));
	scenario_result_free(&r);
	sr = judge_from(&r, "nothing\n", false);
	assert_int_equal(sr->status, ST_ERROR);
	scenario_result_free(&r);
	/* in the log, an empty plan is no test ran too */
	sr = judge_from(&r, "[    1.1] KTAP version 1\n[    1.2] 1..0\n", true);
	assert_int_equal(sr->status, ST_FAIL);
	assert_string_equal(sr->message, "no test ran: the KTAP plan is 1..0");
	scenario_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_with_skips), cmocka_unit_test(test_fail_names_leaves),
		cmocka_unit_test(test_malformed),	cmocka_unit_test(test_no_test_ran),
		cmocka_unit_test(test_all_skipped),	cmocka_unit_test(test_console_without_ktap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
