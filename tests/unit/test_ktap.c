/* The KTAP parser: KUnit's console output and kselftest's TAP as subtests
 * with their paths, and every malformed input refused with its line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "util.h"

static struct ktap_doc parse_ok(const char *text)
{
	struct ktap_doc doc;
	struct ktap_error err;
	int ret = ktap_parse(text, strlen(text), &doc, &err);

	if (ret)
		fail_msg("line %d: %s", err.line, err.msg);
	return doc;
}

/* The error's line and that its message holds what. */
static void parse_bad(const char *text, int line, const char *what)
{
	struct ktap_doc doc;
	struct ktap_error err;

	assert_int_equal(ktap_parse(text, strlen(text), &doc, &err), -EINVAL);
	if (!strstr(err.msg, what))
		fail_msg("\"%s\" not in \"%s\"", what, err.msg);
	assert_int_equal(err.line, line);
	assert_null(doc.tests);
	assert_int_equal(doc.count, 0);
}

static void expect_test(const struct ktap_doc *d, size_t i, const char *name, enum status st)
{
	assert_true(i < d->count);
	assert_string_equal(d->tests[i].name, name);
	assert_int_equal(d->tests[i].status, st);
}

/* KUnit at boot as the console shows it: timestamps, other kernel messages
 * in between, suites nested under the top level, a failure's details. */
static const char kunit_console[] =
    "[    0.000000] Linux version 6.1.0\n"
    "[    1.100000] KTAP version 1\n"
    "[    1.100001] 1..2\n"
    "[    1.100002]     KTAP version 1\n"
    "[    1.100003]     # Subtest: list-kernel-test\n"
    "[    1.100004]     1..3\n"
    "[    1.100005]     ok 1 - list_test_list_init\n"
    "[    1.100006] random: crng init done\n"
    "[    1.100007]     # list_test_list_add: EXPECTATION FAILED at lib/list-test.c:30\n"
    "[    1.100008]     Expected list_empty(&list) to be false\n"
    "[    1.100009]     not ok 2 - list_test_list_add\n"
    "[    1.100010]     ok 3 - list_test_skip # SKIP not on this arch\n"
    "[    1.100011] # list-kernel-test: pass:1 fail:1 skip:1 total:3\n"
    "[    1.100012] not ok 1 - list-kernel-test\n"
    "[    1.100013]     KTAP version 1\n"
    "[    1.100014]     # Subtest: example\n"
    "[    1.100015]     1..1\n"
    "[    1.100016]         KTAP version 1\n"
    "[    1.100017]         # Subtest: example_params_test\n"
    "[    1.100018]         ok 1 - example value 3\n"
    "[    1.100019]         ok 2 - example value 2\n"
    "[    1.100020]     ok 1 - example_params_test\n"
    "[    1.100021] ok 2 - example\n"
    "[    1.100022] not ok 3 - after the plan: never read\n"
    "[    2.000000] Run /init as init process\n";

static void test_kunit_console(void **state)
{
	struct ktap_doc d = parse_ok(kunit_console);

	(void)state;
	assert_int_equal(d.count, 8);
	expect_test(&d, 0, "list-kernel-test", ST_FAIL);
	expect_test(&d, 1, "list-kernel-test.list_test_list_init", ST_PASS);
	expect_test(&d, 2, "list-kernel-test.list_test_list_add", ST_FAIL);
	expect_test(&d, 3, "list-kernel-test.list_test_skip", ST_SKIP);
	expect_test(&d, 4, "example", ST_PASS);
	expect_test(&d, 5, "example.example_params_test", ST_PASS);
	expect_test(&d, 6, "example.example_params_test.example value 3", ST_PASS);
	expect_test(&d, 7, "example.example_params_test.example value 2", ST_PASS);
	assert_string_equal(d.tests[2].diag, "list_test_list_add: EXPECTATION FAILED at "
					     "lib/list-test.c:30\n"
					     "Expected list_empty(&list) to be false");
	assert_string_equal(d.tests[3].reason, "not on this arch");
	assert_non_null(strstr(d.tests[0].diag, "pass:1 fail:1 skip:1 total:3"));
	/* KUnit states no duration */
	for (size_t i = 0; i < d.count; i++)
		assert_int_equal(d.tests[i].duration_ms, -1);
	assert_int_equal(d.top_count, 2);
	assert_int_equal(d.top_failed, 1);
	assert_int_equal(d.top_skipped, 0);
	ktap_doc_free(&d);
}

