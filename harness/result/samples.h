/* Samples (docs/results.md, "Samples"): each scenario's metrics over its
 * runs, one list per metric, what `ktb compare` compares. A run's
 * document carries them as "samples"; with --repeat N a metric has a value
 * from each run that passed, and a device's suspend or resume callback one
 * from each cycle. */
#ifndef KTB_SAMPLES_H
#define KTB_SAMPLES_H

#include <jansson.h>

struct run_result;

/* {NAME: {METRIC: {"unit", "better", "values", "n", "median", "min",
 * "max"}}} over the scenarios' runs that passed (NAME without "#N"); NULL
 * when none has a number. unit: "ms", "us", "s", "MB", "KB" or null;
 * better: "lower" for those (a time, a size), null where the name says
 * nothing of it. */
json_t *run_result_samples(const struct run_result *r);

/* The unit and direction the metric's name says: "ms" for NAME_ms and so
 * on (lower is better), NULL and NULL for any other name. */
void samples_unit(const char *metric, const char **unit, const char **better);

#endif
