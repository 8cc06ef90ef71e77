/* --shard K/N: every scenario in exactly one shard for any N, the shares
 * balanced by weight, independent of the input order; bad K/N refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shard.h"
#include "util.h"

#define ITEMS 41

struct items {
	char *names[ITEMS];
	int64_t weights[ITEMS];
	size_t n;
};

/* n items; weights from a small fixed spread, as scenario timeouts are */
static void items_make(struct items *it, size_t n)
{
	static const int64_t spread[] = { 120000, 120000, 60000, 300000, 120000, 30000, 600000 };

	it->n = n;
	for (size_t i = 0; i < n; i++) {
		it->names[i] = xasprintf("scn-%02zu", i);
		it->weights[i] = spread[i % (sizeof(spread) / sizeof(spread[0]))];
	}
}

static void items_free(struct items *it)
{
	for (size_t i = 0; i < it->n; i++)
		free(it->names[i]);
}

/* For every N up to past the item count: each item in one shard, K-th
 * shard's items are what --shard K/N keeps, loads within the heaviest item. */
static void test_partition(void **state)
{
	(void)state;
	for (size_t count = 0; count <= ITEMS; count += 5) {
		struct items it;

		items_make(&it, count);
		for (unsigned n = 1; n <= ITEMS + 3; n++) {
			unsigned of[ITEMS + 1];
			int64_t load[ITEMS + 4] = { 0 }, hi = 0, lo = INT64_MAX, heaviest = 0;
			size_t seen = 0;

			memset(of, 0xff, sizeof(of));
			assert_int_equal(
			    shard_assign((const char *const *)it.names, it.weights, count, n, of),
			    0);
			for (unsigned k = 0; k < n; k++)
				for (size_t i = 0; i < count; i++)
					seen += of[i] == k; /* union over K, no overlap */
			assert_int_equal(seen, count);
			for (size_t i = 0; i < count; i++) {
				assert_true(of[i] < n);
				load[of[i]] += it.weights[i];
				if (it.weights[i] > heaviest)
					heaviest = it.weights[i];
			}
			for (unsigned k = 0; k < n && count >= n; k++) {
				hi = load[k] > hi ? load[k] : hi;
				lo = load[k] < lo ? load[k] : lo;
			}
			if (count >= n)
				assert_true(hi - lo <= heaviest);
		}
		items_free(&it);
	}
}

/* The same names and weights in another order: the same shard for each. */
static void test_order_independent(void **state)
{
	struct items it, rev;
	unsigned a[ITEMS], b[ITEMS];

	(void)state;
	items_make(&it, ITEMS);
	rev.n = ITEMS;
	for (size_t i = 0; i < ITEMS; i++) {
		rev.names[i] = it.names[ITEMS - 1 - i];
		rev.weights[i] = it.weights[ITEMS - 1 - i];
	}
	for (unsigned n = 1; n <= 9; n++) {
		assert_int_equal(
		    shard_assign((const char *const *)it.names, it.weights, ITEMS, n, a), 0);
		assert_int_equal(
		    shard_assign((const char *const *)rev.names, rev.weights, ITEMS, n, b), 0);
		for (size_t i = 0; i < ITEMS; i++)
			assert_int_equal(a[i], b[ITEMS - 1 - i]);
	}
	items_free(&it);
}

/* Equal weights: shares differ by at most one scenario. */
static void test_equal_weights(void **state)
{
	const char *names[] = { "a", "b", "c", "d", "e", "f", "g" };
	int64_t w[7] = { 0 };
	unsigned of[7], per[3] = { 0 };

	(void)state;
	assert_int_equal(shard_assign(names, w, 7, 3, of), 0);
	for (size_t i = 0; i < 7; i++)
		per[of[i]]++;
	assert_int_equal(per[0], 3);
	assert_int_equal(per[1], 2);
	assert_int_equal(per[2], 2);
	assert_int_equal(shard_assign(names, w, 7, 0, of), -EINVAL);
}

static void test_parse(void **state)
{
	static const char *const bad[] = { "3/2",  "0/2",  "1/0",  "x/y",  "1/",	"/2",
					   "1/2x", "-1/2", " 1/2", "1//2", "1001/1001", "" };
	unsigned k, n;
	char why[200];

	(void)state;
	assert_int_equal(shard_parse("2/4", &k, &n, why, sizeof(why)), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 4);
	assert_int_equal(shard_parse("1/1", &k, &n, why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(shard_parse(bad[i], &k, &n, why, sizeof(why)), -EINVAL);
		/* the message names what was given */
		assert_non_null(strstr(why, bad[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_equal_weights),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
