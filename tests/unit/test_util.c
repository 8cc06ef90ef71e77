/* The harness's small string helpers: trailing trimming, the one way every
 * caller drops the newline, carriage return or blanks a program or a file
 * ends with; and the SHA-256 hex digest over nettle that every key uses
 * (FIPS 180-4's vectors, fed in pieces). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sha256.h"
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

static void test_sha256_hex(void **state)
{
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	struct sha256_ctx c;
	char hex[SHA256_HEX_LEN + 1];

	(void)state;
	sha256_init(&c);
	sha256_feed(&c, "a", 1);
	sha256_feed(&c, "bc", 2);
	sha256_hex(&c, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* the context starts afresh: nothing fed is the empty string's */
	sha256_hex(&c, hex);
	assert_string_equal(hex,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_feed(&c, two_blocks, strlen(two_blocks));
	sha256_hex(&c, hex);
	assert_string_equal(hex,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim_len),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_sha256_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
