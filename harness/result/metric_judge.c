/* A candidate's samples judged against the two ends of a bisection
 * (metric_judge.h). */
#include "metric_judge.h"

#include <math.h>

#include "statistics.h"

void metric_ends_judge(struct metric_sample_set good, struct metric_sample_set bad, int worse,
		       const struct metric_opts *o, struct metric_ends *e)
{
	*e = (struct metric_ends){ .p = 1 };
	if (!good.n || !bad.n)
		return;
	e->good_median = stats_median(good.v, good.n);
	e->bad_median = stats_median(bad.v, bad.n);
	if (e->good_median <= 0 || e->bad_median <= 0)
		return;
	e->ratio = e->bad_median / e->good_median;
	e->p = stats_rank_test(good.v, good.n, bad.v, bad.n);
	e->ok = e->p >= 0 && e->p < 1 - o->confidence && fabs(e->ratio - 1) >= o->threshold;
	/* a slowdown is bisected, not a speed-up that noise or a fix made */
	if (e->ok && worse && (e->ratio - 1) * worse < 0) {
		e->ok = false;
		e->wrong_way = true;
	}
}

/* x apart from ref: the ratio median(x) / median(ref) moved by at least
 * the threshold in direction dir (+1 up, -1 down), and p under the level */
static bool apart(double ratio, int dir, double p, const struct metric_opts *o)
{
	return p >= 0 && p < 1 - o->confidence && (ratio - 1) * dir >= o->threshold;
}

void metric_judge(const struct metric_ends *e, struct metric_sample_set good,
		  struct metric_sample_set bad, struct metric_sample_set x,
		  const struct metric_opts *o, struct metric_judgement *j)
{
	/* the direction the bad end went in: a slowdown up, a throughput down */
	int dir = e->ratio >= 1 ? 1 : -1;
	double p[2];

	*j = (struct metric_judgement){ .p_good = 1, .p_bad = 1, .side = METRIC_UNDECIDED };
	if (!e->ok || !x.n)
		return;
	j->median = stats_median(x.v, x.n);
	j->ratio_good = j->median / e->good_median;
	j->ratio_bad = j->median / e->bad_median;
	p[0] = stats_rank_test(good.v, good.n, x.v, x.n);
	p[1] = stats_rank_test(bad.v, bad.n, x.v, x.n);
	if (p[0] < 0 || p[1] < 0)
		return;
	stats_holm(p, 2);
	j->p_good = p[0];
	j->p_bad = p[1];
	/* apart from the good end towards the bad one; from the bad end back */
	j->apart_good = apart(j->ratio_good, dir, j->p_good, o);
	j->apart_bad = apart(j->ratio_bad, -dir, j->p_bad, o);
	if (j->apart_good != j->apart_bad)
		j->side = j->apart_good ? METRIC_LIKE_BAD : METRIC_LIKE_GOOD;
}

unsigned metric_min_samples(double confidence)
{
	double level = (1 - confidence) / 2, ways = 2; /* C(2n, n) at n = 1 */

	for (unsigned n = 1; n < 64; n++) {
		if (2 / ways < level)
			return n;
		/* C(2n + 2, n + 1) = C(2n, n) (2n + 1)(2n + 2) / (n + 1)^2 */
		ways = ways * (2.0 * n + 1) * (2.0 * n + 2) / ((n + 1.0) * (n + 1.0));
	}
	return 64;
}
