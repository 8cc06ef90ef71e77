/* A step's "expect:" block: exit code, stdout regex and dotted JSON paths,
 * and the exact wording of each difference (it is what a user reads). */
#include <stdlib.h>
#include <string.h>

/* included before cmocka.h, which defines a macro named expect_check */
#include "expect.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static const char *disks_out =
    "{\"nodes\": [{\"cpus\": 2}, {\"cpus\": 4.0}],\n"
    " \"disks\": [{\"name\": \"sda\", \"logical_block_size\": 512, \"size_bytes\": 1073741824},\n"
    "           {\"name\": \"nvme0n1\", \"logical_block_size\": 4096, \"size_bytes\": "
    "2147483648}],\n"
    " \"model\": \"QEMU HARDDISK\", \"tags\": [\"a\", \"b\"], \"nothing\": null}\n";

/* Run the check and return why ("" on pass), owned by a static slot. */
static const char *check(const struct expect *e, int code, const char *out, json_t *data,
			 int want_ret)
{
	static char *last;
	char *why = (char *)1;
	int ret;

	free(last);
	last = NULL;
	ret = expect_verify(e, code, out, data, &why);
	assert_int_equal(ret, want_ret);
	if (!ret) {
		assert_null(why);
		return "";
	}
	assert_non_null(why);
	last = why;
	return why;
}

/* An expect with only JSON checks, from JSON text. */
static struct expect *json_expect(const char *text)
{
	static struct expect e;

	json_decref(e.json);
	memset(&e, 0, sizeof(e));
	if (text) {
		e.json = json_loads(text, 0, NULL);
		assert_non_null(e.json);
	}
	return &e;
}

static void test_exit(void **state)
{
	struct expect e = { 0 };
	int three = 3;

	(void)state;
	check(NULL, 0, NULL, NULL, 0);
	assert_string_equal(check(NULL, 1, "", NULL, 1), "exit: expected 0, got 1");
	check(&e, 0, "", NULL, 0);
	assert_string_equal(check(&e, 2, "", NULL, 1), "exit: expected 0, got 2");
	e.exit = &three;
	check(&e, 3, "", NULL, 0);
	assert_string_equal(check(&e, 0, "", NULL, 1), "exit: expected 3, got 0");
}

static void test_stdout(void **state)
{
	struct expect e = { .stdout_re = "^6\\.1" };
	char long_out[300];

	(void)state;
	check(&e, 0, "6.1.0-57-amd64\n", NULL, 0);
	/* ^ matches at every line */
	check(&e, 0, "Linux version\n6.1.0\n", NULL, 0);
	assert_string_equal(check(&e, 0, "5.10.0\n", NULL, 1),
			    "stdout did not match /^6\\.1/: \"5.10.0\\n\"");
	assert_string_equal(check(&e, 0, NULL, NULL, 1), "stdout did not match /^6\\.1/: \"\"");
	/* long output is cut, odd bytes are shown escaped */
	memset(long_out, 'x', sizeof(long_out) - 1);
	long_out[sizeof(long_out) - 1] = '\0';
	long_out[0] = '\033';
	long_out[1] = '\xff';
	const char *why = check(&e, 0, long_out, NULL, 1);
	assert_true(strlen(why) < 120);
	assert_non_null(strstr(why, "\"\\u001B\\uFFFDxxx"));
	assert_non_null(strstr(why, "..."));
	/* exit and stdout both wrong: both said */
	assert_string_equal(check(&e, 1, "x", NULL, 1),
			    "exit: expected 0, got 1; stdout did not match /^6\\.1/: \"x\"");
	e.stdout_re = "([";
	assert_non_null(strstr(check(&e, 0, "x", NULL, 1), "bad regex /([/: "));
}

/* An expectation checked against disks_out and why it fails ("" passes). */
struct json_case {
	const char *expect;
	const char *why;
};

static void check_json_cases(const struct json_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct expect *e = json_expect(c[i].expect);

		assert_string_equal(check(e, 0, disks_out, NULL, c[i].why[0] != '\0'), c[i].why);
	}
}

static const struct json_case json_equal_cases[] = {
	{ "{\"disks.1.logical_block_size\": 4096, \"nodes.1.cpus\": 4,"
	  " \"nodes.0.cpus\": 2.0, \"model\": \"QEMU HARDDISK\", \"tags\": [\"a\", \"b\"],"
	  " \"disks.0\": {\"name\": \"sda\", \"logical_block_size\": 512.0,"
	  " \"size_bytes\": 1073741824}}",
	  "" },
	{ "{\"disks.0.logical_block_size\": 4096}",
	  "json disks.0.logical_block_size: expected 4096, got 512" },
	{ "{\"disks.2.name\": \"sdc\", \"tags\": [\"a\"]}",
	  "json disks.2.name: expected \"sdc\", got nothing; "
	  "json tags: expected [\"a\"], got [\"a\",\"b\"]" },
	/* a path through a scalar or a non-number index finds nothing */
	{ "{\"model.x\": 1, \"disks.first\": 1}",
	  "json model.x: expected 1, got nothing; json disks.first: expected 1, got nothing" },
	/* types matter apart from int/real */
	{ "{\"nodes.0.cpus\": \"2\"}", "json nodes.0.cpus: expected \"2\", got 2" },
};

static void test_json_equal(void **state)
{
	(void)state;
	check_json_cases(json_equal_cases, sizeof(json_equal_cases) / sizeof(json_equal_cases[0]));
}

