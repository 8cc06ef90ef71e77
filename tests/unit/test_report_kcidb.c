/* --kcidb: the fields the KCIDB I/O schema requires on every object, ids of
 * the form "ktestbed:...", test paths of safe components, the schema's
 * status words (a timeout a FAIL), a subtest below its step, and an issue
 * per finding signature with an incident per finding on its test. The schema
 * file itself stays out of the repository: these rules are its own, copied
 * by hand from kcidb-io v5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "report_kcidb.h"
#include "util.h"

static struct step_result *add_step(struct scenario_result *s, const char *name, enum status st,
				    int64_t start_ms)
{
	struct step_result *step = scenario_result_add_step(s);

	step->name = xstrdup(name);
	step->status = st;
	step->start_ms = start_ms;
	step->duration_ms = 1500;
	step->exit_code = -1;
	return step;
}

static void add_subtest(struct step_result *st, const char *name, enum status s, int64_t ms,
			const char *diag)
{
	struct subtest *t = step_result_add_subtest(st);

	t->name = xstrdup(name);
	t->status = s;
	t->duration_ms = ms;
	t->diag = diag ? xstrdup(diag) : NULL;
}

static void scenario(struct run_result *r, const char *name, enum status st)
{
	struct scenario_result *s = &r->scenarios[r->count++];

	s->name = xstrdup(name);
	s->file = xasprintf("scenarios/%s.yaml", name);
	s->status = st;
	s->duration_ms = 9000;
	s->kernel = xstrdup("6.1.0-57-amd64");
	s->accel = xstrdup("tcg");
	s->metrics = json_object();
}

static struct finding *add_finding(struct scenario_result *s, const char *title, const char *sig,
				   enum finding_verdict v, int step)
{
	struct finding *f = scenario_result_add_finding(s);

	f->kind = xstrdup("warning");
	f->title = xstrdup(title);
	f->signature = xstrdup(sig);
	f->verdict = v;
	f->step = step;
	f->console_line = 77;
	f->text = xasprintf("%s\n bad \xff byte", title);
	return f;
}

/* hang#2's step printed a WARNING (failing it); smoke tolerated the same
 * one and had another before its first step */
static void findings_add(struct run_result *r)
{
	struct finding *f =
	    add_finding(&r->scenarios[1], "WARNING in hang_fn", "aa11", FINDING_FAILS, 0);

	f->frames = xcalloc(2, sizeof(*f->frames));
	f->frames[0].func = xstrdup("hang_fn");
	f->frames[0].off = xstrdup("0x1/0x2");
	f->frames[0].module = xstrdup("hangmod");
	f->frames[1].func = xstrdup("process_one_work");
	f->frames_count = 2;
	f = add_finding(&r->scenarios[0], "WARNING in hang_fn", "aa11", FINDING_TOLERATED, 1);
	f->reason = xstrdup("known");
	add_finding(&r->scenarios[0], "BUG: early", "bb22", FINDING_FAILS, -1);
}

/* one of each status, a ktap step with three subtests, hostile text */
static void run_make(struct run_result *r)
{
	struct step_result *st;
	char big[KCIDB_EXCERPT_MAX + 100];

	memset(r, 0, sizeof(*r));
	r->run_id = xstrdup("20261204-100000-42");
	r->started_unix_ms = 1796378400000; /* 2026-12-04T10:00:00Z */
	r->scenarios = xcalloc(5, sizeof(*r->scenarios));
	scenario(r, "smoke", ST_PASS);
	r->scenarios[0].started_unix_ms = r->started_unix_ms + 1250;
	add_step(&r->scenarios[0], "machine", ST_PASS, 4000);
	st = add_step(&r->scenarios[0], "ktap: kunit timers", ST_FAIL, 5000);
	st->message = xstrdup("1 of 3 failed");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[sizeof(big) - 2] = 'Z';
	st->out = xstrdup(big);
	add_subtest(st, "timers.nanosleep", ST_PASS, 12, NULL);
	add_subtest(st, "timers.posix timers/x", ST_FAIL, -1, "expected 1\xff got 2");
	add_subtest(st, "timers.skipme", ST_SKIP, -1, NULL);
	scenario(r, "hang#2", ST_TIMEOUT);
	r->scenarios[1].attempt = 2;
	r->scenarios[1].console_tail = xstrdup("rcu stall\n");
	add_step(&r->scenarios[1], "run: sleep 99", ST_TIMEOUT, 100);
	findings_add(r);
	scenario(r, "broke", ST_ERROR);
	scenario(r, "needs-cfg", ST_SKIP);
	scenario(r, "odd name: é!", ST_PASS);
}

static void match(const char *re, const char *s)
{
	regex_t rx;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	if (regexec(&rx, s, 0, NULL, 0))
		fail_msg("'%s' does not match %s", s, re);
	regfree(&rx);
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		fail_msg("no string %s", key);
	return s;
}

