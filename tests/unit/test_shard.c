/* --shard K/N: every scenario in exactly one shard for any N, the shares
 * balanced by weight, independent of the input order; bad K/N refused. The
 * selection's hash and the run id derived from it; ktb merge's check that
 * its shards make one whole run (none missing, none twice, one selection,
 * kernel and run id). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
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

/* A selection with the given -t filter and repeat (others empty). */
static void sel_make(struct run_selection *s, const char *tag, unsigned repeat)
{
	memset(s, 0, sizeof(*s));
	s->tags = run_selection_words(tag ? &tag : NULL, tag ? 1 : 0);
	s->tags_count = tag ? 1 : 0;
	s->exclude_tags = run_selection_words(NULL, 0);
	s->names = run_selection_words(NULL, 0);
	s->repeat = repeat;
}

/* The hash depends on the scenarios (names and weights), the filters and
 * --repeat, never on the order the scenarios came in. */
static void test_selection_hash(void **state)
{
	const char *names[] = { "b", "a", "c" }, *rev[] = { "c", "a", "b" };
	int64_t w[] = { 2, 1, 3 }, wrev[] = { 3, 1, 2 }, w2[] = { 2, 1, 4 };
	struct run_selection s, t;
	char h1[65], h2[65];

	(void)state;
	sel_make(&s, NULL, 1);
	shard_selection_hash(&s, names, w, 3, h1);
	assert_int_equal(strlen(h1), 64);
	shard_selection_hash(&s, rev, wrev, 3, h2);
	assert_string_equal(h1, h2);
	shard_selection_hash(&s, names, w2, 3, h2); /* a timeout changed: another split */
	assert_string_not_equal(h1, h2);
	shard_selection_hash(&s, names, w, 2, h2); /* a scenario fewer */
	assert_string_not_equal(h1, h2);
	sel_make(&t, "pm", 1);
	shard_selection_hash(&t, names, w, 3, h2);
	assert_string_not_equal(h1, h2);
	run_selection_free(&t);
	sel_make(&t, NULL, 2);
	shard_selection_hash(&t, names, w, 3, h2);
	assert_string_not_equal(h1, h2);
	/* the run id: the same for the same selection and kernel, else not */
	t.hash = xstrdup(h1);
	s.hash = xstrdup(h1);
	char *a = shard_run_id(&s), *b = shard_run_id(&t);

	assert_string_equal(a, b);
	assert_int_equal(strlen(a), 20);
	assert_memory_equal(a, "sel-", 4);
	free(b);
	t.kernel = xstrdup("6.1.0-47");
	b = shard_run_id(&t);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	run_selection_free(&s);
	run_selection_free(&t);
}

