/* The result model: status order, exit codes, and the result.json and run
 * documents whose shape other tools depend on. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "util.h"

static void scenario_fill(struct scenario_result *s, const char *name, enum status st)
{
	struct step_result *step;

	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->file = xasprintf("scenarios/%s.yaml", name);
	s->status = st;
	s->metrics = json_pack("{s:i}", "boot_ms", 3100);
	s->duration_ms = 4200;
	step = scenario_result_add_step(s);
	step->name = xstrdup("run: true");
	step->status = st;
	step->line = 7;
	if (st != ST_PASS)
		s->message = xstrdup("it broke");
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(status_name(ST_PASS), "pass");
	assert_string_equal(status_name(ST_FAIL), "fail");
	assert_string_equal(status_name(ST_ERROR), "error");
	assert_string_equal(status_name(ST_TIMEOUT), "timeout");
	assert_string_equal(status_name(ST_SKIP), "skip");
	assert_string_equal(status_name((enum status)99), "unknown");
	assert_int_equal(ST_COUNT, 5);
}

/* The terminal's words and the summaries' past tense, one per status. */
static void test_status_words(void **state)
{
	static const char *const words[] = { "PASS", "FAIL", "ERROR", "TIMEOUT", "SKIP" };
	static const char *const past[] = { "passed", "failed", "errored", "timed out", "skipped" };
	static const enum status order[] = { ST_PASS, ST_FAIL, ST_ERROR, ST_TIMEOUT, ST_SKIP };

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(status_word(order[i]), words[i]);
		assert_string_equal(status_past(order[i]), past[i]);
	}
	assert_string_equal(status_word((enum status)ST_COUNT), "?");
	assert_string_equal(status_past((enum status) - 1), "?");
}

static void test_status_worse(void **state)
{
	/* ascending badness */
	static const enum status order[] = { ST_PASS, ST_SKIP, ST_FAIL, ST_TIMEOUT, ST_ERROR };

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		for (size_t j = 0; j < 5; j++) {
			enum status want = order[i > j ? i : j];

			assert_int_equal(status_worse(order[i], order[j]), want);
		}
	}
}

static void test_add_step(void **state)
{
	struct scenario_result s = { 0 };
	struct step_result *a, *b;

	(void)state;
	a = scenario_result_add_step(&s);
	assert_int_equal(a->exit_code, -1);
	assert_null(a->name);
	a->name = xstrdup("first");
	b = scenario_result_add_step(&s);
	b->name = xstrdup("second");
	b->out = xstrdup("output");
	b->data = json_pack("{s:i}", "x", 1);
	assert_int_equal(s.steps_count, 2);
	assert_string_equal(s.steps[0].name, "first");
	assert_null(scenario_result_failed_step(&s));
	s.steps[1].status = ST_TIMEOUT;
	assert_ptr_equal(scenario_result_failed_step(&s), &s.steps[1]);
	scenario_result_free(&s);
	assert_int_equal(s.steps_count, 0);
	scenario_result_free(&s); /* twice is harmless */
	scenario_result_free(NULL);
}

static int exit_code_of(const enum status *st, size_t n)
{
	struct run_result r = { 0 };
	int code;

	r.scenarios = xcalloc(n, sizeof(*r.scenarios));
	r.count = n;
	for (size_t i = 0; i < n; i++)
		scenario_fill(&r.scenarios[i], "s", st[i]);
	code = run_result_exit_code(&r);
	run_result_free(&r);
	return code;
}

static void test_exit_code(void **state)
{
	(void)state;
	assert_int_equal(exit_code_of(NULL, 0), 0);
	/* a skip tested nothing (every KTAP test skipped): 125, as for an error */
	assert_int_equal(exit_code_of((enum status[]){ ST_PASS, ST_SKIP }, 2), 125);
	assert_int_equal(exit_code_of((enum status[]){ ST_SKIP, ST_FAIL }, 2), 1);
	assert_int_equal(exit_code_of((enum status[]){ ST_PASS, ST_FAIL }, 2), 1);
	assert_int_equal(exit_code_of((enum status[]){ ST_TIMEOUT }, 1), 1);
	assert_int_equal(exit_code_of((enum status[]){ ST_ERROR, ST_PASS }, 2), 125);
	/* a real failure outranks "could not test" for git bisect run */
	assert_int_equal(exit_code_of((enum status[]){ ST_ERROR, ST_FAIL }, 2), 1);
}

