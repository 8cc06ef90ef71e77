/* Medians, the rank test, the bootstrap interval and Holm's correction
 * (statistics.h). */
#include "statistics.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Up to this many samples in all, the rank test's distribution is counted
 * exactly (a table of na + 1 rows of N (N + 1) + 1 sums, N rows deep:
 * under 7 million steps at 60); above, its normal approximation. */
#define STATS_EXACT_COUNT 60

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stats_median(const double *v, size_t n)
{
	double *s = xcalloc(n, sizeof(*s)), m;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = median_sorted(s, n);
	free(s);
	return m;
}

struct tagged {
	double v;
	bool in_a;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* The pooled samples sorted, each given twice its midrank (an integer:
 * ranks i..j tied share (i + j) / 2); *ties the sum of t^3 - t over tie
 * groups of size t. The caller frees the ranks. */
static unsigned *double_midranks(const double *a, size_t na, const double *b, size_t nb,
				 bool **in_a, double *ties)
{
	size_t n = na + nb;
	struct tagged *t = xcalloc(n, sizeof(*t));
	unsigned *r = xcalloc(n, sizeof(*r));

	*in_a = xcalloc(n, sizeof(**in_a));
	for (size_t i = 0; i < n; i++)
		t[i] = (struct tagged){ i < na ? a[i] : b[i - na], i < na };
	qsort(t, n, sizeof(*t), cmp_tagged);
	*ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		for (size_t k = i; k <= j; k++) {
			r[k] = (unsigned)(i + 1 + j + 1);
			(*in_a)[k] = t[k].in_a;
		}
		*ties += pow((double)(j - i + 1), 3) - (double)(j - i + 1);
		i = j + 1;
	}
	free(t);
	return r;
}

/* The exact two-sided p: count the splits by their doubled rank sum. */
static double rank_exact(const unsigned *r, size_t n, size_t na, double w)
{
	size_t smax = (size_t)n * (n + 1);
	double *c = xcalloc((na + 1) * (smax + 1), sizeof(*c)), e = (double)na * (double)(n + 1);
	double total = 0, far = 0, d = fabs(w - e);

	c[0] = 1;
	for (size_t t = 0; t < n; t++)
		for (size_t k = (t + 1 < na ? t + 1 : na); k >= 1; k--)
			for (size_t s = smax; s >= r[t]; s--)
				c[k * (smax + 1) + s] += c[(k - 1) * (smax + 1) + s - r[t]];
	for (size_t s = 0; s <= smax; s++) {
		double k = c[na * (smax + 1) + s];

		total += k;
		/* half a doubled rank of slack: sums are integers */
		if (fabs((double)s - e) >= d - 0.5)
			far += k;
	}
	free(c);
	return far / total;
}

/* The normal approximation with the tie correction and a continuity
 * correction of half a rank (one doubled). */
static double rank_normal(size_t n, size_t na, double w, double ties)
{
	double nb = (double)(n - na), e = (double)na * (double)(n + 1);
	double var =
	    4.0 * (double)na * nb / 12.0 * ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	double z;

	if (var <= 0)
		return 1.0;
	z = (fabs(w - e) - 1.0) / sqrt(var);
	return z <= 0 ? 1.0 : erfc(z / sqrt(2.0));
}

double stats_rank_test(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	bool *in_a;
	double ties, w = 0, p;
	unsigned *r;

	if (!na || !nb || n > STATS_EXACT_MAX)
		return -1;
	r = double_midranks(a, na, b, nb, &in_a, &ties);
	for (size_t i = 0; i < n; i++)
		if (in_a[i])
			w += r[i];
	p = n <= STATS_EXACT_COUNT ? rank_exact(r, n, na, w) : rank_normal(n, na, w, ties);
	free(r);
	free(in_a);
	return p > 1 ? 1 : p;
}

/* xorshift64*: the bootstrap's draws, from a fixed seed */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static double resampled_median(const double *v, size_t n, double *tmp, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = v[next_random(seed) % n];
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return median_sorted(tmp, n);
}

int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double confidence,
		   unsigned rounds, double *ratio, double *lo, double *hi)
{
	double ma, mb, *ratios, *tmp;
	uint64_t seed = 0x6b7462636f6d7061ULL; /* "ktbcompa" */
	unsigned n = 0;

	if (!na || !nb)
		return -1;
	ma = stats_median(a, na);
	mb = stats_median(b, nb);
	if (!(ma > 0) || !(mb > 0))
		return -1;
	rounds = rounds ? rounds : STATS_BOOT_ROUNDS;
	ratios = xcalloc(rounds, sizeof(*ratios));
	tmp = xcalloc(na > nb ? na : nb, sizeof(*tmp));
	for (unsigned i = 0; i < rounds; i++) {
		double x = resampled_median(a, na, tmp, &seed),
		       y = resampled_median(b, nb, tmp, &seed);

		/* a resample whose median is 0 has no ratio: left out */
		if (x > 0)
			ratios[n++] = y / x;
	}
	qsort(ratios, n, sizeof(*ratios), cmp_double);
	*ratio = mb / ma;
	*lo = n ? ratios[(size_t)floor((1 - confidence) / 2 * (n - 1) + 0.5)] : *ratio;
	*hi = n ? ratios[(size_t)floor((1 + confidence) / 2 * (n - 1) + 0.5)] : *ratio;
	free(ratios);
	free(tmp);
	return 0;
}

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->p, &((const struct ranked *)b)->p);
}

void stats_holm(double *p, size_t m)
{
	struct ranked *r = xcalloc(m ? m : 1, sizeof(*r));
	double run = 0;

	for (size_t i = 0; i < m; i++)
		r[i] = (struct ranked){ p[i], i };
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (size_t k = 0; k < m; k++) {
		double adj = (double)(m - k) * r[k].p;

		run = adj > run ? adj : run; /* the adjusted values never fall */
		p[r[k].i] = run > 1 ? 1 : run;
	}
	free(r);
}
