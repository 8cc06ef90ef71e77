/* ktb bisect --metric: candidates judged by their samples of one metric
 * against the ends' (cli_bisect_metric.h). */
#include "cli_bisect_metric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "result.h"
#include "samples.h"
#include "statistics.h"
#include "util.h"

int metric_validate(struct bisect_cli *c, const char *name)
{
	const char *arg = c->metric_arg, *colon = strchr(arg, ':');
	unsigned least = metric_min_samples(c->mo.confidence);

	c->name = xstrdup(name);
	/* SCENARIO:METRIC, or METRIC alone; a metric's own name may hold a
	 * colon after a space ("step 2 resume: virtio-pci 0000:00:01.0 pci_pm_resume") */
	if (colon && (size_t)(colon - arg) == strlen(name) && !strncmp(arg, name, strlen(name)))
		arg = colon + 1;
	else if (colon && !memchr(arg, ' ', (size_t)(colon - arg))) {
		cli_err("--metric %s: the scenario is named %s, not %.*s (give %s:METRIC, or the "
			"metric alone)",
			c->metric_arg, name, (int)(colon - arg), c->metric_arg, name);
		return KTB_EXIT_USAGE;
	}
	if (!*arg) {
		cli_err("--metric %s: no metric named (give %s:METRIC, as %s:boot_ms)",
			c->metric_arg, name, name);
		return KTB_EXIT_USAGE;
	}
	c->metric = xstrdup(arg);
	if (c->jobs > 2) {
		cli_err("-j %d with --metric: the candidates of a round would be timed beside one "
			"another and the ends beside fewer, so their samples would not compare; "
			"a metric is bisected one kernel at a time",
			c->jobs);
		return KTB_EXIT_USAGE;
	}
	if (!c->tries_given)
		c->tries = (int)least;
	else if (c->tries < (int)least) {
		cli_err("--tries %d with --metric: the rank test cannot reach %g%% with fewer than "
			"%u samples per kernel",
			c->tries, c->mo.confidence * 100, least);
		return KTB_EXIT_USAGE;
	}
	return 0;
}

static void samples_add(struct bisect_step *st, const json_t *values)
{
	size_t i;
	json_t *v;

	st->samples =
	    xrealloc(st->samples, (st->nsamples + json_array_size(values) + 1) * sizeof(double));
	json_array_foreach (values, i, v)
		if (json_is_number(v))
			st->samples[st->nsamples++] = json_number_value(v);
}

/* The scenario's metrics, comma-separated, for the message of a metric it
 * does not have. */
static char *metric_names(const json_t *metrics)
{
	char *s = xstrdup(""), *n;
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)metrics, key, v) {
		n = xasprintf("%s%s%s", s, *s ? ", " : "", key);
		free(s);
		s = n;
	}
	return s;
}

static bool any_passed(const struct run_result *r)
{
	for (size_t i = 0; i < r->count; i++)
		if (r->scenarios[i].status == ST_PASS)
			return true;
	return false;
}

/* The judge's document read: the metric's samples added to st. */
static void metric_collect(struct session *s, struct bisect_step *st, const char *json)
{
	struct run_result rr = { 0 };
	json_t *all, *mine, *m;

	if (run_document_load(json, &rr)) {
		st->verdict = BISECT_SKIP;
		st->why = "its run wrote no document";
		return;
	}
	all = run_result_samples(&rr);
	mine = json_object_get(all, s->c->name);
	m = json_object_get(mine, s->c->metric);
	if (m) {
		samples_add(st, json_object_get(m, "values"));
		st->verdict = BISECT_UNKNOWN;
		/* a time or a size: higher is worse */
		s->worse = json_is_string(json_object_get(m, "better")) ? 1 : 0;
	} else if (!any_passed(&rr)) {
		st->verdict = BISECT_SKIP;
		st->why = "no run passed, so no sample";
	} else {
		char *names = metric_names(mine);

		fprintf(s->out, "ktb bisect: --metric: %s has no metric %s; its runs gave: %s\n",
			s->c->name, s->c->metric, *names ? names : "none");
		free(names);
		st->verdict = BISECT_ABORT;
		st->code = KTB_EXIT_USAGE;
	}
	json_decref(all);
	run_result_free(&rr);
}

