/* Idle accounting from /proc/stat: the parse and the percentage. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "idle.h"

static const char stat_a[] = "cpu  100 5 50 800 45 0 0 0 0 0\n"
			     "cpu0 100 5 50 800 45 0 0 0 0 0\nintr 1 2 3\n";
static const char stat_b[] = "cpu  110 5 60 1570 55 0 0 0 0 0\n"
			     "cpu0 110 5 60 1570 55 0 0 0 0 0\n";

static void test_parse(void **state)
{
	struct cpu_ticks t;

	(void)state;
	assert_int_equal(idle_parse(stat_a, &t), 0);
	assert_int_equal(t.idle, 845);
	assert_int_equal(t.total, 1000);
	assert_int_equal(idle_parse("cpu0 1 2 3\n", &t), -EINVAL);
	assert_int_equal(idle_parse("intr 1\n", &t), -EINVAL);
}

static void test_pct(void **state)
{
	struct cpu_ticks a, b;

	(void)state;
	idle_parse(stat_a, &a);
	idle_parse(stat_b, &b);
	/* 780 of 800 new ticks idle */
	assert_true(idle_pct(&a, &b) > 97.4 && idle_pct(&a, &b) < 97.6);
	assert_true(idle_pct(&a, &a) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_pct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