static void test_run_id_check(void **state)
{
	static const char *const bad[] = { "", ".hidden", "a/b", "../x", "a b", "x\n" };
	char why[200];

	(void)state;
	assert_int_equal(shard_run_id_check("ci-1234.5_a", why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(shard_run_id_check(bad[i], why, sizeof(why)), -EINVAL);
	char long_id[80];

	memset(long_id, 'a', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	assert_int_equal(shard_run_id_check(long_id, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "--run-id"));
}

/* Shard k of n of run id, selection hash, booting kernel (one scenario). */
static void shard_make(struct run_result *r, unsigned k, unsigned n, const char *id,
		       const char *hash, const char *kernel)
{
	memset(r, 0, sizeof(*r));
	sel_make(&r->sel, NULL, 1);
	r->run_id = xstrdup(id);
	r->sel.hash = xstrdup(hash);
	r->sel.shard_k = k;
	r->sel.shard_n = n;
	r->count = 1;
	r->scenarios = xcalloc(1, sizeof(*r->scenarios));
	r->scenarios[0].name = xasprintf("scn-%u", k);
	r->scenarios[0].kernel = kernel ? xstrdup(kernel) : NULL;
}

/* check(runs) with paths "s1".."sN": 0 or -EINVAL with why */
static int check(struct run_result *runs, size_t n, char *why)
{
	const char *paths[] = { "s1", "s2", "s3", "s4", "s5" };

	return shard_merge_check(runs, paths, n, why, 300);
}

static void runs_free(struct run_result *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_result_free(&runs[i]);
}

static void test_merge_check(void **state)
{
	struct run_result r[5];
	char why[300];

	(void)state;
	/* whole runs: nothing to check */
	memset(r, 0, sizeof(r));
	assert_int_equal(check(r, 2, why), 0);
	/* one run's four shards in any order */
	shard_make(&r[0], 3, 4, "ci-7", "h1", "6.1.0-57-amd64");
	shard_make(&r[1], 1, 4, "ci-7", "h1", "6.1.0-57-amd64");
	shard_make(&r[2], 4, 4, "ci-7", "h1", NULL); /* empty: booted nothing */
	shard_make(&r[3], 2, 4, "ci-7", "h1", "6.1.0-57-amd64");
	assert_int_equal(check(r, 4, why), 0);
	/* one missing, two missing */
	assert_int_equal(check(r, 3, why), -EINVAL);
	assert_string_equal(why, "shard 2 of 4 of run ci-7 is missing (the inputs hold shards 1, "
				 "3, 4); give every shard's run document");
	assert_int_equal(check(r, 2, why), -EINVAL);
	assert_non_null(strstr(why, "shards 2, 4 of 4 of run ci-7 are missing (the inputs hold "
				    "shards 1, 3)"));
	assert_int_equal(check(r, 1, why), -EINVAL);
	assert_non_null(strstr(why, "(the inputs hold shard 3)"));
	/* the same shard twice */
	shard_make(&r[4], 1, 4, "ci-7", "h1", "6.1.0-57-amd64");
	assert_int_equal(check(r, 5, why), -EINVAL);
	assert_string_equal(why, "s5: shard 1 of 4 again (s2 is that shard)");
	run_result_free(&r[4]);
	/* another selection: the filters differ */
	shard_make(&r[4], 1, 4, "ci-7", "h2", "6.1.0-57-amd64");
	run_selection_free(&r[4].sel);
	sel_make(&r[4].sel, "pm", 1);
	r[4].sel.hash = xstrdup("h2");
	r[4].sel.shard_k = 1;
	r[4].sel.shard_n = 4;
	run_result_free(&r[1]);
	r[1] = r[4];
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s2: shard 1 of 4 of another selection than s1 (its -t "
				    "filters differ from s1's)"));
	run_result_free(&r[1]);
	/* another kernel booted; an empty shard's kernel asked for */
	shard_make(&r[1], 1, 4, "ci-7", "h1", "6.1.0-47-amd64");
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s2: shard 1 of 4 of another kernel (6.1.0-47-amd64) than s1 "
				    "(6.1.0-57-amd64)"));
	run_result_free(&r[1]);
	shard_make(&r[1], 1, 4, "ci-7", "h1", "6.1.0-57-amd64");
	r[2].sel.kernel = xstrdup("6.1.0-47");
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s3: shard 4 of 4 of another kernel (6.1.0-47) than s1"));
	free(r[2].sel.kernel);
	r[2].sel.kernel = NULL;
	assert_int_equal(check(r, 4, why), 0);
	/* another N, another run */
	r[3].sel.shard_n = 5;
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s4: shard 2 of 5, but s1 is shard 3 of 4"));
	r[3].sel.shard_n = 4;
	free(r[3].run_id);
	r[3].run_id = xstrdup("ci-8");
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s4: shard 2 of 4 of run ci-8, but s1 is of run ci-7"));
	/* a whole run among shards, a shard without its selection */
	run_result_free(&r[3]);
	memset(&r[3], 0, sizeof(r[3]));
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s4: a whole run (no --shard), but s1 is shard 3 of 4"));
	shard_make(&r[3], 2, 4, "ci-7", "h1", NULL);
	free(r[0].sel.hash);
	r[0].sel.hash = NULL;
	assert_int_equal(check(r, 4, why), -EINVAL);
	assert_non_null(strstr(why, "s1: shard 3 of 4 does not say what it was cut from"));
	runs_free(r, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition),      cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_equal_weights),  cmocka_unit_test(test_parse),
		cmocka_unit_test(test_selection_hash), cmocka_unit_test(test_run_id_check),
		cmocka_unit_test(test_merge_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
