/* The readers of the suites' own results (harness/result/junit.c) and the
 * verdict of the junit and blktests steps on them (step_suites.c): JUnit
 * XML's suites, cases, failures, errors and skips; blktests' results files
 * and check's reasons for a test not run; what is refused, with where; zero
 * tests a failure, all skipped a skip, a failed command with clean results
 * a failure. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "junit.h"
#include "result.h"
#include "step_result_clear.h"
#include "step_suites.h"

static int parse_junit(const char *text, struct ktap_doc *d, struct ktap_error *e)
{
	return junit_parse(text, strlen(text), d, e);
}

static void test_junit_cases(void **state)
{
	static const char x[] =
	    "<?xml version=\"1.0\"?>\n"
	    "<testsuite name=\"xfstests\" tests=\"4\">\n"
	    "  <properties><property name=\"FSTYP\" value=\"xfs\"/></properties>\n"
	    "  <testcase classname=\"xfstests.global\" name=\"generic/001\" time=\"3\"/>\n"
	    "  <testcase name=\"generic/002\" time=\"0.5\">\n"
	    "    <failure message=\"output mismatch\" type=\"TestFail\">-a\n+b</failure>\n"
	    "    <system-out>ignored</system-out>\n"
	    "  </testcase>\n"
	    "  <testcase name=\"generic/003\"><skipped message=\"no xfs_io\"/></testcase>\n"
	    "  <testcase name=\"generic/004\"><error message=\"crashed\"/></testcase>\n"
	    "  <testcase name=\"generic/005\"><skipped>only text &amp; more</skipped></testcase>\n"
	    "</testsuite>\n";
	struct ktap_doc d;
	struct ktap_error e;

	(void)state;
	assert_int_equal(parse_junit(x, &d, &e), 0);
	assert_int_equal(d.count, 5);
	assert_string_equal(d.tests[0].name, "generic/001");
	assert_int_equal(d.tests[0].status, ST_PASS);
	assert_int_equal(d.tests[0].duration_ms, 3000);
	assert_int_equal(d.tests[1].status, ST_FAIL);
	assert_int_equal(d.tests[1].duration_ms, 500);
	assert_string_equal(d.tests[1].diag, "output mismatch\n-a\n+b");
	assert_int_equal(d.tests[2].status, ST_SKIP);
	assert_string_equal(d.tests[2].reason, "no xfs_io");
	assert_int_equal(d.tests[2].duration_ms, -1);
	assert_int_equal(d.tests[3].status, ST_FAIL);
	assert_string_equal(d.tests[3].diag, "crashed");
	assert_string_equal(d.tests[4].reason, "only text & more");
	assert_int_equal(d.top_count, 5);
	assert_int_equal(d.top_failed, 2);
	assert_int_equal(d.points_run, 3);
	assert_int_equal(d.points_skipped, 2);
	ktap_doc_free(&d);
}

/* Several named suites: each case after its suite's name. */
static void test_junit_suites(void **state)
{
	static const char x[] = "<testsuites>\n"
				"  <testsuite name=\"a\"><testcase name=\"one\"/></testsuite>\n"
				"  <testsuite name=\"b\">\n"
				"    <testsuite name=\"c\"><testcase name=\"two\"/></testsuite>\n"
				"  </testsuite>\n"
				"</testsuites>\n";
	struct ktap_doc d;
	struct ktap_error e;

	(void)state;
	assert_int_equal(parse_junit(x, &d, &e), 0);
	assert_int_equal(d.count, 2);
	assert_string_equal(d.tests[0].name, "a.one");
	assert_string_equal(d.tests[1].name, "b.c.two");
	ktap_doc_free(&d);
	/* no test at all: parsed, nothing ran */
	assert_int_equal(parse_junit("<testsuites/>", &d, &e), 0);
	assert_int_equal(d.count, 0);
	ktap_doc_free(&d);
}

static void junit_refused(const char *x, int line, const char *want)
{
	struct ktap_doc d;
	struct ktap_error e;

	assert_int_equal(parse_junit(x, &d, &e), -EINVAL);
	assert_null(d.tests);
	if (!strstr(e.msg, want) || e.line != line)
		fail_msg("line %d \"%s\", wanted line %d \"%s\"", e.line, e.msg, line, want);
}

static void test_junit_refusals(void **state)
{
	(void)state;
	junit_refused("", 0, "no XML at all");
	junit_refused("ok 1 - not xml\n", 1, "not XML");
	junit_refused("<testsuite>\n<testcase name=\"a\">\n</testsuite>", 3, "not XML");
	junit_refused("<results><testcase name=\"a\"/></results>", 1,
		      "the root element is <results>");
	junit_refused("<testsuite>\n<testcase time=\"1\"/></testsuite>", 2,
		      "a <testcase> without a name");
	junit_refused("<?xml version=\"1.0\"?>\n<!DOCTYPE t [<!ENTITY a \"aaaaaaaa\">\n"
		      "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n"
		      "<testsuite><testcase name=\"x\"><failure>&b;</failure></testcase>"
		      "</testsuite>",
		      0, "a DOCTYPE");
}

#define NODEV "== ./nodev/block/001\n"

