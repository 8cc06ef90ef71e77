/* ktb-io's block pattern: what is written verifies, and each way a block can
 * go wrong is told apart. Also the size parser and latency percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "size.h"
#include "stats.h"

#define BS 4096

static void test_round_trip(void **state)
{
	static const uint32_t sizes[] = { 512, 4096, 65536 };
	uint64_t lba;
	size_t i;
	char *buf;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		buf = malloc(sizes[i]);
		for (lba = 0; lba < 64; lba += 8) {
			pattern_fill(buf, sizes[i], 42, lba, 3);
			assert_int_equal(pattern_classify(buf, sizes[i], 42, lba, 3), PATTERN_OK);
		}
		free(buf);
	}
}

static void test_deterministic_and_distinct(void **state)
{
	static char a[BS], b[BS];

	(void)state;
	pattern_fill(a, BS, 7, 16, 1);
	pattern_fill(b, BS, 7, 16, 1);
	assert_memory_equal(a, b, BS);
	pattern_fill(b, BS, 7, 24, 1);
	/* payloads of neighbouring blocks must differ, not only headers */
	assert_memory_not_equal(a + 64, b + 64, BS - 64);
	pattern_fill(b, BS, 8, 16, 1);
	assert_memory_not_equal(a + 64, b + 64, BS - 64);
}

static void test_wrong_lba(void **state)
{
	static char buf[BS];

	(void)state;
	pattern_fill(buf, BS, 42, 8, 1);
	assert_int_equal(pattern_classify(buf, BS, 42, 16, 1), PATTERN_WRONG_LBA);
}

static void test_stale_gen(void **state)
{
	static char buf[BS];

	(void)state;
	pattern_fill(buf, BS, 42, 8, 1);
	assert_int_equal(pattern_classify(buf, BS, 42, 8, 2), PATTERN_STALE_GEN);
}

static void test_flipped_byte(void **state)
{
	static const size_t offsets[] = { 0, 17, 30, 47, 48, 100, BS - 1 };
	static char buf[BS];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		pattern_fill(buf, BS, 42, 8, 1);
		buf[offsets[i]] ^= 0x01;
		assert_int_equal(pattern_classify(buf, BS, 42, 8, 1), PATTERN_BAD_CHECKSUM);
	}
}

static void test_torn(void **state)
{
	static char buf[BS], old[BS];

	(void)state;
	pattern_fill(old, BS, 42, 8, 1);
	pattern_fill(buf, BS, 42, 8, 2);
	/* new first half, old second half: a write torn at 2 KiB */
	memcpy(buf + BS / 2, old + BS / 2, BS / 2);
	assert_int_equal(pattern_classify(buf, BS, 42, 8, 2), PATTERN_BAD_CHECKSUM);
}

static void test_zeroed(void **state)
{
	static char buf[BS];

	(void)state;
	memset(buf, 0, BS);
	assert_int_equal(pattern_classify(buf, BS, 42, 8, 1), PATTERN_ZEROED);
}

static void test_foreign(void **state)
{
	static char buf[BS];

	(void)state;
	pattern_fill(buf, BS, 41, 8, 1);
	assert_int_equal(pattern_classify(buf, BS, 42, 8, 1), PATTERN_FOREIGN);
	pattern_fill(buf, 512, 42, 8, 1);
	assert_int_equal(pattern_classify(buf, BS, 42, 8, 1), PATTERN_FOREIGN);
}

static void test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(pattern_verdict_name(PATTERN_WRONG_LBA), "wrong_lba");
	assert_string_equal(pattern_verdict_name(PATTERN_STALE_GEN), "stale_gen");
	assert_string_equal(pattern_verdict_name(PATTERN_BAD_CHECKSUM), "bad_checksum");
	assert_string_equal(pattern_verdict_name(PATTERN_ZEROED), "zeroed");
}

static void test_permutation(void **state)
{
	const uint64_t n = 1000;
	uint64_t *order = malloc(n * sizeof(*order));
	uint64_t *again = malloc(n * sizeof(*again));
	char *seen = calloc(n, 1);
	uint64_t i, moved = 0;

	(void)state;
	pattern_permute(order, n, 99);
	for (i = 0; i < n; i++) {
		assert_true(order[i] < n);
		assert_int_equal(seen[order[i]], 0);
		seen[order[i]] = 1;
		moved += order[i] != i;
	}
	assert_true(moved > n / 2);
	pattern_permute(again, n, 99);
	assert_memory_equal(order, again, n * sizeof(*order));
	pattern_permute(again, n, 100);
	assert_memory_not_equal(order, again, n * sizeof(*order));
	pattern_permute(again, 1, 5);
	assert_int_equal(again[0], 0);
	pattern_permute(again, 0, 5);
	free(order);
	free(again);
	free(seen);
}

static void test_size_parse(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(size_parse("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(size_parse("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(size_parse("32M", &v), 0);
	assert_int_equal(v, 32ULL << 20);
	assert_int_equal(size_parse("1G", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(size_parse("2TiB", &v), 0);
	assert_int_equal(v, 2ULL << 40);
	assert_int_equal(size_parse("8mb", &v), 0);
	assert_int_equal(v, 8ULL << 20);
	assert_int_equal(size_parse("512b", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(size_parse("0x1000", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(size_parse("010M", &v), 0); /* decimal, not octal */
	assert_int_equal(v, 10ULL << 20);
	assert_int_equal(size_parse("", &v), -EINVAL);
	assert_int_equal(size_parse("k", &v), -EINVAL);
	assert_int_equal(size_parse("-1", &v), -EINVAL);
	assert_int_equal(size_parse("12x", &v), -EINVAL);
	assert_int_equal(size_parse("4kx", &v), -EINVAL);
	assert_int_equal(size_parse("99999999999999999999", &v), -ERANGE);
	assert_int_equal(size_parse("20000000T", &v), -ERANGE);
}

static void test_percentile(void **state)
{
	uint64_t v[100], one = 7;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		v[i] = 100 - i; /* 100..1, unsorted */
	stats_sort(v, 100);
	assert_int_equal(v[0], 1);
	assert_int_equal(stats_percentile(v, 100, 50), 50);
	assert_int_equal(stats_percentile(v, 100, 90), 90);
	assert_int_equal(stats_percentile(v, 100, 99), 99);
	assert_int_equal(stats_percentile(v, 100, 100), 100);
	assert_int_equal(stats_percentile(v, 100, 0), 1);
	assert_int_equal(stats_percentile(&one, 1, 99), 7);
	assert_int_equal(stats_percentile(v, 0, 50), 0);
	/* 10 samples: p99 rounds up to the largest */
	assert_int_equal(stats_percentile(v, 10, 99), 10);
	assert_int_equal(stats_percentile(v, 10, 50), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_deterministic_and_distinct),
		cmocka_unit_test(test_wrong_lba),
		cmocka_unit_test(test_stale_gen),
		cmocka_unit_test(test_flipped_byte),
		cmocka_unit_test(test_torn),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_verdict_names),
		cmocka_unit_test(test_permutation),
		cmocka_unit_test(test_size_parse),
		cmocka_unit_test(test_percentile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
