/* hw/'s argument vector keeps its first error: the machine model builds
 * QEMU's and the hybrid back end's command lines as runs of plain adds and
 * checks once, so after a failure every later add must be a no-op that
 * returns that error, and nothing may be added past the hole. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "argv.h"

static void test_adds_in_order(void **state)
{
	struct argv a;

	(void)state;
	argv_init(&a);
	assert_int_equal(argv_add(&a, "qemu"), 0);
	assert_int_equal(argv_add_list(&a, (const char *const[]){ "-m", "512M", NULL }), 0);
	assert_int_equal(argv_addf(&a, "%u,sockets=%u", 2u, 2u), 0);
	assert_int_equal(argv_take(&a, strdup("owned")), 0);
	assert_int_equal(argv_add_list(&a, (const char *const[]){ NULL }), 0);
	assert_int_equal(a.n, 5);
	assert_string_equal(a.v[0], "qemu");
	assert_string_equal(a.v[1], "-m");
	assert_string_equal(a.v[2], "512M");
	assert_string_equal(a.v[3], "2,sockets=2");
	assert_string_equal(a.v[4], "owned");
	assert_null(a.v[5]);
	assert_int_equal(a.err, 0);
	argv_free(&a);
}

static void test_first_error_sticks(void **state)
{
	struct argv a;

	(void)state;
	argv_init(&a);
	assert_int_equal(argv_add(&a, "qemu"), 0);
	/* a failed allocation passed straight in */
	assert_int_equal(argv_take(&a, NULL), -ENOMEM);
	assert_int_equal(a.err, -ENOMEM);
	assert_int_equal(argv_add(&a, "-m"), -ENOMEM);
	assert_int_equal(argv_addf(&a, "%s", "512M"), -ENOMEM);
	assert_int_equal(argv_add_list(&a, (const char *const[]){ "-smp", "2", NULL }), -ENOMEM);
	/* owned and not added: freed (LeakSanitizer sees it otherwise) */
	assert_int_equal(argv_take(&a, strdup("lost")), -ENOMEM);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0], "qemu");
	assert_null(a.v[1]);
	/* freeing starts over clean */
	argv_free(&a);
	assert_int_equal(a.err, 0);
	assert_int_equal(argv_add(&a, "again"), 0);
	assert_int_equal(a.n, 1);
	argv_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adds_in_order),
		cmocka_unit_test(test_first_error_sticks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