static const struct json_case json_ops_cases[] = {
	{ "{\"disks.1.size_bytes\": {\"ge\": 2147483648, \"le\": 2147483648},"
	  " \"nodes.1.cpus\": {\"gt\": 3, \"lt\": 5, \"ne\": 3},"
	  " \"model\": {\"re\": \"^QEMU\"}, \"disks\": {\"len\": 2},"
	  " \"disks.0.name\": {\"len\": 3}}",
	  "" },
	{ "{\"disks.0.size_bytes\": {\"ge\": 2000000000}}",
	  "json disks.0.size_bytes: expected >= 2000000000, got 1073741824" },
	{ "{\"nodes.0.cpus\": {\"gt\": 2, \"lt\": 1, \"le\": 1.5, \"ne\": 2.0}}",
	  "json nodes.0.cpus: expected > 2, got 2; json nodes.0.cpus: expected < 1, got 2; "
	  "json nodes.0.cpus: expected <= 1.5, got 2; json nodes.0.cpus: expected != 2.0, got 2" },
	{ "{\"model\": {\"re\": \"^SCSI\"}, \"disks\": {\"len\": 3},"
	  " \"nodes.0.cpus\": {\"re\": \"2\"}, \"tags.0\": {\"ge\": 1}}",
	  "json model: expected a string matching /^SCSI/, got \"QEMU HARDDISK\"; "
	  "json disks: expected length 3, got length 2; "
	  "json nodes.0.cpus: expected a string matching /2/, got 2; "
	  "json tags.0: expected >= 1, got \"a\"" },
	{ "{\"model\": {\"len\": 1}, \"nodes.0.cpus\": {\"len\": 1}}",
	  "json model: expected length 1, got length 13; "
	  "json nodes.0.cpus: expected length 1, got 2" },
	{ "{\"missing\": {\"ge\": 1}}", "json missing: expected >= 1, got nothing" },
	/* a key that is absent satisfies nothing: not a bound, not !=, not a
	 * regex that matches the empty string, not length 0, not 0 or null */
	{ "{\"missing\": {\"le\": 5}}", "json missing: expected <= 5, got nothing" },
	{ "{\"missing\": {\"ne\": 0}}", "json missing: expected != 0, got nothing" },
	{ "{\"missing.deeper\": {\"ne\": \"x\"}}",
	  "json missing.deeper: expected != \"x\", got nothing" },
	{ "{\"missing\": {\"re\": \"\"}}",
	  "json missing: expected a string matching //, got nothing" },
	{ "{\"missing\": {\"len\": 0}}", "json missing: expected length 0, got nothing" },
	{ "{\"nothing\": {\"ne\": 512}}", "json nothing: expected != 512, got null" },
	{ "{\"nothing\": {\"ne\": null}}", "json nothing: expected != null, got null" },
	{ "{\"nothing\": {\"le\": 5}}", "json nothing: expected <= 5, got null" },
	{ "{\"missing\": 0, \"tags.5\": null}",
	  "json missing: expected 0, got nothing; json tags.5: expected null, got nothing" },
	/* an object with other keys is a value, not operators */
	{ "{\"nodes.0\": {\"cpus\": 2}}", "" },
	{ "{\"nodes.0\": {\"ge\": 1, \"cpus\": 2}}",
	  "json nodes.0: expected {\"ge\":1,\"cpus\":2}, got {\"cpus\":2}" },
};

static void test_json_ops(void **state)
{
	struct expect *e;

	(void)state;
	check_json_cases(json_ops_cases, sizeof(json_ops_cases) / sizeof(json_ops_cases[0]));
	/* the regex library's own words follow: only their start is ours */
	e = json_expect("{\"model\": {\"re\": \"([\"}}");
	assert_non_null(strstr(check(e, 0, disks_out, NULL, 1),
			       "json model: expected a string matching /([/ (bad regex: "));
}

static void test_json_source(void **state)
{
	struct expect *e;
	json_t *data;

	(void)state;
	/* data given: out is not looked at */
	data = json_pack("{s:i}", "size", 4096);
	e = json_expect("{\"size\": 4096}");
	check(e, 0, "not json at all", data, 0);
	json_decref(data);
	e = json_expect("{\"size\": 4096}");
	assert_string_equal(check(e, 0, "size=4096\n", NULL, 1),
			    "stdout is not JSON: invalid token near 'size' (line 1, column 4)");
	assert_non_null(strstr(check(e, 0, "", NULL, 1), "stdout is not JSON: "));
	/* exit still reported alongside */
	assert_string_equal(check(e, 1, "{\"size\": 4096}", NULL, 1), "exit: expected 0, got 1");
	/* an empty json block checks nothing, so out is not parsed */
	e = json_expect("{}");
	check(e, 0, "not json", NULL, 0);
	json_expect(NULL);
}

static void test_parse_and_path(void **state)
{
	json_t *j;

	(void)state;
	assert_null(expect_parse_output(NULL));
	assert_null(expect_parse_output("{broken"));
	assert_null(expect_parse_output("{} trailing"));
	j = expect_parse_output("\n  {\"a\": [10, {\"b\": \"x\"}]}\n\n");
	assert_non_null(j);
	assert_int_equal(json_integer_value(expect_json_path(j, "a.0")), 10);
	assert_string_equal(json_string_value(expect_json_path(j, "a.1.b")), "x");
	assert_ptr_equal(expect_json_path(j, ""), j);
	assert_null(expect_json_path(j, "a.2"));
	assert_null(expect_json_path(j, "a.-1"));
	assert_null(expect_json_path(j, "a.1x"));
	assert_null(expect_json_path(j, "b"));
	json_decref(j);
	j = expect_parse_output("42");
	assert_int_equal(json_integer_value(j), 42);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit),	    cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_json_equal),  cmocka_unit_test(test_json_ops),
		cmocka_unit_test(test_json_source), cmocka_unit_test(test_parse_and_path),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	check(NULL, 0, NULL, NULL, 0); /* frees the last message */
	return ret;
}
