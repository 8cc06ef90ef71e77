/* The PPM parser takes QEMU's screendump format and refuses hostile input
 * (wrong magic, sizes past PPM_MAX_SIDE or past size_t, short pixel data)
 * before it allocates or reads past the data; ppm_diff counts pixels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "ppm.h"

static int parse(const char *s, size_t len, struct ppm *p)
{
	return ppm_parse((const unsigned char *)s, len, p);
}

static void test_qemu_header(void **state)
{
	static const char d[] = "P6\n2 1\n255\n\x01\x02\x03\x04\x05\x06";
	struct ppm p;

	(void)state;
	assert_int_equal(parse(d, sizeof(d) - 1, &p), 0);
	assert_int_equal(p.width, 2);
	assert_int_equal(p.height, 1);
	assert_memory_equal(p.rgb, "\x01\x02\x03\x04\x05\x06", 6);
}

static void test_comments(void **state)
{
	static const char d[] = "P6 # made by hand\n1 # w\n1\n255 \x0a\x0b\x0c";
	struct ppm p;

	(void)state;
	assert_int_equal(parse(d, sizeof(d) - 1, &p), 0);
	assert_int_equal(p.rgb[0], 0x0a);
}

static void test_hostile(void **state)
{
	static const struct {
		const char *d;
		int ret;
	} rows[] = {
		{ "", -EINVAL },
		{ "P5\n1 1\n255\nabc", -EINVAL },
		{ "P3\n1 1\n255\n1 2 3", -EINVAL },
		{ "P6", -EINVAL },
		{ "P6\n1 1\n65535\nabcdef", -EINVAL },
		{ "P6\n1 1\n99999999999999999999\nabc", -EINVAL },
		{ "P6\n0 1\n255\n", -EINVAL },
		{ "P6\n-1 1\n255\nabc", -EINVAL },
		{ "P6\n1 1\n255", -EINVAL },
		{ "P6\n1 1\n255x", -EINVAL },
		{ "P6\n16385 1\n255\n", -E2BIG },
		{ "P6\n1 99999999999999999999999\n255\n", -E2BIG },
		{ "P6\n16384 16384\n255\nabc", -ENODATA },
		{ "P6\n2 1\n255\nabcde", -ENODATA },
	};
	struct ppm p = { 7, 7, NULL };

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(parse(rows[i].d, strlen(rows[i].d), &p), rows[i].ret);
		assert_int_equal(p.width, 7); /* untouched on failure */
	}
}

static void test_diff(void **state)
{
	static const char a[] = "P6\n2 1\n255\n\x01\x02\x03\x04\x05\x06";
	static const char b[] = "P6\n2 1\n255\n\x01\x02\x03\x04\x05\x07";
	static const char c[] = "P6\n1 2\n255\n\x01\x02\x03\x04\x05\x06";
	struct ppm pa, pb, pc;
	uint64_t n = 99;

	(void)state;
	assert_int_equal(parse(a, sizeof(a) - 1, &pa), 0);
	assert_int_equal(parse(b, sizeof(b) - 1, &pb), 0);
	assert_int_equal(parse(c, sizeof(c) - 1, &pc), 0);
	assert_int_equal(ppm_diff(&pa, &pa, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ppm_diff(&pa, &pb, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ppm_diff(&pa, &pc, &n), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_header),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