static void round_trip(json_t *j);

/* A scenario skipped because the kernel lacks an option it needs was not
 * tested: 125, so that git bisect run skips that kernel; a failure
 * elsewhere still says 1. The options survive the worker's JSON. */
static void test_missing_config(void **state)
{
	struct run_result r = { 0 };
	struct scenario_result back;
	json_t *j;

	(void)state;
	r.count = 2;
	r.scenarios = xcalloc(r.count, sizeof(*r.scenarios));
	scenario_fill(&r.scenarios[0], "a", ST_PASS);
	scenario_fill(&r.scenarios[1], "b", ST_SKIP);
	r.scenarios[1].missing_config = xcalloc(3, sizeof(char *));
	r.scenarios[1].missing_config[0] = xstrdup("CONFIG_BLK_DEV_NVME");
	r.scenarios[1].missing_config[1] = xstrdup("CONFIG_ZSWAP");
	r.scenarios[1].missing_config_count = 2;
	assert_int_equal(run_result_exit_code(&r), 125);
	j = scenario_result_to_json(&r.scenarios[1]);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(j, "missing_config"), 1)),
	    "CONFIG_ZSWAP");
	assert_int_equal(scenario_result_from_json(j, &back), 0);
	assert_int_equal(back.missing_config_count, 2);
	assert_string_equal(back.missing_config[0], "CONFIG_BLK_DEV_NVME");
	round_trip(j);
	json_decref(j);
	scenario_result_free(&back);
	scenario_result_free(&r.scenarios[0]);
	scenario_fill(&r.scenarios[0], "a", ST_FAIL);
	assert_int_equal(run_result_exit_code(&r), 1);
	run_result_free(&r);
}

/* Interrupted: 130 whatever the scenarios say; the document says so. */
static void test_interrupted_run(void **state)
{
	struct run_result r = { 0 };
	json_t *j;

	(void)state;
	r.count = 2;
	r.scenarios = xcalloc(r.count, sizeof(*r.scenarios));
	scenario_fill(&r.scenarios[0], "a", ST_FAIL);
	scenario_fill(&r.scenarios[1], "b", ST_PASS);
	assert_int_equal(run_result_exit_code(&r), 1);
	j = run_result_to_json(&r);
	assert_true(json_is_false(json_object_get(j, "interrupted")));
	json_decref(j);
	r.interrupted = 15;
	assert_int_equal(run_result_exit_code(&r), 130);
	j = run_result_to_json(&r);
	assert_true(json_is_true(json_object_get(j, "interrupted")));
	json_decref(j);
	run_result_free(&r);
}

/* The scenario and the step the signal cut short are errors saying so; a
 * step that had passed keeps its pass. */
static void test_interrupt_scenario(void **state)
{
	struct scenario_result s;
	struct step_result *st;

	(void)state;
	scenario_fill(&s, "s3", ST_FAIL);
	free(s.steps[0].message);
	s.steps[0].message = xstrdup("interrupted by a signal");
	scenario_result_interrupt(&s, 2);
	assert_int_equal(s.status, ST_ERROR);
	assert_string_equal(s.message, "interrupted by signal 2");
	assert_int_equal(s.steps[0].status, ST_ERROR);
	assert_string_equal(s.steps[0].message, "interrupted by signal 2");
	scenario_result_free(&s);

	scenario_fill(&s, "boot", ST_PASS);
	st = &s.steps[0];
	scenario_result_interrupt(&s, 15);
	assert_int_equal(s.status, ST_ERROR);
	assert_string_equal(s.message, "interrupted by signal 15");
	assert_int_equal(st->status, ST_PASS);
	assert_null(st->message);
	scenario_result_free(&s);

	/* no step at all: interrupted during boot */
	memset(&s, 0, sizeof(s));
	s.status = ST_ERROR;
	s.message = xstrdup("VM did not boot: interrupted by a signal");
	scenario_result_interrupt(&s, 2);
	assert_string_equal(s.message, "interrupted by signal 2");
	scenario_result_free(&s);
}