static void test_blktests(void **state)
{
	static const char dump[] =
	    NODEV "description\tbasic\nstatus\tpass\nruntime\t1.250s\n\n"
		  "== ./nodev_foo=bar/block/002\nstatus\tfail\nreason\toutput\n"
		  "exit_status\t0\n\n"
		  "== ./nvme0n1/nvme/003\nstatus\tnot run\n\n"
		  "== ./sda/scsi/004\nstatus\tnot run\n";
	static const char check[] = "block/001 (basic)                [passed]\n"
				    "    runtime  ...  1.250s\n"
				    "nvme/003 => nvme0n1 (reset)      [not run]\n"
				    "    nvme_trtype=loop is not supported\n"
				    "    kernel lacks NVME_TARGET\n"
				    "block/005                        [passed]\n";
	struct ktap_doc d;
	struct ktap_error e;

	(void)state;
	assert_int_equal(blktests_parse(dump, strlen(dump), check, &d, &e), 0);
	assert_int_equal(d.count, 4);
	assert_string_equal(d.tests[0].name, "block/001");
	assert_int_equal(d.tests[0].status, ST_PASS);
	assert_int_equal(d.tests[0].duration_ms, 1250);
	assert_null(d.tests[0].diag);
	assert_string_equal(d.tests[1].name, "block/002 (foo=bar)");
	assert_int_equal(d.tests[1].status, ST_FAIL);
	assert_string_equal(d.tests[1].diag, "reason: output\nexit_status: 0");
	assert_string_equal(d.tests[2].name, "nvme/003 => nvme0n1");
	assert_int_equal(d.tests[2].status, ST_SKIP);
	assert_string_equal(d.tests[2].reason,
			    "nvme_trtype=loop is not supported; kernel lacks NVME_TARGET");
	/* no reason on check's output: none invented */
	assert_null(d.tests[3].reason);
	assert_int_equal(d.top_failed, 1);
	assert_int_equal(d.points_run, 2);
	assert_int_equal(d.points_skipped, 2);
	ktap_doc_free(&d);
	assert_int_equal(blktests_parse("", 0, NULL, &d, &e), 0);
	assert_int_equal(d.count, 0);
	ktap_doc_free(&d);
}

static void blktests_refused(const char *dump, int line, const char *want)
{
	struct ktap_doc d;
	struct ktap_error e;

	assert_int_equal(blktests_parse(dump, strlen(dump), NULL, &d, &e), -EINVAL);
	if (!strstr(e.msg, want) || e.line != line)
		fail_msg("line %d \"%s\", wanted line %d \"%s\"", e.line, e.msg, line, want);
}

static void test_blktests_refusals(void **state)
{
	(void)state;
	blktests_refused("status\tpass\n", 1, "a line before the first results file");
	blktests_refused("== ./block/001\nstatus\tpass\n", 1, "is not DEVICE/GROUP/TEST");
	blktests_refused("== ./a/b/c/d\nstatus\tpass\n", 1, "is not DEVICE/GROUP/TEST");
	blktests_refused(NODEV "runtime\t1s\n== ./nodev/block/002\nstatus\tpass\n", 3,
			 "the results of block/001 have no status line");
	blktests_refused(NODEV "runtime\t1s\n", 2, "the results of block/001 have no status");
	blktests_refused(NODEV "status\tpassed\n", 2, "status \"passed\" is none of");
}

static void judge(const char *format, const char *text, int exit_code, enum status want,
		  const char *msg)
{
	struct step_result sr = { 0 };

	suites_judge(&sr, format, text, strlen(text), NULL, exit_code);
	if (sr.status != want || (msg && (!sr.message || !strstr(sr.message, msg))) ||
	    (!msg && sr.message))
		fail_msg("%s: status %d \"%s\", wanted %d \"%s\"", text, sr.status,
			 sr.message ? sr.message : "", want, msg ? msg : "");
	for (size_t i = 0; i < sr.subtests_count; i++)
		ktap_subtest_free(&sr.subtests[i]);
	free(sr.subtests);
	step_result_clear(&sr);
}

static void test_verdict(void **state)
{
	(void)state;
	judge("junit", "<testsuite><testcase name=\"a\"/></testsuite>", 0, ST_PASS, NULL);
	judge("junit",
	      "<testsuite><testcase name=\"a\"/><testcase name=\"b\"><failure/></testcase>"
	      "</testsuite>",
	      1, ST_FAIL, "1 of 2 tests failed: b");
	judge("junit", "<testsuite name=\"s\"/>", 0, ST_FAIL,
	      "no test ran: the JUnit XML holds no <testcase>");
	judge("junit",
	      "<testsuite><testcase name=\"a\"><skipped message=\"why\"/></testcase></testsuite>",
	      0, ST_SKIP, "all 1 tests skipped: a (why)");
	/* the results are clean, the command is not: not a pass */
	judge("junit", "<testsuite><testcase name=\"a\"/></testsuite>", 2, ST_FAIL,
	      "the command exited 2, yet its results show no failure");
	judge("junit", "<testsuite>", 0, ST_ERROR, "JUnit results unreadable, line 1: not XML");
	judge("blktests", "", 0, ST_FAIL, "no test ran: the results folder holds no test's");
	judge("blktests", NODEV "status\tnot run\n", 0, ST_SKIP, "all 1 tests skipped: block/001");
	judge("blktests", NODEV "status\tfail\nreason\tdmesg\n", 1, ST_FAIL,
	      "1 of 1 tests failed: block/001");
	judge("blktests", "garbage\n", 0, ST_ERROR, "blktests results unreadable, line 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_junit_cases),	  cmocka_unit_test(test_junit_suites),
		cmocka_unit_test(test_junit_refusals),	  cmocka_unit_test(test_blktests),
		cmocka_unit_test(test_blktests_refusals), cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
