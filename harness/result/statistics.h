/* Statistics for comparing two runs' samples of one metric (ktb compare,
 * docs/results.md "Comparing runs"): medians, an exact rank test that
 * allows ties, a bootstrap interval for the ratio of the medians, and Holm's
 * correction over many comparisons. Pure functions: no I/O, and the
 * bootstrap's random numbers come from a fixed seed, so one pair of inputs
 * always gives one answer. */
#ifndef KTB_STATISTICS_H
#define KTB_STATISTICS_H

#include <stddef.h>
#include <stdint.h>

/* The median of v[0..n-1] (n > 0; v is not changed): the middle value, or
 * the mean of the two middle ones. */
double stats_median(const double *v, size_t n);

/* The two-sided p-value of the Wilcoxon-Mann-Whitney rank-sum test of a
 * against b: the share of the ways to split the pooled samples into groups
 * of na and nb whose rank sum lies at least as far from its mean as a's
 * does, ties taking their mean rank (the exact permutation distribution of
 * the midrank sum, so ties are allowed). na and nb at least 1 and na + nb
 * at most STATS_EXACT_MAX; else -1. */
#define STATS_EXACT_MAX 200
double stats_rank_test(const double *a, size_t na, const double *b, size_t nb);

/* The ratio of the medians, median(b) / median(a), with a percentile
 * bootstrap interval at the given confidence (0.95: 2.5th to 97.5th
 * percentile of `rounds` ratios of the medians of samples drawn with
 * replacement from each side; rounds 0: STATS_BOOT_ROUNDS). 0 and the
 * three values; -1 when a side is empty or a median is not above 0. */
#define STATS_BOOT_ROUNDS 2000
int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double confidence,
		   unsigned rounds, double *ratio, double *lo, double *hi);

/* Holm's step-down correction, in place: p[0..m-1] become the adjusted
 * p-values (each compared with the level itself keeps the family-wise
 * error at that level over all m). */
void stats_holm(double *p, size_t m);

#endif