/* The keys of obj, in order, joined by commas. */
static char *keys_of(json_t *obj)
{
	char *s = xstrdup(""), *n;
	const char *k;
	json_t *v;

	json_object_foreach (obj, k, v) {
		n = xasprintf("%s%s%s", s, *s ? "," : "", k);
		free(s);
		s = n;
	}
	return s;
}

/* A worker's result.json read back by the parent gives the same document. */
static void round_trip(json_t *j)
{
	struct scenario_result back;
	json_t *again;

	assert_int_equal(scenario_result_from_json(j, &back), 0);
	again = scenario_result_to_json(&back);
	assert_true(json_equal(j, again));
	json_decref(again);
	scenario_result_free(&back);
	assert_int_equal(scenario_result_from_json(json_object_get(j, "tags"), &back), -EINVAL);
}

static void test_pass_rates(void **state)
{
	struct scenario_result s[4];
	struct run_result r = { .scenarios = s, .count = 4 };
	static const enum status st[4] = { ST_PASS, ST_FAIL, ST_PASS, ST_PASS };
	static const char *const names[4] = { "a#1", "a#2", "b#1", "b#2" };
	json_t *rates;

	(void)state;
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 4; i++) {
		s[i].name = (char *)names[i];
		s[i].status = st[i];
		s[i].attempt = (unsigned)(i % 2 + 1);
	}
	rates = run_result_pass_rates(&r);
	assert_true(json_is_true(json_object_get(json_object_get(rates, "a"), "flaky")));
	assert_true(json_is_false(json_object_get(json_object_get(rates, "b"), "flaky")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(rates, "b"), "pass")),
			 2);
	json_decref(rates);
	for (int i = 0; i < 4; i++)
		s[i].attempt = 0;
	assert_null(run_result_pass_rates(&r));
}

static void test_scenario_json(void **state)
{
	struct scenario_result s;
	struct step_result *st;
	json_t *j, *step;
	char *keys;

	(void)state;
	scenario_fill(&s, "disk", ST_FAIL);
	s.tags = xcalloc(1, sizeof(char *));
	s.tags[0] = xstrdup("disk");
	s.tags_count = 1;
	s.accel = xstrdup("tcg");
	s.console_tail = xstrdup("bad \xff byte\n");
	st = &s.steps[0];
	st->exit_code = 1;
	st->data = json_pack("{s:i}", "size", 512);
	j = scenario_result_to_json(&s);
	assert_non_null(j);
	keys = keys_of(j);
	assert_string_equal(keys,
			    "name,file,summary,tags,status,message,duration_ms,started,kernel,"
			    "accel,metrics,artifacts,steps,console_tail,attempt,missing_config,"
			    "findings,findings_dropped,dump");
	free(keys);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "fail");
	assert_true(json_is_null(json_object_get(j, "summary")));
	assert_int_equal(json_integer_value(json_object_get(j, "duration_ms")), 4200);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(j, "metrics"), "boot_ms")), 3100);
	/* invalid UTF-8 from the guest becomes U+FFFD instead of losing the text */
	assert_string_equal(json_string_value(json_object_get(j, "console_tail")),
			    "bad \xef\xbf\xbd byte\n");
	step = json_array_get(json_object_get(j, "steps"), 0);
	keys = keys_of(step);
	assert_string_equal(keys, "name,status,message,start_ms,duration_ms,exit_code,stdout,"
				  "stderr,data,line,subtests");
	free(keys);
	assert_int_equal(json_array_size(json_object_get(step, "subtests")), 0);
	assert_int_equal(json_integer_value(json_object_get(step, "exit_code")), 1);
	assert_int_equal(json_integer_value(json_object_get(step, "line")), 7);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(step, "data"), "size")),
			 512);
	round_trip(j);
	json_decref(j);
	/* not applicable exit code and missing metrics */
	st->exit_code = -1;
	json_decref(s.metrics);
	s.metrics = NULL;
	j = scenario_result_to_json(&s);
	step = json_array_get(json_object_get(j, "steps"), 0);
	assert_true(json_is_null(json_object_get(step, "exit_code")));
	assert_int_equal(json_object_size(json_object_get(j, "metrics")), 0);
	json_decref(j);
	scenario_result_free(&s);
}

/* A ktap: step's subtests: every field in JSON, null where absent, and
 * back unchanged from a worker's result.json. */
