/* The step kinds' table (every kind has its loader row and its ops, in
 * order, with the machine parts it needs) and the verdicts of the steps
 * that need no machine part: run (a command's exit, stdout and JSON against
 * expect), wait (a console line seen or not, a pause cut short) and qmp (an
 * error reply or a return value). No guest, no QEMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "step_basic.h"
#include "step.h"
#include "step_table.h"
#include "step_result_clear.h"
#include "util.h"

/* Every key that only one kind takes, refused on another kind's step. */
static void test_kind_keys(void **state)
{
	static const struct {
		const char *key, *kind, *value;
	} keys[] = {
		{ "for", "wait", "x" },
		{ "arguments", "qmp", "{}" },
		{ "wake", "suspend", "x" },
		{ "after", "suspend", "x" },
		{ "pm_test", "suspend", "x" },
		{ "cycles", "suspend", "2" },
		{ "as", "measure", "x" },
		{ "since", "measure", "x" },
		{ "within", "measure", "x" },
		{ "settle", "measure", "x" },
		{ "awake_screen", "suspend", "{same_as: x}" },
	};
	struct scenario_error err;
	struct scenario *s;
	char text[256], want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(text, sizeof(text),
			 "steps:\n  - wait: 1s\n  - run: \"true\"\n    %s: %s\n", keys[i].key,
			 keys[i].value);
		s = NULL;
		assert_int_equal(scenario_load_buffer("k.yaml", text, strlen(text), &s, &err),
				 -EINVAL);
		snprintf(want, sizeof(want), "steps[1].%s", keys[i].key);
		assert_string_equal(err.field, want);
		snprintf(want, sizeof(want), "\"%s\" belongs to a %s step, this is a run step",
			 keys[i].key, keys[i].kind);
		assert_string_equal(err.msg, want);
	}
	/* its own kind takes it */
	snprintf(text, sizeof(text),
		 "machine: {sleep: [s3]}\nsteps:\n  - suspend: s3\n    cycles: 2\n");
	assert_int_equal(scenario_load_buffer("k.yaml", text, strlen(text), &s, &err), 0);
	scenario_free(s);
}

static void test_table(void **state)
{
	static const unsigned needs[STEP_KIND_COUNT] = {
		[STEP_SUSPEND] = NEEDS_SLEEP,
		[STEP_FAIL_PATH] = NEEDS_MULTIPATH_DISK,
		[STEP_RESTORE_PATH] = NEEDS_MULTIPATH_DISK,
		[STEP_BALLOON] = NEEDS_BALLOON,
		[STEP_POWER_LOSS] = NEEDS_HYBRID_DISK,
		[STEP_HYBRID_STATS] = NEEDS_HYBRID_DISK,
	};

	(void)state;
	for (int k = 0; k < STEP_KIND_COUNT; k++) {
		assert_non_null(step_ops[k]);
		assert_int_equal(step_ops[k]->kind, k);
		assert_non_null(step_ops[k]->run);
		assert_string_not_equal(step_kind_name((enum step_kind)k), "?");
		assert_int_equal(step_kind_needs((enum step_kind)k), needs[k]);
	}
	/* distinct functions: no kind runs another's */
	for (int a = 0; a < STEP_KIND_COUNT; a++)
		for (int b = a + 1; b < STEP_KIND_COUNT; b++)
			assert_ptr_not_equal(step_ops[a]->run, step_ops[b]->run);
	assert_string_equal(step_kind_name(STEP_RUN), "run");
	assert_string_equal(step_kind_name(STEP_HYBRID_STATS), "hybrid_stats");
	assert_string_equal(step_kind_name(STEP_KIND_COUNT), "?");
	assert_int_equal(step_kind_needs(STEP_KIND_COUNT), 0);
}

/* run: step_judge on a command's exit code and stdout */
static void judge(struct step_result *sr, int exit_code, const char *out, const struct expect *e)
{
	memset(sr, 0, sizeof(*sr));
	sr->exit_code = exit_code;
	sr->out = out ? xstrdup(out) : NULL;
	step_judge(sr, e);
}

static void test_run_exit(void **state)
{
	struct step_result sr;
	int one = 1;
	struct expect e = { .exit = &one };

	(void)state;
	/* no expect: exit 0 passes, anything else fails */
	judge(&sr, 0, "", NULL);
	assert_int_equal(sr.status, ST_PASS);
	assert_null(sr.message);
	step_result_clear(&sr);
	judge(&sr, 3, "", NULL);
	assert_int_equal(sr.status, ST_FAIL);
	assert_non_null(strstr(sr.message, "exit"));
	step_result_clear(&sr);
	/* expect exit: 1 */
	judge(&sr, 1, "", &e);
	assert_int_equal(sr.status, ST_PASS);
	step_result_clear(&sr);
	judge(&sr, 0, "", &e);
	assert_int_equal(sr.status, ST_FAIL);
	step_result_clear(&sr);
}

