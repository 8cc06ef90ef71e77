/* Comparing two runs' samples (compare.h). */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "result.h"
#include "samples.h"
#include "statistics.h"
#include "util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the keys of objects a and b (either may be NULL), each once, sorted */
static const char **union_keys(const json_t *a, const json_t *b, size_t *n)
{
	const json_t *both[] = { a, b };
	const char **k = xcalloc(json_object_size(a) + json_object_size(b) + 1, sizeof(*k)), *key;
	json_t *v;

	*n = 0;
	for (int s = 0; s < 2; s++)
		json_object_foreach ((json_t *)both[s], key, v)
			if (!s || !json_object_get(a, key))
				k[(*n)++] = key;
	qsort(k, *n, sizeof(*k), cmp_str);
	return k;
}

/* the names of r's scenarios, without "#N", as an object's keys */
static json_t *scenario_names(const struct run_result *r)
{
	json_t *o = json_object();

	for (size_t i = 0; i < r->count; i++) {
		char *n = result_base_name(r->scenarios[i].name);

		json_object_set_new(o, n, json_true());
		free(n);
	}
	return o;
}

static double *numbers(const json_t *m, size_t *n)
{
	json_t *values = json_object_get(m, "values"), *v;
	double *x = xcalloc(json_array_size(values) + 1, sizeof(*x));
	size_t i;

	*n = json_array_size(values);
	json_array_foreach (values, i, v)
		x[i] = json_number_value(v);
	return x;
}

static json_t *side(const json_t *m)
{
	return json_pack("{s:O, s:O, s:O}", "n", json_object_get(m, "n"), "median",
			 json_object_get(m, "median"), "values", json_object_get(m, "values"));
}

/* One row: the samples of both sides, the ratio and its interval, the
 * uncorrected p (its verdict comes once every p is known). */
static json_t *row(const char *scenario, const char *metric, const json_t *a, const json_t *b,
		   const struct compare_opts *o)
{
	size_t na, nb;
	double *x = numbers(a, &na), *y = numbers(b, &nb), ratio, lo, hi;
	json_t *r = json_pack("{s:s, s:s, s:O, s:O, s:o, s:o}", "scenario", scenario, "metric",
			      metric, "unit", json_object_get(a, "unit"), "better",
			      json_object_get(a, "better"), "base", side(a), "new", side(b));

	json_object_set_new(r, "p", json_real(stats_rank_test(x, na, y, nb)));
	if (!stats_ratio_ci(x, na, y, nb, o->confidence, 0, &ratio, &lo, &hi)) {
		json_object_set_new(r, "ratio", json_real(ratio));
		json_object_set_new(r, "ci", json_pack("[f, f]", lo, hi));
	} else {
		json_object_set_new(r, "ratio", json_null());
		json_object_set_new(r, "ci", json_null());
	}
	free(x);
	free(y);
	return r;
}

static double median_of(const json_t *r, const char *side)
{
	return json_number_value(json_object_get(json_object_get(r, side), "median"));
}

/* The verdict of a row whose corrected p is known. */
static void judge(json_t *r, const struct compare_opts *o)
{
	double p = json_number_value(json_object_get(r, "p_holm"));
	double ratio = json_number_value(json_object_get(r, "ratio"));
	const char *better = json_string_value(json_object_get(r, "better"));
	const char *unit = json_string_value(json_object_get(r, "unit"));
	bool time = unit && (!strcmp(unit, "ms") || !strcmp(unit, "us") || !strcmp(unit, "s"));
	const char *v = "no change";
	bool regression = false;

	double ma = median_of(r, "base"), mb = median_of(r, "new");
	/* a median of 0 on one side has no ratio, but a change from or to 0 is
	 * larger than any threshold: the test alone decides it */
	bool from0 = json_is_null(json_object_get(r, "ratio"));

	if (from0 ? ma != mb && p < 1 - o->confidence
		  : p < 1 - o->confidence && fabs(ratio - 1) >= o->threshold) {
		bool up = from0 ? mb > ma : ratio > 1;

		if (!better)
			v = up ? "higher" : "lower";
		else if (time)
			v = up ? "slower" : "faster";
		else
			v = up ? "larger" : "smaller";
		regression = better && up;
	}
	if (from0 && strcmp(v, "no change"))
		json_object_set_new(r, "verdict",
				    json_sprintf("%s (a median of 0 on one side)", v));
	else
		json_object_set_new(r, "verdict", json_string(v));
	json_object_set_new(r, "regression", json_boolean(regression));
}