static void test_subtests_json(void **state)
{
	struct scenario_result s;
	struct subtest *t;
	json_t *j, *a, *one;
	char *keys;

	(void)state;
	scenario_fill(&s, "kselftest", ST_FAIL);
	t = step_result_add_subtest(&s.steps[0]);
	assert_int_equal(t->duration_ms, -1);
	t->name = xstrdup("timers.nanosleep");
	t->status = ST_PASS;
	t->duration_ms = 1500;
	t = step_result_add_subtest(&s.steps[0]);
	t->name = xstrdup("timers.rtc");
	t->status = ST_SKIP;
	t->reason = xstrdup("no /dev/rtc0");
	t->diag = xstrdup("# open: No such file\n");
	j = scenario_result_to_json(&s);
	a = json_object_get(json_array_get(json_object_get(j, "steps"), 0), "subtests");
	assert_int_equal(json_array_size(a), 2);
	one = json_array_get(a, 0);
	keys = keys_of(one);
	assert_string_equal(keys, "name,status,reason,duration_ms,diag");
	free(keys);
	assert_string_equal(json_string_value(json_object_get(one, "name")), "timers.nanosleep");
	assert_int_equal(json_integer_value(json_object_get(one, "duration_ms")), 1500);
	assert_true(json_is_null(json_object_get(one, "reason")));
	one = json_array_get(a, 1);
	assert_string_equal(json_string_value(json_object_get(one, "status")), "skip");
	assert_string_equal(json_string_value(json_object_get(one, "reason")), "no /dev/rtc0");
	assert_true(json_is_null(json_object_get(one, "duration_ms")));
	round_trip(j);
	json_decref(j);
	scenario_result_free(&s);
}

static void test_run_json(void **state)
{
	static const enum status st[] = {
		ST_PASS, ST_FAIL, ST_ERROR, ST_TIMEOUT, ST_SKIP, ST_PASS
	};
	struct run_result r = { 0 };
	json_t *j, *sum;
	char *keys;

	(void)state;
	r.run_id = xstrdup("20250131-120000-abcd");
	r.started_unix_ms = 1738324800123LL; /* 2025-01-31T12:00:00.123Z */
	r.duration_ms = 41300;
	r.count = 6;
	r.scenarios = xcalloc(r.count, sizeof(*r.scenarios));
	for (size_t i = 0; i < r.count; i++)
		scenario_fill(&r.scenarios[i], "s", st[i]);
	j = run_result_to_json(&r);
	keys = keys_of(j);
	assert_string_equal(
	    keys, "run_id,started,duration_ms,summary,interrupted,scenarios,selection,shard,"
		  "schema_version");
	free(keys);
	assert_string_equal(json_string_value(json_object_get(j, "started")),
			    "2025-01-31T12:00:00Z");
	sum = json_object_get(j, "summary");
	keys = keys_of(sum);
	assert_string_equal(keys, "total,pass,fail,error,timeout,skip");
	free(keys);
	assert_int_equal(json_integer_value(json_object_get(sum, "total")), 6);
	assert_int_equal(json_integer_value(json_object_get(sum, "pass")), 2);
	assert_int_equal(json_integer_value(json_object_get(sum, "fail")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "error")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "timeout")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "skip")), 1);
	assert_int_equal(json_array_size(json_object_get(j, "scenarios")), 6);
	json_decref(j);
	run_result_free(&r);
}

/* ktb merge reads the run document back: scenarios, start (to the second),
 * interruption; a scenario's start; other documents and versions refused. */
