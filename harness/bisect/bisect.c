#include "bisect.h"

#include <errno.h>
#include <stdlib.h>

#include "util.h"

int bisect_init(struct bisect *b, size_t n)
{
	if (n < 2)
		return -EINVAL;
	b->n = n;
	b->v = xcalloc(n, sizeof(*b->v));
	return 0;
}

void bisect_free(struct bisect *b)
{
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

void bisect_record(struct bisect *b, size_t i, enum bisect_verdict v)
{
	if (i < b->n)
		b->v[i] = v;
}

enum bisect_verdict bisect_verdict_of_exit(int code)
{
	switch (code) {
	case 0:
		return BISECT_GOOD;
	case 1:
		return BISECT_BAD;
	case 125:
		return BISECT_SKIP;
	default:
		return BISECT_ABORT;
	}
}

const char *bisect_verdict_name(enum bisect_verdict v)
{
	static const char *const names[] = {
		[BISECT_UNKNOWN] = "untested", [BISECT_GOOD] = "good",	 [BISECT_BAD] = "bad",
		[BISECT_SKIP] = "skip",	       [BISECT_ABORT] = "abort",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

enum bisect_ends bisect_check_ends(enum bisect_verdict first, enum bisect_verdict last)
{
	if (first == BISECT_ABORT || last == BISECT_ABORT)
		return BISECT_ENDS_ABORT;
	if (first == BISECT_BAD)
		return BISECT_ENDS_FIRST_NOT_GOOD;
	if (last == BISECT_GOOD)
		return BISECT_ENDS_LAST_NOT_BAD;
	if (first != BISECT_GOOD || last != BISECT_BAD)
		return BISECT_ENDS_UNTESTED;
	return BISECT_ENDS_OK;
}

void bisect_range(const struct bisect *b, size_t *lo, size_t *hi)
{
	size_t i;

	*hi = b->n - 1;
	for (i = 0; i < b->n; i++)
		if (b->v[i] == BISECT_BAD) {
			*hi = i;
			break;
		}
	*lo = 0;
	for (i = 0; i < *hi; i++)
		if (b->v[i] == BISECT_GOOD)
			*lo = i;
}

/* The index of the pos-th (0-based) untested candidate after lo. */
static size_t nth_unknown(const struct bisect *b, size_t lo, size_t pos)
{
	size_t i;

	for (i = lo + 1; i < b->n; i++)
		if (b->v[i] == BISECT_UNKNOWN && pos-- == 0)
			break;
	return i;
}

size_t bisect_next(const struct bisect *b, unsigned k, size_t *out)
{
	size_t lo, hi, m = 0, got = 0;

	bisect_range(b, &lo, &hi);
	for (size_t i = lo + 1; i < hi; i++)
		m += b->v[i] == BISECT_UNKNOWN;
	if (!m || !k)
		return 0;
	if (k > m)
		k = (unsigned)m;
	/* the j-th of k cuts sits after j/(k+1) of the m + 1 gaps; as k <= m
	 * the cuts are distinct */
	for (size_t j = 1; j <= k; j++)
		out[got++] = nth_unknown(b, lo, j * (m + 1) / (k + 1) - 1);
	return got;
}

bool bisect_ambiguous(const struct bisect *b)
{
	size_t lo, hi;

	bisect_range(b, &lo, &hi);
	for (size_t i = lo + 1; i < hi; i++)
		if (b->v[i] == BISECT_SKIP)
			return true;
	return false;
}

unsigned bisect_rounds_max(size_t n, unsigned k)
{
	unsigned r = 0;
	size_t reach = 1;

	while (reach < n - 1) {
		reach *= (size_t)k + 1;
		r++;
	}
	return r;
}
