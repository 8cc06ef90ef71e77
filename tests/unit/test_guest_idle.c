/* Idle accounting from /proc/stat: the parse and the percentage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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

/* A /proc/stat that does not move between the two samples: no tick was
 * counted, so there is no idle share to report, only null and -EAGAIN. */
static void test_nothing_measured(void **state)
{
	char root[] = "/tmp/ktb-idle-XXXXXX", path[256], *buf = NULL;
	struct json_out j;
	size_t len = 0;
	FILE *f, *mem;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(stat_a, f);
	fclose(f);
	mem = open_memstream(&buf, &len);
	json_init(&j, mem);
	json_obj_begin(&j);
	assert_int_equal(facts_idle(root, 0, &j), -EAGAIN);
	json_obj_end(&j);
	json_finish(&j);
	fclose(mem);
	assert_non_null(strstr(buf, "\"idle_pct\":null"));
	assert_non_null(strstr(buf, "\"busy_pct\":null"));
	assert_non_null(strstr(buf, "\"ticks\":0"));
	free(buf);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_pct),
		cmocka_unit_test(test_nothing_measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