/* A kselftest program: TAP 13, nameless SKIP results, a time diagnostic,
 * the totals after the last result. */
static void test_kselftest(void **state)
{
	struct ktap_doc d = parse_ok("TAP version 13\n"
				     "1..4\n"
				     "# Testing nanosleep\n"
				     "# time=1.5s\n"
				     "ok 1 nanosleep CLOCK_MONOTONIC\n"
				     "ok 2 # SKIP CLOCK_TAI not supported\n"
				     "# time=250ms\n"
				     "not ok 3 timer_settime\n"
				     "ok 4 flaky # TODO known to flake\n"
				     "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n");

	(void)state;
	assert_int_equal(d.count, 4);
	expect_test(&d, 0, "nanosleep CLOCK_MONOTONIC", ST_PASS);
	assert_int_equal(d.tests[0].duration_ms, 1500);
	assert_string_equal(d.tests[0].diag, "Testing nanosleep\ntime=1.5s");
	expect_test(&d, 1, "2", ST_SKIP);
	assert_string_equal(d.tests[1].reason, "CLOCK_TAI not supported");
	assert_int_equal(d.tests[1].duration_ms, -1);
	expect_test(&d, 2, "timer_settime", ST_FAIL);
	assert_int_equal(d.tests[2].duration_ms, 250);
	expect_test(&d, 3, "flaky", ST_SKIP);
	assert_string_equal(d.tests[3].reason, "TODO known to flake");
	assert_int_equal(d.top_failed, 1);
	assert_int_equal(d.top_skipped, 2);
	ktap_doc_free(&d);
}

/* kselftest's runner (run_kselftest.sh) as the image's kselftest-timers
 * scenario sees it: each program's own TAP indented as "# " diagnostics of
 * its top-level result, a directive that is neither SKIP nor TODO. */
static void test_kselftest_runner(void **state)
{
	struct ktap_doc d = parse_ok("TAP version 13\n"
				     "1..3\n"
				     "# selftests: timers: posix_timers\n"
				     "# Check itimer virtual... [OK]\n"
				     "ok 1 selftests: timers: posix_timers\n"
				     "# selftests: timers: nanosleep\n"
				     "# TAP version 13\n"
				     "# 1..2\n"
				     "# ok 1 CLOCK_REALTIME                 \n"
				     "# ok 2 # SKIP CLOCK_PROCESS_CPUTIME_ID       \n"
				     "# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0\n"
				     "ok 2 selftests: timers: nanosleep\n"
				     "# selftests: timers: mqueue-lat\n"
				     "# Mqueue latency :  mq_open: Too many open files\n"
				     "# [FAILED]\n"
				     "not ok 3 selftests: timers: mqueue-lat # exit=1\n");

	(void)state;
	assert_int_equal(d.count, 3);
	expect_test(&d, 0, "selftests: timers: posix_timers", ST_PASS);
	expect_test(&d, 1, "selftests: timers: nanosleep", ST_PASS);
	expect_test(&d, 2, "selftests: timers: mqueue-lat", ST_FAIL);
	assert_null(d.tests[2].reason);
	assert_string_equal(d.tests[2].diag, "selftests: timers: mqueue-lat\n"
					     "Mqueue latency :  mq_open: Too many open files\n"
					     "[FAILED]");
	assert_non_null(strstr(d.tests[1].diag, "ok 2 # SKIP CLOCK_PROCESS_CPUTIME_ID"));
	assert_int_equal(d.top_failed, 1);
	ktap_doc_free(&d);
}

/* run_kselftest.sh with tests of two collections: one document each, its
 * own version line and plan. The second is read too (its failure counts),
 * lines between them are not, and an error in it names its line in the
 * whole output. */
