/* The guest's JSON writer: commas, nesting, escaping, numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_out.h"

struct buf {
	char *data;
	size_t len;
	FILE *f;
	struct json_out j;
};

static void buf_open(struct buf *b)
{
	b->f = open_memstream(&b->data, &b->len);
	assert_non_null(b->f);
	json_init(&b->j, b->f);
}

static void buf_check(struct buf *b, const char *want)
{
	fclose(b->f);
	assert_string_equal(b->data, want);
	free(b->data);
}

static void test_nesting(void **state)
{
	struct buf b;

	(void)state;
	buf_open(&b);
	json_obj_begin(&b.j);
	json_kv_str(&b.j, "op", "write");
	json_kv_u64(&b.j, "bs", 4096);
	json_key(&b.j, "lat");
	json_obj_begin(&b.j);
	json_kv_u64(&b.j, "p50", 1);
	json_kv_u64(&b.j, "max", 9);
	json_obj_end(&b.j);
	json_key(&b.j, "lbas");
	json_arr_begin(&b.j);
	json_u64(&b.j, 8);
	json_u64(&b.j, 16);
	json_arr_begin(&b.j);
	json_arr_end(&b.j);
	json_obj_begin(&b.j);
	json_obj_end(&b.j);
	json_arr_end(&b.j);
	json_kv_str(&b.j, "first_error", NULL);
	json_kv_bool(&b.j, "direct", true);
	json_kv_i64(&b.j, "neg", -3);
	json_obj_end(&b.j);
	json_finish(&b.j);
	buf_check(&b, "{\"op\":\"write\",\"bs\":4096,\"lat\":{\"p50\":1,\"max\":9},"
		      "\"lbas\":[8,16,[],{}],\"first_error\":null,\"direct\":true,\"neg\":-3}\n");
}

static void test_escaping(void **state)
{
	struct buf b;

	(void)state;
	buf_open(&b);
	json_arr_begin(&b.j);
	json_str(&b.j, "a\"b\\c\nd\te\x01");
	json_str(&b.j, "caf\xc3\xa9");
	json_arr_end(&b.j);
	buf_check(&b, "[\"a\\\"b\\\\c\\nd\\te\\u0001\",\"caf\\u00c3\\u00a9\"]");
}

static void test_doubles(void **state)
{
	struct buf b;

	(void)state;
	buf_open(&b);
	json_arr_begin(&b.j);
	json_double(&b.j, 12.5);
	json_double(&b.j, NAN);
	json_double(&b.j, INFINITY);
	json_arr_end(&b.j);
	buf_check(&b, "[12.500,null,null]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_doubles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
