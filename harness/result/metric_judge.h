/* A metric's samples judged against two references (ktb bisect --metric,
 * docs/bisect.md "Bisecting a slowdown"): the samples of the last good and
 * the first bad end of a bisection set the two distributions, and a
 * candidate is like the good end when it tests apart from the bad one, like
 * the bad end when it tests apart from the good one, and undecided
 * otherwise, never guessed. "Apart" is ktb compare's verdict for one pair:
 * the rank test under 1 - confidence (Holm over the two tests a candidate
 * takes) and a change of the medians of at least the threshold, in the
 * direction the ends differ in. Pure functions, as statistics.h. */
#ifndef KTB_METRIC_JUDGE_H
#define KTB_METRIC_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

struct metric_opts {
	double threshold;  /* the smallest change that counts: 0.10 */
	double confidence; /* 0.95 */
};

struct metric_sample_set {
	const double *v;
	size_t n;
};

enum metric_side {
	METRIC_UNDECIDED,
	METRIC_LIKE_GOOD,
	METRIC_LIKE_BAD,
};

/* How the ends differ: ratio = median(bad) / median(good), p the rank
 * test's; ok when p < 1 - confidence and |ratio - 1| >= threshold, the bad
 * end worse: worse is +1 when a higher value is worse (a time, a size), -1
 * when a lower one is, 0 when the metric does not say (either way then);
 * wrong_way when it went the other way by the threshold. A side without
 * samples, or a median that is not above 0, is not ok either (no ratio:
 * ratio 0). */
struct metric_ends {
	double good_median, bad_median, ratio, p;
	bool ok, wrong_way;
};
void metric_ends_judge(struct metric_sample_set good, struct metric_sample_set bad, int worse,
		       const struct metric_opts *o, struct metric_ends *e);

/* One candidate against ends that are ok: its median, its ratios to each
 * end's median (median(x) / median(end)), the two p-values after Holm's
 * correction, whether it tests apart from each end, and the side. A
 * candidate apart from both (between the ends: a change in two steps, or a
 * smaller one) is undecided too. */
struct metric_judgement {
	double median, ratio_good, ratio_bad, p_good, p_bad;
	bool apart_good, apart_bad;
	enum metric_side side;
};
void metric_judge(const struct metric_ends *e, struct metric_sample_set good,
		  struct metric_sample_set bad, struct metric_sample_set x,
		  const struct metric_opts *o, struct metric_judgement *j);

/* The fewest samples n per side with which an n-against-n rank test can
 * reach 1 - confidence at all, halved for the correction over two tests:
 * the least n with 2 / C(2n, n) < (1 - confidence) / 2 (5 at 95%). */
unsigned metric_min_samples(double confidence);

#endif