/* A slower suspend, resume or cycle: the slower device callback of the
 * same scenario and half whose median grew most. */
static void explain(json_t *rows)
{
	json_t *r, *d;
	size_t i, j;

	json_array_foreach (rows, i, r) {
		const char *m = json_string_value(json_object_get(r, "metric"));
		const char *half = !strcmp(m, "suspend_ms") ? " suspend: "
				   : !strcmp(m, "resume_ms") || !strcmp(m, "cycle_ms") ? " resume: "
										       : NULL;
		const char *best = NULL;
		double grew = 0;

		if (!half || !json_is_true(json_object_get(r, "regression")))
			continue;
		json_array_foreach (rows, j, d) {
			const char *dm = json_string_value(json_object_get(d, "metric"));
			double g = json_number_value(
				       json_object_get(json_object_get(d, "new"), "median")) -
				   json_number_value(
				       json_object_get(json_object_get(d, "base"), "median"));

			if (strcmp(json_string_value(json_object_get(d, "scenario")),
				   json_string_value(json_object_get(r, "scenario"))) ||
			    !strstr(dm, half) || !json_is_true(json_object_get(d, "regression")) ||
			    g <= grew)
				continue;
			best = dm;
			grew = g;
		}
		if (best)
			json_object_set_new(r, "because", json_string(best));
	}
}

static int check_scenarios(const json_t *a, const json_t *b, char *why, size_t whylen)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)a, key, v)
		if (!json_object_get(b, key))
			return say_err(why, whylen, -EINVAL,
				       "scenario %s is in the base run only: compare runs of "
				       "the same scenarios",
				       key);
	json_object_foreach ((json_t *)b, key, v)
		if (!json_object_get(a, key))
			return say_err(why, whylen, -EINVAL,
				       "scenario %s is in the new run only: compare runs of "
				       "the same scenarios",
				       key);
	return 0;
}

/* rows for every metric of one scenario; one side only: not comparable */
static void compare_scenario(const char *name, const json_t *a, const json_t *b,
			     const struct compare_opts *o, json_t *rows, json_t *lonely)
{
	size_t n;
	const char **keys = union_keys(a, b, &n);

	for (size_t k = 0; k < n; k++) {
		json_t *x = json_object_get(a, keys[k]), *y = json_object_get(b, keys[k]);

		if (x && y)
			json_array_append_new(rows, row(name, keys[k], x, y, o));
		else
			json_array_append_new(lonely, json_pack("{s:s, s:s, s:s}", "scenario", name,
								"metric", keys[k], "only_in",
								x ? "base" : "new"));
	}
	free(keys);
}

static long long side_count(const json_t *o, const char *side, const char *what)
{
	return (long long)json_integer_value(json_object_get(json_object_get(o, side), what));
}

/* an outcome whose runs all passed on both sides: nothing to say */
static bool all_passed(const json_t *o)
{
	return side_count(o, "base", "pass") == side_count(o, "base", "runs") &&
	       side_count(o, "new", "pass") == side_count(o, "new", "runs");
}

static void bump(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	json_integer_set(v, json_integer_value(v) + 1);
}

/* Each scenario's runs and passes on both sides, sorted by name. A run
 * that did not pass measured something else or nothing and gives no
 * samples (samples.c), so a new side that fails would leave its metrics
 * not comparable and the comparison silent: a scenario whose new runs
 * pass less often than its base runs is a regression of its own. */