static void test_kselftest_collections(void **state)
{
	static const char two[] = "TAP version 13\n"
				  "1..1\n"
				  "# selftests: timers: nanosleep\n"
				  "ok 1 selftests: timers: nanosleep\n"
				  "kselftest: Running tests in vm\n"
				  "TAP version 13\n"
				  "1..2\n"
				  "# selftests: vm: madv_populate\n"
				  "ok 1 selftests: vm: madv_populate\n"
				  "# selftests: vm: soft-dirty\n"
				  "not ok 2 selftests: vm: soft-dirty # exit=1\n";
	struct ktap_doc d = parse_ok(two);

	(void)state;
	assert_int_equal(d.count, 3);
	assert_int_equal(d.top_count, 3);
	expect_test(&d, 0, "selftests: timers: nanosleep", ST_PASS);
	expect_test(&d, 1, "selftests: vm: madv_populate", ST_PASS);
	expect_test(&d, 2, "selftests: vm: soft-dirty", ST_FAIL);
	assert_int_equal(d.top_failed, 1);
	assert_int_equal(d.points_run, 3);
	ktap_doc_free(&d);
	/* a third one cut short: its error at the input's last line, 11 */
	parse_bad("TAP version 13\n1..1\nok 1 a\nnoise\nTAP version 13\n1..2\nok 1 b\nok 2 c\n"
		  "TAP version 13\n1..2\nok 1 d\n",
		  11, "ended after 1 of the 2 planned tests");
	/* skip-all in the first, tests in the second: they ran */
	d = parse_ok("TAP version 13\n1..0 # SKIP no vm\nTAP version 13\n1..1\nok 1 b\n");
	assert_int_equal(d.count, 1);
	assert_int_equal(d.points_run, 1);
	ktap_doc_free(&d);
}

static void test_plan_last_and_skip_all(void **state)
{
	struct ktap_doc d = parse_ok("KTAP version 1\nok 1 a\nok 2 b\n1..2\nok 3 never read\n");

	(void)state;
	assert_int_equal(d.count, 2);
	ktap_doc_free(&d);
	d = parse_ok("TAP version 13\n1..0 # SKIP needs root\n");
	assert_int_equal(d.count, 0);
	assert_string_equal(d.skip_all, "needs root");
	ktap_doc_free(&d);
	/* a nested test with no version line: its first indented line opens it */
	d = parse_ok("KTAP version 1\n1..1\n    ok 1 inner\n    1..1\nok 1 outer\n");
	assert_int_equal(d.count, 2);
	expect_test(&d, 1, "outer.inner", ST_PASS);
	ktap_doc_free(&d);
	/* CRLF and the printk caller id */
	d = parse_ok("[    1.0][    T1] KTAP version 1\r\n[    1.1][    T1] 1..1\r\n"
		     "[    1.2][    T1] ok 1 crlf\r\n");
	expect_test(&d, 0, "crlf", ST_PASS);
	ktap_doc_free(&d);
}

static void test_malformed(void **state)
{
	(void)state;

	parse_bad("KTAP version 2\n1..1\n", 1, "only KTAP version 1");
	parse_bad("KTAP version 1\n1..3\nok 1 a\nok 2 b\n", 4, "ended after 2 of the 3");
	parse_bad("KTAP version 1\nok 1 a\n", 2, "without a plan line");
	parse_bad("KTAP version 1\n1..3\nok 1 a\nok 3 c\n", 4, "test number 3, expected 2");
	parse_bad("KTAP version 1\n1..1\n    1..1\n    ok 1 a\n    ok 2 b\n", 5,
		  "test 2 is past the plan of 1");
	parse_bad("KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 in\n", 5,
		  "ended inside the nested test opened at line 3");
	parse_bad("KTAP version 1\n1..2\n    1..1\n        1..1\n        ok 1 x\nok 1 y\n", 6,
		  "opened at line 4 has no result line");
	parse_bad("KTAP version 1\n1..1\n        ok 1 x\n", 3, "indented 2 levels");
	parse_bad("KTAP version 1\n1..1\n  ok 1 x\n", 3, "not a multiple of 4");
	parse_bad("KTAP version 1\n1..1\n    1..2\n    ok 1 x\nok 1 y\n", 5,
		  "planned 2 tests but reported 1");
	parse_bad("KTAP version 1\n1..2\n1..2\n", 3, "a second plan line");
	parse_bad("KTAP version 1\n1..2\nok a\n", 3, "needs its test number");
	parse_bad("KTAP version 1\n1..2\nok 1 a\n    ok 1 b\n", 4, "ended inside");
}