static void test_run_stdout_json(void **state)
{
	struct step_result sr;
	struct expect re = { .stdout_re = "^size [0-9]+$" };
	struct expect js = { .json = json_pack("{s:{s:i}}", "blocks", "ge", 8) };

	(void)state;
	judge(&sr, 0, "name x\nsize 42\n", &re);
	assert_int_equal(sr.status, ST_PASS);
	step_result_clear(&sr);
	judge(&sr, 0, "size forty\n", &re);
	assert_int_equal(sr.status, ST_FAIL);
	assert_non_null(strstr(sr.message, "stdout"));
	step_result_clear(&sr);
	/* JSON output is parsed into data and checked */
	judge(&sr, 0, "{\"blocks\": 9}", &js);
	assert_int_equal(sr.status, ST_PASS);
	assert_int_equal(json_integer_value(json_object_get(sr.data, "blocks")), 9);
	step_result_clear(&sr);
	judge(&sr, 0, "{\"blocks\": 7}", &js);
	assert_int_equal(sr.status, ST_FAIL);
	assert_non_null(strstr(sr.message, "blocks"));
	step_result_clear(&sr);
	/* not JSON at all: the JSON check fails */
	judge(&sr, 0, "blocks 9", &js);
	assert_int_equal(sr.status, ST_FAIL);
	step_result_clear(&sr);
	/* a failing exit fails even when the output matches */
	judge(&sr, 2, "{\"blocks\": 9}", &js);
	assert_int_equal(sr.status, ST_FAIL);
	step_result_clear(&sr);
	json_decref(js.json);
}

static void test_wait(void **state)
{
	(void)state;
	/* for: the regex seen before the step's wait ended */
	assert_int_equal(wait_verdict(0, true, 5000, 9000), 0);
	/* not seen by the step's own end: the step fails */
	assert_int_equal(wait_verdict(-ETIMEDOUT, true, 5000, 9000), -ENOMSG);
	assert_int_equal(wait_verdict(-ETIMEDOUT, true, 5000, 5000), -ENOMSG);
	/* the scenario's (or step timeout's) deadline came first: a timeout */
	assert_int_equal(wait_verdict(-ETIMEDOUT, true, 9000, 5000), -ETIMEDOUT);
	/* a panic ends any wait */
	assert_int_equal(wait_verdict(-ECANCELED, true, 5000, 9000), -ECANCELED);
	assert_int_equal(wait_verdict(-ECANCELED, false, 5000, 9000), -ECANCELED);
	/* a plain pause: done, or cut short by the deadline */
	assert_int_equal(wait_verdict(0, false, 5000, 9000), 0);
	assert_int_equal(wait_verdict(0, false, 5000, 5000), 0);
	assert_int_equal(wait_verdict(0, false, 9000, 5000), -ETIMEDOUT);
}

static void test_qmp_split(void **state)
{
	struct step st = { .qmp = "query-status" };
	json_t *args = NULL;
	char *cmd = NULL;

	(void)state;
	assert_int_equal(qmp_split(&st, &cmd, &args), 0);
	assert_string_equal(cmd, "query-status");
	assert_null(args);
	free(cmd);
	st.arguments = json_pack("{s:s}", "device", "d0");
	assert_int_equal(qmp_split(&st, &cmd, &args), 0);
	assert_string_equal(json_string_value(json_object_get(args, "device")), "d0");
	free(cmd);
	json_decref(args);
	json_decref(st.arguments);
	st.arguments = NULL;
	st.qmp = "{\"execute\": \"stop\", \"arguments\": {\"x\": 1}}";
	assert_int_equal(qmp_split(&st, &cmd, &args), 0);
	assert_string_equal(cmd, "stop");
	assert_int_equal(json_integer_value(json_object_get(args, "x")), 1);
	free(cmd);
	json_decref(args);
	st.qmp = "{\"arguments\": {}}";
	assert_int_equal(qmp_split(&st, &cmd, &args), -EINVAL);
	st.qmp = "{not json";
	assert_int_equal(qmp_split(&st, &cmd, &args), -EINVAL);
}

static void test_qmp_reply(void **state)
{
	struct step_result sr = { 0 };
	struct expect running = { .json = json_pack("{s:s}", "status", "running") };

	(void)state;
	/* a return value: exit 0, compact JSON as stdout and data */
	qmp_reply_judge(&sr, 0, json_pack("{s:s}", "status", "running"), NULL, &running);
	assert_int_equal(sr.status, ST_PASS);
	assert_int_equal(sr.exit_code, 0);
	assert_string_equal(sr.out, "{\"status\":\"running\"}");
	assert_null(sr.err);
	step_result_clear(&sr);
	qmp_reply_judge(&sr, 0, json_pack("{s:s}", "status", "paused"), NULL, &running);
	assert_int_equal(sr.status, ST_FAIL);
	assert_non_null(strstr(sr.message, "status"));
	step_result_clear(&sr);
	/* no return value: empty stdout, still a pass */
	qmp_reply_judge(&sr, 0, NULL, NULL, NULL);
	assert_int_equal(sr.status, ST_PASS);
	assert_string_equal(sr.out, "");
	step_result_clear(&sr);
	/* an error reply: exit 1 with QEMU's message as stderr, a failure */
	qmp_reply_judge(&sr, -EREMOTEIO, NULL, xstrdup("Device 'x' not found"), NULL);
	assert_int_equal(sr.status, ST_FAIL);
	assert_int_equal(sr.exit_code, 1);
	assert_string_equal(sr.err, "Device 'x' not found");
	step_result_clear(&sr);
	qmp_reply_judge(&sr, -EREMOTEIO, NULL, xstrdup("no"), &running);
	assert_int_equal(sr.status, ST_FAIL);
	step_result_clear(&sr);
	json_decref(running.json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),	  cmocka_unit_test(test_kind_keys),
		cmocka_unit_test(test_run_exit),  cmocka_unit_test(test_run_stdout_json),
		cmocka_unit_test(test_wait),	  cmocka_unit_test(test_qmp_split),
		cmocka_unit_test(test_qmp_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