static void test_run_from_json(void **state)
{
	struct run_result r = { 0 }, back;
	char why[300];
	int64_t t;
	json_t *j;

	(void)state;
	r.run_id = xstrdup("20250131-120000-abcd");
	r.started_unix_ms = 1738324800123LL;
	r.duration_ms = 41300;
	r.interrupted = 15;
	r.count = 2;
	r.scenarios = xcalloc(r.count, sizeof(*r.scenarios));
	scenario_fill(&r.scenarios[0], "a", ST_PASS);
	scenario_fill(&r.scenarios[1], "b", ST_TIMEOUT);
	r.scenarios[1].started_unix_ms = 1738324801000LL;
	j = run_result_to_json(&r);
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.count, 2);
	assert_string_equal(back.run_id, "20250131-120000-abcd");
	assert_int_equal(back.started_unix_ms, 1738324800000LL);
	assert_int_equal(back.duration_ms, 41300);
	assert_true(back.interrupted != 0);
	assert_int_equal(back.scenarios[1].status, ST_TIMEOUT);
	assert_int_equal(back.scenarios[0].started_unix_ms, 0);
	assert_int_equal(back.scenarios[1].started_unix_ms, 1738324801000LL);
	run_result_free(&back);
	json_object_set_new(j, "schema_version", json_integer(RESULT_SCHEMA_VERSION + 1));
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "version 3"));
	/* before the field existed: version 1, which said nothing of shards */
	json_object_del(j, "schema_version");
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EPROTO);
	assert_non_null(
	    strstr(why, "result schema version 1 (none given); this ktb reads version 2"));
	assert_int_equal(back.count, 0);
	json_object_set_new(j, "schema_version", json_integer(1));
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EPROTO);
	json_decref(j);
	j = scenario_result_to_json(&r.scenarios[0]);
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "result.json"));
	json_decref(j);
	j = json_pack("{s:[s], s:i}", "scenarios", "x", "schema_version", RESULT_SCHEMA_VERSION);
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EINVAL);
	assert_int_equal(back.count, 0);
	json_decref(j);
	run_result_free(&r);
	assert_int_equal(result_parse_utc("2025-01-31T12:00:00Z", &t), 0);
	assert_int_equal(t, 1738324800000LL);
	assert_int_equal(result_parse_utc("1970-01-01T00:00:00Z", &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(result_parse_utc("2024-02-29T23:59:59Z", &t), 0);
	assert_int_equal(t, 1709251199000LL);
	assert_int_equal(result_parse_utc("2025-01-31T12:00:00", &t), -EINVAL);
	assert_int_equal(result_parse_utc("2025-13-31T12:00:00Z", &t), -EINVAL);
	assert_int_equal(result_parse_utc("2025-01-31T12:00:00Zx", &t), -EINVAL);
}

/* Times no run takes are refused on reading, by name: ktb merge and the
 * reports add starts and durations, which would overflow (found by
 * fuzz_merge). The bounds themselves are read. */
static void test_run_from_json_times(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"duration_ms\": 9223372036854775807}",
		  "its \"duration_ms\" is 9223372036854775807" },
		{ "{\"duration_ms\": -1}",
		  "its \"duration_ms\" is -1, not a time in ms (0 to 253402300799999)" },
		{ "{\"scenarios\": [{\"status\": \"pass\", \"duration_ms\": -5}]}",
		  "scenario 1 of the run: its \"duration_ms\" is -5" },
		{ "{\"scenarios\": [{\"status\": \"pass\", \"steps\": [{}, {\"start_ms\": "
		  "253402300800000}]}]}",
		  "scenario 1 of the run: step 2's \"start_ms\" is 253402300800000" },
		{ "{\"scenarios\": [{\"status\": \"pass\", \"steps\": [{\"subtests\": "
		  "[{\"duration_ms\": -2}]}]}]}",
		  "step 1's subtest 1's \"duration_ms\" is -2" },
	};
	struct run_result back;
	char why[300];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i][0], 0, NULL);

		assert_non_null(j);
		if (!json_object_get(j, "scenarios"))
			json_object_set_new(j, "scenarios", json_array());
		json_object_set_new(j, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
		assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i][1]))
			fail_msg("\"%s\" not in \"%s\"", bad[i][1], why);
		assert_int_equal(back.count, 0);
		json_decref(j);
	}
	/* the bounds: 0, and the last millisecond of 9999; a subtest's -1 is "not given" */
	{
		json_t *j =
		    json_loads("{\"duration_ms\": 253402300799999, \"scenarios\": [{\"status\": "
			       "\"pass\", \"duration_ms\": 0, \"steps\": [{\"start_ms\": 0, "
			       "\"subtests\": [{\"duration_ms\": -1}]}]}]}",
			       0, NULL);

		json_object_set_new(j, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
		assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), 0);
		assert_int_equal(back.duration_ms, 253402300799999LL);
		assert_int_equal(back.scenarios[0].steps[0].subtests[0].duration_ms, -1);
		run_result_free(&back);
		json_decref(j);
	}
}

/* A shard's document says what it was cut from; the selection and shard
 * come back as written; a malformed one is refused, not half read. */