/* No version line at all is no document: -ENOENT, not a malformed one. */
static void test_no_document(void **state)
{
	struct ktap_doc doc;
	struct ktap_error err;

	(void)state;
	assert_int_equal(ktap_parse("no tap here\n", 12, &doc, &err), -ENOENT);
	assert_int_equal(err.line, 0);
	assert_non_null(strstr(err.msg, "no \"KTAP version 1\""));
	assert_null(doc.tests);
	assert_int_equal(ktap_parse("", 0, &doc, &err), -ENOENT);
}

/* Test points: the results with nothing nested below them. A suite counts
 * its cases, not itself; a suite whose nested plan is 1..0 has none. */
static void test_points(void **state)
{
	struct ktap_doc d = parse_ok(kunit_console);

	(void)state;
	/* list: 3 cases, 1 skipped; example: its params test's 2 values */
	assert_int_equal(d.points_run, 4);
	assert_int_equal(d.points_skipped, 1);
	ktap_doc_free(&d);
	d = parse_ok("KTAP version 1\n1..0\n");
	assert_int_equal(d.points_run + d.points_skipped, 0);
	ktap_doc_free(&d);
	/* every case of the suite skipped, and KUnit skips the suite */
	d = parse_ok("KTAP version 1\n1..1\n    1..2\n    ok 1 a # SKIP no device\n"
		     "    ok 2 b # SKIP no device\nok 1 suite # SKIP\n");
	assert_int_equal(d.points_run, 0);
	assert_int_equal(d.points_skipped, 2);
	ktap_doc_free(&d);
	/* a suite with no cases that says ok: nothing ran; one that says skip
	 * is a skipped point; one with no nested test is a point of its own */
	d = parse_ok("KTAP version 1\n1..3\n    1..0\nok 1 empty\n    1..0\n"
		     "ok 2 skipped # SKIP not here\nok 3 plain\n");
	assert_int_equal(d.points_run, 1);
	assert_int_equal(d.points_skipped, 1);
	ktap_doc_free(&d);
}

/* Hostile input: nesting, counts and numbers past what a step takes. */
static void test_hostile(void **state)
{
	char *deep = xstrdup("KTAP version 1\n1..1\n");
	char line[128];

	(void)state;
	for (int i = 1; i <= KTAP_MAX_DEPTH + 1; i++) {
		snprintf(line, sizeof(line), "%*s1..1\n", 4 * i, "");
		deep = xrealloc(deep, strlen(deep) + strlen(line) + 1);
		strcat(deep, line);
	}
	parse_bad(deep, 3 + KTAP_MAX_DEPTH, "nested more than");
	free(deep);
	parse_bad("KTAP version 1\n1..99999999\n", 2, "a step takes at most");
	parse_bad("KTAP version 1\n1..99999999999999999999999\n", 2, "needs a number");
	parse_bad("KTAP version 1\n1..1\nok 99999999999999999999999 x\n", 3,
		  "needs its test number");
}

/* A NUL byte in a result line ends its name; a name it empties is the
 * test's number, as for a result line without a name (found by fuzz_ktap). */
static void test_nul_in_name(void **state)
{
	static const char text[] = "KTAP version 1\n1..2\nok 1\0 y\nok 2 a\0b\n";
	struct ktap_doc d;
	struct ktap_error err;

	(void)state;
	assert_int_equal(ktap_parse(text, sizeof(text) - 1, &d, &err), 0);
	expect_test(&d, 0, "1", ST_PASS);
	expect_test(&d, 1, "a", ST_PASS);
	ktap_doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kunit_console),
		cmocka_unit_test(test_kselftest),
		cmocka_unit_test(test_kselftest_runner),
		cmocka_unit_test(test_kselftest_collections),
		cmocka_unit_test(test_plan_last_and_skip_all),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_nul_in_name),
		cmocka_unit_test(test_no_document),
		cmocka_unit_test(test_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