int metric_sample(struct session *s, struct bisect_step *st, const char *kernel, const char *cwd)
{
	char *json = xasprintf("%s/%02zu-%u.json", s->dir, st->num, st->runs + 1);
	char **argv = session_judge_argv(s, kernel, json);
	struct child ch = { .t0 = now_ms(), .step = (size_t)(st - s->steps) };
	int r = 0;

	session_spawn(&ch, argv, cwd, st->log);
	free(argv);
	st->runs++;
	st->boots += (unsigned)s->c->tries;
	s->boots += (unsigned)s->c->tries;
	if (ch.cp.pid < 0)
		r = KTB_EXIT_UNTESTED;
	else if (session_wait(s, &ch, 1, NULL))
		r = KTB_EXIT_INTERRUPTED;
	if (!r) {
		st->code = ch.code;
		st->ms += now_ms() - ch.t0;
		/* 1: some run failed; the ones that passed still gave samples */
		if (ch.code == 0 || ch.code == 1)
			metric_collect(s, st, json);
		else
			st->verdict = bisect_verdict_of_exit(ch.code);
	}
	free(json);
	return r;
}

static void ends_copy(double **to, size_t *n, const struct bisect_step *st)
{
	free(*to);
	*to = xcalloc(st->nsamples + 1, sizeof(double));
	if (st->nsamples)
		memcpy(*to, st->samples, st->nsamples * sizeof(double));
	*n = st->nsamples;
}

static struct metric_sample_set set_of(const double *v, size_t n)
{
	return (struct metric_sample_set){ v, n };
}

void metric_ends_update(struct session *s, const struct bisect_step *good,
			const struct bisect_step *bad)
{
	ends_copy(&s->good, &s->ngood, good);
	ends_copy(&s->bad, &s->nbad, bad);
	metric_ends_judge(set_of(s->good, s->ngood), set_of(s->bad, s->nbad), s->worse, &s->c->mo,
			  &s->ends);
}

bool metric_more(const struct bisect_step *st)
{
	return st->runs < METRIC_RUNS_MAX;
}

int metric_ends_fail(struct session *s, const char *first, const char *last)
{
	const struct metric_ends *e = &s->ends;
	const struct bisect_cli *c = s->c;

	if (e->wrong_way)
		fprintf(s->out,
			"ktb bisect: %s is better on the last candidate, not worse: median %g on "
			"%s, %g on %s (x%.3f; for it, lower is better): no slowdown to bisect\n",
			c->metric, e->good_median, first, e->bad_median, last, e->ratio);
	else if (!e->good_median || !e->bad_median)
		fprintf(s->out,
			"ktb bisect: %s cannot be compared between the ends: its median is 0 "
			"on %s\n",
			c->metric, e->good_median ? last : first);
	else
		fprintf(s->out,
			"ktb bisect: %s does not tell the ends apart: median %g on %s, %g on %s "
			"(x%.3f, p %.3g; a change needs p under %g and at least %g%%)\n",
			c->metric, e->good_median, first, e->bad_median, last, e->ratio, e->p,
			1 - c->mo.confidence, c->mo.threshold * 100);
	return KTB_EXIT_FAIL;
}

void metric_decide(struct session *s, struct bisect_step *st)
{
	metric_judge(&s->ends, set_of(s->good, s->ngood), set_of(s->bad, s->nbad),
		     set_of(st->samples, st->nsamples), &s->c->mo, &st->mj);
	st->verdict = st->mj.side == METRIC_LIKE_GOOD  ? BISECT_GOOD
		      : st->mj.side == METRIC_LIKE_BAD ? BISECT_BAD
						       : BISECT_UNKNOWN;
}

int metric_judge_candidate(struct session *s, struct bisect_step *st, const char *kernel,
			   const char *cwd)
{
	int r;

	do {
		r = metric_sample(s, st, kernel, cwd);
		if (r || st->verdict != BISECT_UNKNOWN)
			return r;
		metric_decide(s, st);
	} while (st->verdict == BISECT_UNKNOWN && metric_more(st));
	if (st->verdict == BISECT_UNKNOWN) {
		st->verdict = BISECT_SKIP;
		st->why = "undecided: like neither end at the confidence asked";
	}
	return 0;
}

