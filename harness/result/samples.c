/* Samples: the numbers of each run's metrics and of the kernel's
 * per-device suspend and resume times, gathered per scenario. */
#include "samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "statistics.h"
#include "util.h"

/* a name's ending, its unit; all of them lower is better */
static const struct {
	const char *suffix, *unit;
} units[] = {
	{ "_ms", "ms" }, { "_us", "us" }, { "_s", "s" }, { "_mb", "MB" }, { "_kb", "KB" },
};

void samples_unit(const char *metric, const char **unit, const char **better)
{
	size_t n = strlen(metric);

	*unit = *better = NULL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i].suffix);

		if (n > k && !strcmp(metric + n - k, units[i].suffix)) {
			*unit = units[i].unit;
			*better = "lower";
			return;
		}
	}
}

/* values[] of metric key in the scenario's samples, made with its unit */
static json_t *values_of(json_t *scenario, const char *key, const char *unit, const char *better)
{
	json_t *m = json_object_get(scenario, key);

	if (!m) {
		m = json_pack("{s:o, s:o, s:[]}", "unit", unit ? json_string(unit) : json_null(),
			      "better", better ? json_string(better) : json_null(), "values");
		json_object_set_new(scenario, key, m);
	}
	return json_object_get(m, "values");
}

/* every number in metrics, nested objects' keys joined by "." (lists,
 * such as pm_cycles, are the steps' detail: left out); a key without a
 * unit of its own takes its parent's (qemu_rss_mb.NAME is in MB) */
static void add_metrics(json_t *scenario, const json_t *metrics, const char *prefix,
			const char *unit, const char *better)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)metrics, key, v) {
		char *name = prefix ? xasprintf("%s.%s", prefix, key) : xstrdup(key);
		const char *u, *b;

		samples_unit(key, &u, &b);
		if (!u) {
			u = unit;
			b = better;
		}
		if (json_is_object(v))
			add_metrics(scenario, v, name, u, b);
		else if (json_is_number(v))
			json_array_append_new(values_of(scenario, name, u, b),
					      json_real(json_number_value(v)));
		free(name);
	}
}

/* each cycle's per-device callback times of a suspend step (its data's
 * kernel.cycles[].devices.suspend/resume: the slowest, pmlog.c), one
 * sample per cycle: "step K resume: DEVICE CALLBACK [MODULE]" in us */
static void add_devices(json_t *scenario, unsigned k, const json_t *data)
{
	json_t *cycles = json_object_get(json_object_get(data, "kernel"), "cycles"), *c;
	size_t i;

	json_array_foreach (cycles, i, c) {
		static const char *const halves[] = { "suspend", "resume" };

		for (size_t h = 0; h < 2; h++) {
			json_t *list = json_object_get(json_object_get(c, "devices"), halves[h]),
			       *d;
			size_t j;

			json_array_foreach (list, j, d) {
				const char *drv = json_string_value(json_object_get(d, "driver"));
				/* the device as the kernel names it (driver and
				 * device), the callback, and its module if any */
				char *key =
				    xasprintf("step %u %s: %s %s%s%s%s", k, halves[h],
					      json_string_value(json_object_get(d, "device")),
					      json_string_value(json_object_get(d, "callback")),
					      drv ? " [" : "", drv ? drv : "", drv ? "]" : "");

				json_array_append_new(values_of(scenario, key, "us", "lower"),
						      json_real((double)json_integer_value(
							  json_object_get(d, "usecs"))));
				free(key);
			}
		}
	}
}

/* n, median, min, max beside each metric's values */
static void summarise(json_t *all)
{
	const char *name, *metric;
	json_t *scenario, *m;

	json_object_foreach (all, name, scenario) {
		json_object_foreach (scenario, metric, m) {
			json_t *values = json_object_get(m, "values"), *v;
			size_t n = json_array_size(values), i;
			double *x = xcalloc(n ? n : 1, sizeof(*x)), lo = 0, hi = 0;

			json_array_foreach (values, i, v) {
				x[i] = json_number_value(v);
				lo = !i || x[i] < lo ? x[i] : lo;
				hi = !i || x[i] > hi ? x[i] : hi;
			}
			json_object_set_new(m, "n", json_integer((json_int_t)n));
			json_object_set_new(m, "median", json_real(n ? stats_median(x, n) : 0));
			json_object_set_new(m, "min", json_real(lo));
			json_object_set_new(m, "max", json_real(hi));
			free(x);
		}
	}
}

json_t *run_result_samples(const struct run_result *r)
{
	json_t *all = json_object();

	for (size_t i = 0; i < r->count; i++) {
		const struct scenario_result *s = &r->scenarios[i];
		char *name;
		json_t *scenario;

		/* a run that failed measured something else, or nothing */
		if (s->status != ST_PASS)
			continue;
		name = result_base_name(s->name);
		scenario = json_object_get(all, name);
		if (!scenario) {
			scenario = json_object();
			json_object_set_new(all, name, scenario);
		}
		free(name);
		if (s->metrics)
			add_metrics(scenario, s->metrics, NULL, NULL, NULL);
		for (size_t k = 0; k < s->steps_count; k++)
			if (s->steps[k].data)
				add_devices(scenario, (unsigned)k, s->steps[k].data);
	}
	summarise(all);
	/* scenarios without a number (a passing run step and no more) */
	{
		const char *name;
		json_t *scenario, *tmp;

		json_object_foreach_safe(all, tmp, name, scenario) if (!json_object_size(scenario))
		    json_object_del(all, name);
	}
	if (!json_object_size(all)) {
		json_decref(all);
		return NULL;
	}
	return all;
}