static json_t *outcomes(const struct run_result *a, const struct run_result *b)
{
	const struct run_result *sides[] = { a, b };
	json_t *by = json_object(), *rows = json_array();
	const char **names;
	size_t n;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->count; i++) {
			char *name = result_base_name(sides[s]->scenarios[i].name);
			json_t *e = json_object_get(by, name), *c;

			if (!e) {
				e = json_pack("{s:s, s:{s:i, s:i}, s:{s:i, s:i}}", "scenario", name,
					      "base", "runs", 0, "pass", 0, "new", "runs", 0,
					      "pass", 0);
				json_object_set_new(by, name, e);
			}
			free(name);
			c = json_object_get(e, s ? "new" : "base");
			bump(c, "runs");
			if (sides[s]->scenarios[i].status == ST_PASS)
				bump(c, "pass");
		}
	names = union_keys(by, NULL, &n);
	for (size_t k = 0; k < n; k++) {
		json_t *e = json_object_get(by, names[k]);
		long long ra = side_count(e, "base", "runs"), pa = side_count(e, "base", "pass");
		long long rb = side_count(e, "new", "runs"), pb = side_count(e, "new", "pass");
		/* pb / rb against pa / ra, in integers */
		long long d = pb * ra - pa * rb;

		json_object_set_new(e, "verdict",
				    json_string(d < 0	? "passes less"
						: d > 0 ? "passes more"
							: "same"));
		json_object_set_new(e, "regression", json_boolean(d < 0));
		json_array_append(rows, e);
	}
	free(names);
	json_decref(by);
	return rows;
}

int compare_runs(const struct run_result *base, const struct run_result *new,
		 const struct compare_opts *o, json_t **out, char *why, size_t whylen)
{
	json_t *na = scenario_names(base), *nb = scenario_names(new);
	json_t *sa = run_result_samples(base), *sb = run_result_samples(new);
	json_t *rows = json_array(), *lonely = json_array(), *r;
	const char **names;
	size_t n, i, m;
	double *p;
	int ret = check_scenarios(na, nb, why, whylen);

	if (ret)
		goto out;
	names = union_keys(sa, sb, &n);
	for (size_t k = 0; k < n; k++)
		compare_scenario(names[k], json_object_get(sa, names[k]),
				 json_object_get(sb, names[k]), o, rows, lonely);
	free(names);
	/* Holm over every comparison made */
	m = json_array_size(rows);
	p = xcalloc(m + 1, sizeof(*p));
	json_array_foreach (rows, i, r)
		p[i] = json_number_value(json_object_get(r, "p"));
	stats_holm(p, m);
	json_array_foreach (rows, i, r) {
		json_object_set_new(r, "p_holm", json_real(p[i]));
		judge(r, o);
	}
	free(p);
	explain(rows);
	*out = json_pack("{s:f, s:f, s:s, s:s, s:s, s:O, s:O}", "threshold", o->threshold,
			 "confidence", o->confidence, "test",
			 "Wilcoxon-Mann-Whitney rank sum, exact over midranks (two-sided)",
			 "interval", "percentile bootstrap of the ratio of medians, 2000 rounds",
			 "correction", "Holm", "comparisons", rows, "not_comparable", lonely);
	json_object_set_new(*out, "outcomes", outcomes(base, new));
	json_object_set_new(*out, "regressions",
			    json_integer((json_int_t)compare_regressions(*out)));
out:
	json_decref(na);
	json_decref(nb);
	json_decref(sa);
	json_decref(sb);
	json_decref(rows);
	json_decref(lonely);
	return ret;
}

size_t compare_regressions(const json_t *doc)
{
	json_t *r;
	size_t i, n = 0;

	json_array_foreach (json_object_get(doc, "comparisons"), i, r)
		n += json_is_true(json_object_get(r, "regression"));
	json_array_foreach (json_object_get(doc, "outcomes"), i, r)
		n += json_is_true(json_object_get(r, "regression"));
	return n;
}

