#include "shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int shard_number(const char *s, const char **end, unsigned *v)
{
	unsigned long x = 0;
	const char *p = s;

	/* digits only: strtoul would take a sign, spaces or 0x */
	while (*p >= '0' && *p <= '9' && x <= SHARD_MAX)
		x = x * 10 + (unsigned long)(*p++ - '0');
	*end = p;
	if (p == s || x > SHARD_MAX)
		return -EINVAL;
	*v = (unsigned)x;
	return 0;
}

int shard_parse(const char *arg, unsigned *k, unsigned *n, char *why, size_t whylen)
{
	const char *p;

	if (shard_number(arg, &p, k) || *p != '/' || shard_number(p + 1, &p, n) || *p) {
		snprintf(why, whylen,
			 "--shard %s: give K/N, two whole numbers up to %d (2/4: the "
			 "second of four shares)",
			 arg, SHARD_MAX);
		return -EINVAL;
	}
	if (!*n || !*k || *k > *n) {
		snprintf(why, whylen, "--shard %s: K must be 1 to N, and N at least 1", arg);
		return -EINVAL;
	}
	return 0;
}

struct shard_item {
	const char *name;
	int64_t weight;
	size_t idx;
};

/* heaviest first; equal weights in name order, so the input order never matters */
static int item_cmp(const void *a, const void *b)
{
	const struct shard_item *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

int shard_assign(const char *const *names, const int64_t *weights, size_t count, unsigned n,
		 unsigned *shard_of)
{
	struct shard_item *it = NULL;
	int64_t *load = NULL;
	int ret = 0;

	if (!n)
		return -EINVAL;
	it = xcalloc(count + 1, sizeof(*it));
	load = xcalloc(n, sizeof(*load));
	for (size_t i = 0; i < count; i++)
		it[i] = (struct shard_item){ names[i], weights[i] > 0 ? weights[i] : 0, i };
	qsort(it, count, sizeof(*it), item_cmp);
	for (size_t i = 0; i < count; i++) {
		unsigned best = 0;

		/* the same name twice would let the order of the input decide */
		if (i && it[i].weight == it[i - 1].weight && !strcmp(it[i].name, it[i - 1].name)) {
			ret = -EINVAL;
			goto out;
		}
		for (unsigned s = 1; s < n; s++)
			if (load[s] < load[best])
				best = s;
		shard_of[it[i].idx] = best;
		/* weightless items still count, so they spread too */
		load[best] += it[i].weight + 1;
	}
out:
	free(it);
	free(load);
	return ret;
}
