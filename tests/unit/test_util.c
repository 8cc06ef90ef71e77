/* The harness's small string helpers: trailing trimming, the one way every
 * caller drops the newline, carriage return or blanks a program or a file
 * ends with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

static void test_trim_len(void **state)
{
	static const char text[] = "a b\r\n \n";

	(void)state;
	assert_int_equal(str_trim_len(text, strlen(text), "\r\n "), 3);
	/* only what the set names: a blank stops a newline-only trim */
	assert_int_equal(str_trim_len(text, strlen(text), "\n"), 6);
	assert_int_equal(str_trim_len(text, strlen(text), "\r"), strlen(text));
	assert_int_equal(str_trim_len("\n\n", 2, "\n"), 0);
	assert_int_equal(str_trim_len("", 0, "\n"), 0);
	/* n bounds what is looked at; a NUL byte is never trimmed */
	assert_int_equal(str_trim_len("ab \n", 2, " \n"), 2);
	assert_int_equal(str_trim_len("a\0\n", 3, "\n"), 2);
	/* leading bytes stay */
	assert_int_equal(str_trim_len(" \na", 3, " \n"), 3);
}

static void test_trim(void **state)
{
	char s[] = "6.1.0-47 \n\n", none[] = "x", all[] = " \n ";

	(void)state;
	assert_ptr_equal(str_trim(s, "\n "), s);
	assert_string_equal(s, "6.1.0-47");
	assert_string_equal(str_trim(none, "\n "), "x");
	assert_string_equal(str_trim(all, "\n "), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim_len),
		cmocka_unit_test(test_trim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