static void test_run_selection_json(void **state)
{
	static const char *const scn[] = { "alpha", "beta" }, *const xt[] = { "own-kernel" };
	struct run_result r = { 0 }, back;
	char why[300];
	json_t *j;

	(void)state;
	r.run_id = xstrdup("ci-7");
	r.sel.hash = xstrdup("0123abcd");
	r.sel.scenarios = run_selection_words(scn, 2);
	r.sel.scenarios_count = 2;
	r.sel.tags = run_selection_words(NULL, 0);
	r.sel.exclude_tags = run_selection_words(xt, 1);
	r.sel.exclude_tags_count = 1;
	r.sel.names = run_selection_words(NULL, 0);
	r.sel.repeat = 3;
	r.sel.kernel = xstrdup("6.1.0-47");
	r.sel.shard_k = 2;
	r.sel.shard_n = 4;
	j = run_result_to_json(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "schema_version")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "shard"), "k")), 2);
	assert_true(json_is_null(json_object_get(json_object_get(j, "selection"), "recipe")));
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), 0);
	assert_string_equal(back.run_id, "ci-7");
	assert_string_equal(back.sel.hash, "0123abcd");
	assert_int_equal(back.sel.scenarios_count, 2);
	assert_string_equal(back.sel.scenarios[1], "beta");
	assert_int_equal(back.sel.tags_count, 0);
	assert_int_equal(back.sel.exclude_tags_count, 1);
	assert_string_equal(back.sel.exclude_tags[0], "own-kernel");
	assert_int_equal(back.sel.repeat, 3);
	assert_string_equal(back.sel.kernel, "6.1.0-47");
	assert_null(back.sel.recipe);
	assert_int_equal(back.sel.shard_k, 2);
	assert_int_equal(back.sel.shard_n, 4);
	run_result_free(&back);
	/* a shard K outside 1..N, a selection of the wrong shape: refused */
	json_object_set_new(j, "shard", json_pack("{s:i, s:i}", "k", 5, "n", 4));
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"shard\""));
	assert_int_equal(back.count, 0);
	assert_null(back.sel.hash);
	json_object_set_new(j, "shard", json_null());
	json_object_set_new(json_object_get(j, "selection"), "scenarios", json_pack("[i]", 1));
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"selection\""));
	/* a whole run: no shard, and selection null when not known */
	run_selection_free(&r.sel);
	json_decref(j);
	j = run_result_to_json(&r);
	assert_true(json_is_null(json_object_get(j, "selection")));
	assert_true(json_is_null(json_object_get(j, "shard")));
	assert_int_equal(run_result_from_json(j, &back, why, sizeof(why)), 0);
	assert_int_equal(back.sel.shard_n, 0);
	assert_null(back.sel.hash);
	run_result_free(&back);
	json_decref(j);
	run_result_free(&r);
}

static void test_utf8(void **state)
{
	size_t len;
	char *s;

	(void)state;
	assert_int_equal(utf8_decode((const unsigned char *)"A", 1, &len), 'A');
	assert_int_equal(utf8_decode((const unsigned char *)"\xc3\xa9", 2, &len), 0xe9);
	assert_int_equal(len, 2);
	assert_int_equal(utf8_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4, &len), 0x1f600);
	/* truncated, overlong, surrogate, stray continuation */
	assert_int_equal(utf8_decode((const unsigned char *)"\xc3", 1, &len), -1);
	assert_int_equal(len, 1);
	assert_int_equal(utf8_decode((const unsigned char *)"\xc0\x80", 2, &len), -1);
	assert_int_equal(utf8_decode((const unsigned char *)"\xe0\x80\x80", 3, &len), -1);
	assert_int_equal(utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &len), -1);
	assert_int_equal(utf8_decode((const unsigned char *)"\x80", 1, &len), -1);
	s = utf8_sanitize("ok \xc3\xa9 \xfe\xc3");
	assert_string_equal(s, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}

