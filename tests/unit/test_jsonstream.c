/* Line framing for QMP and the guest agent: every split of the byte stream
 * gives the same lines; 0xFF resets (agent only); parse and transcript. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "jsonstream.h"
#include "util.h"

struct lines {
	char text[1024]; /* the lines received, each followed by '|' */
	int n;
};

static void collect(void *ctx, char *line, size_t len)
{
	struct lines *l = ctx;

	assert_int_equal(strlen(line), len);
	strcat(l->text, line);
	strcat(l->text, "|");
	l->n++;
}

static const char two_msgs[] = "{\"QMP\": {\"version\": {}}}\r\n"
			       "{\"return\": {}, \"id\": 1}\r\n";

static void test_split_every_byte(void **state)
{
	size_t len = strlen(two_msgs);

	(void)state;
	for (size_t i = 0; i <= len; i++) {
		for (size_t j = i; j <= len; j++) {
			struct jsonstream js;
			struct lines got = { "", 0 };

			jsonstream_init(&js, false);
			jsonstream_feed(&js, two_msgs, i, collect, &got);
			jsonstream_feed(&js, two_msgs + i, j - i, collect, &got);
			jsonstream_feed(&js, two_msgs + j, len - j, collect, &got);
			assert_int_equal(got.n, 2);
			assert_string_equal(got.text, "{\"QMP\": {\"version\": {}}}\r|"
						      "{\"return\": {}, \"id\": 1}\r|");
			jsonstream_release(&js);
		}
	}
}

static void test_partial_line_waits(void **state)
{
	struct jsonstream js;
	struct lines got = { "", 0 };

	(void)state;
	jsonstream_init(&js, false);
	jsonstream_feed(&js, "{\"a\":", 5, collect, &got);
	assert_int_equal(got.n, 0);
	jsonstream_feed(&js, "1}\n{\"b\"", 7, collect, &got);
	assert_string_equal(got.text, "{\"a\":1}|");
	jsonstream_release(&js);
}

static void test_ff_resets_agent_parser(void **state)
{
	const char stream[] = "stale {\"retu\xff{\"return\": 7}\n";
	struct jsonstream js;
	struct lines got = { "", 0 };

	(void)state;
	jsonstream_init(&js, true);
	jsonstream_feed(&js, stream, strlen(stream), collect, &got);
	assert_string_equal(got.text, "{\"return\": 7}|");
	jsonstream_release(&js);

	/* QMP never sends 0xFF; there it is just a byte of a garbage line. */
	memset(&got, 0, sizeof(got));
	jsonstream_init(&js, false);
	jsonstream_feed(&js,
			"a\xff"
			"b\n",
			4, collect, &got);
	assert_string_equal(got.text, "a\xff"
				      "b|");
	jsonstream_release(&js);
}

static void test_parse(void **state)
{
	bool empty;
	json_t *v;

	(void)state;
	v = jsonstream_parse("{\"return\": 3}\r", 14, &empty);
	assert_non_null(v);
	assert_false(empty);
	assert_int_equal(json_integer_value(json_object_get(v, "return")), 3);
	json_decref(v);
	assert_null(jsonstream_parse(" \r", 2, &empty));
	assert_true(empty);
	assert_null(jsonstream_parse("not json", 8, &empty));
	assert_false(empty);
	/* A bare value is not a protocol message. */
	assert_null(jsonstream_parse("42", 2, &empty));
	assert_false(empty);
}

/* "{"return": [0,0,...]}" with n zeros: n + 2 values. */
static char *zeros(size_t n, size_t *len)
{
	char *s = xcalloc(1, 2 * n + 32);

	*len = (size_t)sprintf(s, "{\"return\": [");
	for (size_t i = 0; i < n; i++)
		*len += (size_t)sprintf(s + *len, i ? ",0" : "0");
	*len += (size_t)sprintf(s + *len, "]}");
	return s;
}

/* A guest's line of many small values is garbage past
 * JSONSTREAM_MAX_VALUES: parsed, 64 MiB of them took 1.3 GB. Commas in
 * strings are no values. */
static void test_parse_values_bound(void **state)
{
	size_t len;
	char *s = zeros(JSONSTREAM_MAX_VALUES - 2, &len);
	bool empty;
	json_t *v;

	(void)state;
	v = jsonstream_parse(s, len, &empty);
	assert_non_null(v);
	assert_int_equal(json_array_size(json_object_get(v, "return")), JSONSTREAM_MAX_VALUES - 2);
	json_decref(v);
	free(s);
	s = zeros(JSONSTREAM_MAX_VALUES - 1, &len);
	assert_null(jsonstream_parse(s, len, &empty));
	assert_false(empty);
	memset(s + 12, ',', len - 14); /* {"return": ",,,,...,,"} */
	s[11] = s[len - 2] = '"';
	v = jsonstream_parse(s, len, &empty);
	assert_non_null(v);
	json_decref(v);
	free(s);
}

static void test_log_lines(void **state)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	json_t *msg = json_pack("{s:s}", "execute", "query-status");
	json_t *a, *b;

	(void)state;
	jsonstream_log(f, 1234, "out", msg, NULL, NULL);
	jsonstream_log(f, 1240, "in", NULL, "bad\xff\x01line", "not JSON: ignored");
	jsonstream_log(NULL, 1, "in", msg, NULL, NULL);
	fclose(f);
	a = json_loads(buf, JSON_DISABLE_EOF_CHECK, NULL);
	b = json_loads(strchr(buf, '\n') + 1, JSON_DISABLE_EOF_CHECK, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(a, "t_ms")), 1234);
	assert_string_equal(json_string_value(json_object_get(a, "dir")), "out");
	assert_true(json_equal(json_object_get(a, "msg"), msg));
	assert_string_equal(json_string_value(json_object_get(b, "raw")), "bad??line");
	assert_string_equal(json_string_value(json_object_get(b, "note")), "not JSON: ignored");
	json_decref(a);
	json_decref(b);
	json_decref(msg);
	free(buf);
}

static void test_send_and_hangup(void **state)
{
	json_t *msg = json_pack("{s:s}", "execute", "guest-ping");
	char buf[128] = "";
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(jsonstream_send(sv[0], "\xff", msg, 1000), 0);
	assert_true(read(sv[1], buf, sizeof(buf) - 1) > 0);
	assert_string_equal(buf, "\xff{\"execute\":\"guest-ping\"}\n");
	close(sv[1]);
	assert_int_equal(jsonstream_send(sv[0], NULL, msg, 1000), -EPIPE);
	close(sv[0]);
	json_decref(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_every_byte),
		cmocka_unit_test(test_partial_line_waits),
		cmocka_unit_test(test_ff_resets_agent_parser),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_values_bound),
		cmocka_unit_test(test_log_lines),
		cmocka_unit_test(test_send_and_hangup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
