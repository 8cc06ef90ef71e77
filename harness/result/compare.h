/* ktb compare (docs/results.md, "Comparing runs"): every scenario and
 * metric two runs both have samples of, compared: the medians, their
 * ratio with a bootstrap interval, the rank test's p-value corrected for
 * the number of comparisons (Holm), and a verdict that needs both the test
 * and a minimum effect, so that noise is never a regression. */
#ifndef KTB_COMPARE_H
#define KTB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct run_result;

struct compare_opts {
	double threshold;  /* the smallest change that counts: 0.10 */
	double confidence; /* 0.95: a change needs a corrected p under 0.05 */
};

/* The comparison of base and new as a JSON document (docs/results.md):
 * 0 and *out; -EINVAL with why when a scenario is in one run only (named). */
int compare_runs(const struct run_result *base, const struct run_result *new,
		 const struct compare_opts *o, json_t **out, char *why, size_t whylen);

/* How many comparisons of the document are regressions. */
size_t compare_regressions(const json_t *doc);

/* The terminal's table: regressions first, then improvements, then the
 * rest; each slower suspend or resume with the device that explains most
 * of it. */
void compare_print(const json_t *doc, FILE *f);

/* One self-contained HTML page: the table, and for each metric that
 * changed the samples of both sides on one scale. */
void compare_html(const json_t *doc, FILE *f);

#endif