static void test_ansi_escape(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} cases[] = {
		{ "\033[0m rest", 4 },	    /* CSI with a final byte */
		{ "\033[1;31", 6 },	    /* CSI cut short: all of it */
		{ "\033]0;title\a x", 10 }, /* OSC ended by BEL */
		{ "\033]0;t\033\\", 5 },    /* OSC ended by ESC: stops there */
		{ "\033c", 2 },		    /* ESC and one character */
		{ "\033", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(ansi_escape_len(cases[i].s, strlen(cases[i].s)), cases[i].len);
}

/* A finding goes into result.json with every field and comes back the
 * same (ktb merge reads worker and shard documents this way); a step
 * index outside the document's steps reads as none. */
static void test_findings_round_trip(void **state)
{
	struct scenario_result s = { 0 }, back = { 0 };
	struct finding *f;
	json_t *j, *fj;

	(void)state;
	s.name = xstrdup("f");
	s.metrics = json_object();
	scenario_result_add_step(&s)->name = xstrdup("machine");
	scenario_result_add_step(&s)->name = xstrdup("run: load");
	f = scenario_result_add_finding(&s);
	f->kind = xstrdup("warning");
	f->title = xstrdup("WARNING in nvme_setup_io_queues");
	f->signature = xstrdup("ab12");
	f->text = xstrdup("WARNING: CPU: 0 PID: 1 at x.c:1 nvme_setup_io_queues+0x1/0x2\n");
	f->step = 1;
	f->console_line = 412;
	f->verdict = FINDING_TOLERATED;
	f->reason = xstrdup("known");
	f->frames = xcalloc(2, sizeof(*f->frames));
	f->frames[0] = (struct finding_frame){ .func = xstrdup("nvme_reset_work"),
					       .off = xstrdup("0x58a/0x1150"),
					       .module = xstrdup("nvme"),
					       .reliable = true };
	f->frames_count = 1;
	f = scenario_result_add_finding(&s);
	f->kind = xstrdup("oom kill");
	f->title = xstrdup("OOM kill: a");
	f->signature = xstrdup("cd34");
	f->from_dmesg = true;
	s.findings_dropped = 3;
	j = scenario_result_to_json(&s);
	fj = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(fj, "verdict")), "tolerated");
	assert_string_equal(json_string_value(json_object_get(fj, "source")), "console");
	assert_int_equal(json_integer_value(json_object_get(fj, "step")), 1);
	fj = json_array_get(json_object_get(j, "findings"), 1);
	assert_true(json_is_null(json_object_get(fj, "step")));
	assert_string_equal(json_string_value(json_object_get(fj, "source")), "dmesg");
	assert_string_equal(json_string_value(json_object_get(fj, "verdict")), "fail");
	assert_int_equal(scenario_result_from_json(j, &back), 0);
	assert_int_equal(back.findings_count, 2);
	assert_int_equal(back.findings_dropped, 3);
	assert_string_equal(back.findings[0].title, "WARNING in nvme_setup_io_queues");
	assert_int_equal(back.findings[0].verdict, FINDING_TOLERATED);
	assert_string_equal(back.findings[0].reason, "known");
	assert_int_equal(back.findings[0].step, 1);
	assert_int_equal(back.findings[0].console_line, 412);
	assert_int_equal(back.findings[0].frames_count, 1);
	assert_string_equal(back.findings[0].frames[0].module, "nvme");
	assert_true(back.findings[0].frames[0].reliable);
	assert_true(back.findings[1].from_dmesg);
	assert_int_equal(back.findings[1].step, -1);
	assert_int_equal(scenario_result_failing_findings(&back), 1);
	/* a step index the document's steps do not reach is none */
	json_object_set_new(json_array_get(json_object_get(j, "findings"), 0), "step",
			    json_integer(7));
	scenario_result_free(&back);
	assert_int_equal(scenario_result_from_json(j, &back), 0);
	assert_int_equal(back.findings[0].step, -1);
	json_decref(j);
	scenario_result_free(&back);
	scenario_result_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_findings_round_trip),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_status_worse),
		cmocka_unit_test(test_status_words),
		cmocka_unit_test(test_add_step),
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_missing_config),
		cmocka_unit_test(test_interrupted_run),
		cmocka_unit_test(test_interrupt_scenario),
		cmocka_unit_test(test_scenario_json),
		cmocka_unit_test(test_pass_rates),
		cmocka_unit_test(test_run_json),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_ansi_escape),
		cmocka_unit_test(test_subtests_json),
		cmocka_unit_test(test_run_from_json),
		cmocka_unit_test(test_run_selection_json),
		cmocka_unit_test(test_run_from_json_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