/* the schema's id, origin and required-field rules for one object */
static void object_check(json_t *o, const char *const *required)
{
	for (; *required; required++)
		assert_non_null(json_object_get(o, *required));
	match("^ktestbed:[^[:cntrl:]]+$", str(o, "id"));
	assert_string_equal(str(o, "origin"), "ktestbed");
}

/* the schema allows no nulls anywhere */
static void no_nulls(json_t *o)
{
	const char *key;
	json_t *v;

	json_object_foreach (o, key, v) {
		assert_false(json_is_null(v));
		if (json_is_object(v))
			no_nulls(v);
	}
}

static json_t *test_at(json_t *tests, const char *path)
{
	size_t i;
	json_t *t;

	json_array_foreach (tests, i, t)
		if (!strcmp(str(t, "path"), path))
			return t;
	fail_msg("no test at %s", path);
	return NULL;
}

static json_t *with_id(json_t *a, const char *id)
{
	size_t i;
	json_t *o;

	json_array_foreach (a, i, o)
		if (!strcmp(str(o, "id"), id))
			return o;
	fail_msg("no object %s", id);
	return NULL;
}

/* One issue per signature, one incident per finding on the test it was
 * printed in, every one present, the verdict in misc. */
static void issues_check(json_t *doc)
{
	static const char *const i_req[] = { "id", "version", "origin", NULL };
	static const char *const n_req[] = { "id", "origin", "issue_id", "issue_version", NULL };
	json_t *issues = json_object_get(doc, "issues"),
	       *incidents = json_object_get(doc, "incidents");
	json_t *tests = json_object_get(doc, "tests"), *o, *c;
	size_t i;

	assert_int_equal(json_array_size(issues), 2);
	json_array_foreach (issues, i, o) {
		object_check(o, i_req);
		no_nulls(o);
		assert_int_equal(json_integer_value(json_object_get(o, "version")), 1);
		c = json_object_get(o, "culprit");
		assert_true(json_is_true(json_object_get(c, "code")));
		assert_true(json_is_false(json_object_get(c, "harness")));
	}
	o = with_id(issues, "ktestbed:aa11");
	assert_string_equal(str(o, "comment"), "WARNING in hang_fn");
	assert_string_equal(str(json_object_get(o, "misc"), "kind"), "warning");
	assert_int_equal(json_array_size(incidents), 3);
	json_array_foreach (incidents, i, o) {
		object_check(o, n_req);
		no_nulls(o);
		assert_true(json_is_true(json_object_get(o, "present")));
		assert_string_equal(str(o, "build_id"), "ktestbed:20261204-100000-42");
		/* it points at an issue and a test of this document */
		with_id(issues, str(o, "issue_id"));
		with_id(tests, str(o, "test_id"));
		assert_int_equal(json_integer_value(json_object_get(o, "issue_version")), 1);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(str(json_array_get(incidents, j), "id"),
						str(o, "id"));
	}
	o = with_id(incidents, "ktestbed:20261204-100000-42:hang#2:finding:1");
	assert_string_equal(str(o, "issue_id"), "ktestbed:aa11");
	assert_string_equal(str(o, "test_id"), "ktestbed:20261204-100000-42:hang#2:1");
	c = json_object_get(o, "misc");
	assert_string_equal(str(c, "verdict"), "fail");
	assert_string_equal(json_string_value(json_array_get(json_object_get(c, "frames"), 0)),
			    "hang_fn+0x1/0x2 [hangmod]");
	assert_string_equal(str(c, "text"), "WARNING in hang_fn\n bad \xef\xbf\xbd byte");
	/* tolerated: still present, the verdict and reason say it did not fail */
	o = with_id(incidents, "ktestbed:20261204-100000-42:smoke:finding:1");
	assert_string_equal(str(o, "test_id"), "ktestbed:20261204-100000-42:smoke:2");
	assert_string_equal(str(json_object_get(o, "misc"), "verdict"), "tolerated");
	assert_string_equal(str(json_object_get(o, "misc"), "reason"), "known");
	/* before the first step: the scenario's test */
	o = with_id(incidents, "ktestbed:20261204-100000-42:smoke:finding:2");
	assert_string_equal(str(o, "test_id"), "ktestbed:20261204-100000-42:smoke");
	assert_string_equal(str(o, "issue_id"), "ktestbed:bb22");
}