/* the order rows are shown in: regressions, other changes, the rest */
static int rank_of(const json_t *r)
{
	if (json_is_true(json_object_get(r, "regression")))
		return 0;
	return strcmp(json_string_value(json_object_get(r, "verdict")), "no change") ? 1 : 2;
}

static const json_t **ordered(const json_t *doc, size_t *n)
{
	json_t *rows = json_object_get(doc, "comparisons");
	const json_t **o = xcalloc(json_array_size(rows) + 1, sizeof(*o));

	*n = 0;
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < json_array_size(rows); i++)
			if (rank_of(json_array_get(rows, i)) == rank)
				o[(*n)++] = json_array_get(rows, i);
	return o;
}

static void print_row(const json_t *r, FILE *f)
{
	const char *unit = json_string_value(json_object_get(r, "unit"));
	json_t *ci = json_object_get(r, "ci");

	fprintf(f, "%-24s %-44s %10.4g %10.4g %-3s",
		json_string_value(json_object_get(r, "scenario")),
		json_string_value(json_object_get(r, "metric")), median_of(r, "base"),
		median_of(r, "new"), unit ? unit : "");
	if (json_is_array(ci))
		fprintf(f, " %6.3f [%.3f, %.3f]", json_number_value(json_object_get(r, "ratio")),
			json_number_value(json_array_get(ci, 0)),
			json_number_value(json_array_get(ci, 1)));
	else
		fprintf(f, " %6s %16s", "-", "");
	fprintf(f, " %8.2g  %s\n", json_number_value(json_object_get(r, "p_holm")),
		json_string_value(json_object_get(r, "verdict")));
	if (json_object_get(r, "because"))
		fprintf(f, "%-24s   because: %s\n", "",
			json_string_value(json_object_get(r, "because")));
}

void compare_print(const json_t *doc, FILE *f)
{
	size_t n, i;
	const json_t **rows = ordered(doc, &n);
	json_t *l;

	fprintf(f, "%-24s %-44s %10s %10s %-3s %6s %16s %8s  %s\n", "scenario", "metric", "base",
		"new", "", "ratio", "interval", "p", "verdict");
	for (size_t k = 0; k < n; k++)
		print_row(rows[k], f);
	json_array_foreach (json_object_get(doc, "not_comparable"), i, l)
		fprintf(f, "%-24s %-44s not comparable: in the %s run only\n",
			json_string_value(json_object_get(l, "scenario")),
			json_string_value(json_object_get(l, "metric")),
			json_string_value(json_object_get(l, "only_in")));
	json_array_foreach (json_object_get(doc, "outcomes"), i, l)
		if (!all_passed(l))
			fprintf(f, "%-24s %-44s base %lld of %lld, new %lld of %lld: %s\n",
				json_string_value(json_object_get(l, "scenario")), "runs passed",
				side_count(l, "base", "pass"), side_count(l, "base", "runs"),
				side_count(l, "new", "pass"), side_count(l, "new", "runs"),
				json_string_value(json_object_get(l, "verdict")));
	fprintf(f,
		"compare: %zu metrics compared, %zu regressions (threshold %.0f%%, "
		"confidence %.0f%%, Holm over all)\n",
		n, compare_regressions(doc),
		100 * json_number_value(json_object_get(doc, "threshold")),
		100 * json_number_value(json_object_get(doc, "confidence")));
	free(rows);
}

static void html_text(FILE *f, const char *s)
{
	html_escape(f, s, strlen(s));
}

