#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int stats_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void stats_sort(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), stats_cmp);
}

/* Nearest rank: the smallest sample with at least p% of samples <= it, so
 * p99 of 100 samples is the 99th, and p100 the maximum. */
uint64_t stats_percentile(const uint64_t *sorted, size_t n, double p)
{
	double rank;
	size_t idx;

	if (!n)
		return 0;
	if (p <= 0)
		return sorted[0];
	rank = ceil(p / 100.0 * (double)n);
	idx = rank < 1 ? 0 : (size_t)rank - 1;
	if (idx >= n)
		idx = n - 1;
	return sorted[idx];
}