void metric_step_print(const struct session *s, const struct bisect_step *st)
{
	step_print(s->out, st);
	if (!st->nsamples)
		return;
	fprintf(s->out, "         %s:", s->c->metric);
	for (size_t i = 0; i < st->nsamples; i++)
		fprintf(s->out, " %g", st->samples[i]);
	fprintf(s->out, " (median %g",
		st->mj.median ? st->mj.median : stats_median(st->samples, st->nsamples));
	if (st->mj.ratio_good)
		fprintf(s->out, "; x%.3f of the good end, p %.3g; x%.3f of the bad end, p %.3g",
			st->mj.ratio_good, st->mj.p_good, st->mj.ratio_bad, st->mj.p_bad);
	fprintf(s->out, ")\n");
	fflush(s->out);
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static int values_load(const json_t *a, double **v, size_t *n)
{
	size_t i;
	json_t *x;

	if (!json_is_array(a))
		return -1;
	free(*v);
	*v = xcalloc(json_array_size(a) + 1, sizeof(double));
	*n = 0;
	json_array_foreach (a, i, x)
		if (json_is_number(x))
			(*v)[(*n)++] = json_number_value(x);
	return 0;
}

int metric_ends_save(const struct session *s)
{
	char *path = xasprintf("%s/ends.json", s->dir);
	json_t *j = json_pack("{s:o, s:o, s:i}", "good", values_json(s->good, s->ngood), "bad",
			      values_json(s->bad, s->nbad), "worse", s->worse);
	int r = json_dump_file(j, path, JSON_COMPACT) ? -1 : 0;

	if (r)
		fprintf(stderr, "ktb bisect: cannot write %s\n", path);
	json_decref(j);
	free(path);
	return r;
}

int metric_ends_load(struct session *s)
{
	char *path = xasprintf("%s/ends.json", s->dir);
	json_t *j = json_load_file(path, 0, NULL);
	int r = 0;

	if (values_load(json_object_get(j, "good"), &s->good, &s->ngood) ||
	    values_load(json_object_get(j, "bad"), &s->bad, &s->nbad)) {
		fprintf(stderr, "ktb bisect: cannot read the ends' samples from %s\n", path);
		r = -1;
	} else {
		s->worse = (int)json_integer_value(json_object_get(j, "worse"));
		metric_ends_judge(set_of(s->good, s->ngood), set_of(s->bad, s->nbad), s->worse,
				  &s->c->mo, &s->ends);
	}
	json_decref(j);
	free(path);
	return r;
}

static char *step_samples_path(const struct session *s, const struct bisect_step *st)
{
	return xasprintf("%s/%02zu.samples.json", s->dir, st->num);
}

void metric_step_save(const struct session *s, const struct bisect_step *st)
{
	char *path = step_samples_path(s, st);
	json_t *j = json_object();

	metric_step_json(st, j);
	json_object_set_new(j, "runs", json_integer(st->runs));
	json_dump_file(j, path, JSON_COMPACT);
	json_decref(j);
	free(path);
}

void metric_step_load(const struct session *s, struct bisect_step *st)
{
	char *path = step_samples_path(s, st);
	json_t *j = json_load_file(path, 0, NULL);

	if (j && !values_load(json_object_get(j, "samples"), &st->samples, &st->nsamples)) {
		struct metric_judgement *m = &st->mj;

		st->runs = (unsigned)json_integer_value(json_object_get(j, "runs"));
		m->median = json_number_value(json_object_get(j, "median"));
		m->ratio_good = json_number_value(json_object_get(j, "ratio_good"));
		m->ratio_bad = json_number_value(json_object_get(j, "ratio_bad"));
		m->p_good = json_number_value(json_object_get(j, "p_good"));
		m->p_bad = json_number_value(json_object_get(j, "p_bad"));
	}
	json_decref(j);
	free(path);
}

json_t *metric_json(const struct session *s)
{
	const struct metric_ends *e = &s->ends;

	return json_pack("{s:s, s:s, s:f, s:f, s:i, s:i, s:s, s:{s:o, s:f, s:o, s:f, s:f, s:f, "
			 "s:b}}",
			 "scenario", s->c->name, "name", s->c->metric, "threshold",
			 s->c->mo.threshold, "confidence", s->c->mo.confidence, "samples_per_run",
			 s->c->tries, "runs_max", METRIC_RUNS_MAX, "test",
			 "Wilcoxon-Mann-Whitney rank sum against each end, Holm over the two",
			 "ends", "good", values_json(s->good, s->ngood), "good_median",
			 e->good_median, "bad", values_json(s->bad, s->nbad), "bad_median",
			 e->bad_median, "ratio", e->ratio, "p", e->p, "apart", e->ok);
}

void metric_step_json(const struct bisect_step *st, json_t *o)
{
	if (!st->nsamples)
		return;
	json_object_set_new(o, "samples", values_json(st->samples, st->nsamples));
	json_object_set_new(o, "median", json_real(stats_median(st->samples, st->nsamples)));
	if (!st->mj.ratio_good)
		return;
	json_object_set_new(o, "ratio_good", json_real(st->mj.ratio_good));
	json_object_set_new(o, "ratio_bad", json_real(st->mj.ratio_bad));
	json_object_set_new(o, "p_good", json_real(st->mj.p_good));
	json_object_set_new(o, "p_bad", json_real(st->mj.p_bad));
}