static void test_document(void **state)
{
	static const char *const co_req[] = { "id", "origin", NULL };
	static const char *const b_req[] = { "id", "origin", "checkout_id", NULL };
	static const char *const t_req[] = { "id", "origin", "build_id", "path", "status", NULL };
	struct run_result r;
	json_t *doc, *tests, *t, *v;
	size_t i, j;

	(void)state;
	run_make(&r);
	doc = kcidb_document(&r);
	v = json_object_get(doc, "version");
	assert_int_equal(json_integer_value(json_object_get(v, "major")), KCIDB_MAJOR);
	assert_true(KCIDB_MAJOR >= 4);
	assert_int_equal(json_array_size(json_object_get(doc, "checkouts")), 1);
	object_check(json_array_get(json_object_get(doc, "checkouts"), 0), co_req);
	t = json_array_get(json_object_get(doc, "builds"), 0);
	object_check(t, b_req);
	assert_string_equal(str(t, "checkout_id"),
			    str(json_array_get(json_object_get(doc, "checkouts"), 0), "id"));
	tests = json_object_get(doc, "tests");
	/* 5 scenarios, 3 steps, 3 subtests */
	assert_int_equal(json_array_size(tests), 11);
	json_array_foreach (tests, i, t) {
		object_check(t, t_req);
		assert_string_equal(str(t, "build_id"), "ktestbed:20261204-100000-42");
		match("^ktestbed(\\.[a-zA-Z0-9_-]+)*$", str(t, "path"));
		match("^(FAIL|ERROR|MISS|PASS|DONE|SKIP)$", str(t, "status"));
		match("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
		      str(t, "start_time"));
		if (json_object_get(t, "log_excerpt"))
			assert_true(strlen(str(t, "log_excerpt")) <= KCIDB_EXCERPT_MAX);
		no_nulls(t);
		for (j = 0; j < i; j++)
			assert_string_not_equal(str(json_array_get(tests, j), "id"), str(t, "id"));
	}
	t = test_at(tests, "ktestbed.smoke");
	assert_string_equal(str(t, "start_time"), "2026-12-04T10:00:01.250Z");
	t = test_at(tests, "ktestbed.smoke.ktap_kunit_timers");
	assert_string_equal(str(t, "status"), "FAIL");
	assert_string_equal(str(t, "start_time"), "2026-12-04T10:00:06.250Z");
	assert_true(json_real_value(json_object_get(t, "duration")) == 1.5);
	/* the tail of a long output, the end kept */
	assert_int_equal(strlen(str(t, "log_excerpt")), KCIDB_EXCERPT_MAX);
	assert_int_equal(str(t, "log_excerpt")[KCIDB_EXCERPT_MAX - 1], 'Z');
	t = test_at(tests, "ktestbed.smoke.ktap_kunit_timers.timers.nanosleep");
	assert_string_equal(str(t, "status"), "PASS");
	assert_true(json_real_value(json_object_get(t, "duration")) == 0.012);
	t = test_at(tests, "ktestbed.smoke.ktap_kunit_timers.timers.posix_timers_x");
	assert_string_equal(str(t, "status"), "FAIL");
	assert_null(json_object_get(t, "duration"));
	assert_string_equal(str(t, "log_excerpt"), "expected 1\xef\xbf\xbd got 2");
	assert_string_equal(
	    str(test_at(tests, "ktestbed.smoke.ktap_kunit_timers.timers.skipme"), "status"),
	    "SKIP");
	/* a timeout is a verdict on the kernel, ktb's own status kept in misc */
	t = test_at(tests, "ktestbed.hang");
	assert_string_equal(str(t, "status"), "FAIL");
	assert_string_equal(str(json_object_get(t, "misc"), "ktb_status"), "timeout");
	assert_string_equal(str(t, "id"), "ktestbed:20261204-100000-42:hang#2");
	assert_string_equal(str(test_at(tests, "ktestbed.hang.run_sleep_99"), "status"), "FAIL");
	assert_string_equal(str(test_at(tests, "ktestbed.broke"), "status"), "ERROR");
	assert_string_equal(str(test_at(tests, "ktestbed.needs-cfg"), "status"), "SKIP");
	t = test_at(tests, "ktestbed.odd_name");
	assert_string_equal(
	    str(json_object_get(json_object_get(t, "environment"), "misc"), "kernel_release"),
	    "6.1.0-57-amd64");
	issues_check(doc);
	json_decref(doc);
	run_result_free(&r);
}

static void test_statuses(void **state)
{
	(void)state;
	assert_string_equal(kcidb_status(ST_PASS), "PASS");
	assert_string_equal(kcidb_status(ST_FAIL), "FAIL");
	assert_string_equal(kcidb_status(ST_TIMEOUT), "FAIL");
	assert_string_equal(kcidb_status(ST_ERROR), "ERROR");
	assert_string_equal(kcidb_status(ST_SKIP), "SKIP");
}

static void test_path_component(void **state)
{
	static const char *const cases[][2] = {
		{ "run: ktb-probe disk data", "run_ktb-probe_disk_data" },
		{ "suspend: s3", "suspend_s3" },
		{ "", "_" },
		{ ":::", "_" },
		{ "a.b", "a_b" },
		{ "__x__", "__x__" },
		{ "é", "_" },
	};
	char out[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char big[64];

		kcidb_path_component(cases[i][0], big, sizeof(big));
		assert_string_equal(big, cases[i][1]);
	}
	kcidb_path_component("abcdefghijklmnopqrstuvwxyz", out, sizeof(out));
	assert_string_equal(out, "abcdefghijklmno");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_path_component),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