/* the samples of both sides as dots on one scale, a tick at each median */
static void html_plot(const json_t *r, FILE *f)
{
	static const char *const sides[] = { "base", "new" };
	double lo = INFINITY, hi = -INFINITY;
	json_t *v;
	size_t i;

	for (int s = 0; s < 2; s++)
		json_array_foreach (json_object_get(json_object_get(r, sides[s]), "values"), i, v) {
			lo = fmin(lo, json_number_value(v));
			hi = fmax(hi, json_number_value(v));
		}
	if (hi <= lo)
		hi = lo + 1;
	fprintf(f, "<svg width=\"640\" height=\"70\" role=\"img\">\n");
	for (int s = 0; s < 2; s++) {
		double y = 20 + 30 * s, med = 90 + 530 * (median_of(r, sides[s]) - lo) / (hi - lo);

		fprintf(f, "<text x=\"0\" y=\"%.0f\">%s</text>\n", y + 4, sides[s]);
		json_array_foreach (json_object_get(json_object_get(r, sides[s]), "values"), i, v)
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.0f\" r=\"3\" fill=\"%s\" "
				"fill-opacity=\"0.6\"><title>%g</title></circle>\n",
				90 + 530 * (json_number_value(v) - lo) / (hi - lo), y,
				s ? "#c0392b" : "#2c7fb8", json_number_value(v));
		fprintf(
		    f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n",
		    med, med, y - 9, y + 9);
	}
	fprintf(f, "</svg>\n");
}

void compare_html(const json_t *doc, FILE *f)
{
	size_t n, i;
	json_t *l;
	const json_t **rows = ordered(doc, &n);

	fprintf(f,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ktb compare</title>"
		"<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}"
		".regression{background:#fdd}</style></head><body>\n<h1>ktb compare</h1>\n"
		"<p>%zu regressions; threshold %.0f%%, confidence %.0f%%, Holm over %zu "
		"comparisons.</p>\n<table>\n<tr><th>scenario</th><th>metric</th><th>base</th>"
		"<th>new</th><th>ratio</th><th>p</th><th>verdict</th></tr>\n",
		compare_regressions(doc),
		100 * json_number_value(json_object_get(doc, "threshold")),
		100 * json_number_value(json_object_get(doc, "confidence")), n);
	for (size_t k = 0; k < n; k++) {
		const json_t *r = rows[k];

		fprintf(f, "<tr id=\"row-%zu\"%s><td>", k,
			json_is_true(json_object_get(r, "regression")) ? " class=\"regression\""
								       : "");
		html_text(f, json_string_value(json_object_get(r, "scenario")));
		fprintf(f, "</td><td>");
		html_text(f, json_string_value(json_object_get(r, "metric")));
		fprintf(f, "</td><td>%g</td><td>%g</td><td>", median_of(r, "base"),
			median_of(r, "new"));
		if (json_is_null(json_object_get(r, "ratio")))
			fprintf(f, "-");
		else
			fprintf(f, "%.3f", json_number_value(json_object_get(r, "ratio")));
		fprintf(f, "</td><td>%.2g</td><td>%s</td></tr>\n",
			json_number_value(json_object_get(r, "p_holm")),
			json_string_value(json_object_get(r, "verdict")));
	}
	fprintf(f, "</table>\n");
	json_array_foreach (json_object_get(doc, "outcomes"), i, l) {
		if (all_passed(l))
			continue;
		fprintf(f, "<p%s>",
			json_is_true(json_object_get(l, "regression")) ? " class=\"regression\""
								       : "");
		html_text(f, json_string_value(json_object_get(l, "scenario")));
		fprintf(f, ": runs passed: base %lld of %lld, new %lld of %lld: %s</p>\n",
			side_count(l, "base", "pass"), side_count(l, "base", "runs"),
			side_count(l, "new", "pass"), side_count(l, "new", "runs"),
			json_string_value(json_object_get(l, "verdict")));
	}
	for (size_t k = 0; k < n && rank_of(rows[k]) < 2; k++) {
		fprintf(f, "<h2 id=\"plot-%zu\">", k);
		html_text(f, json_string_value(json_object_get(rows[k], "scenario")));
		fprintf(f, ": ");
		html_text(f, json_string_value(json_object_get(rows[k], "metric")));
		fprintf(f, " (%s)</h2>\n", json_string_value(json_object_get(rows[k], "verdict")));
		html_plot(rows[k], f);
	}
	fprintf(f, "</body></html>\n");
	free(rows);
}
