#include "report_json.h"

#include <errno.h>

#include "samples.h"

int report_json_write(json_t *j, FILE *f)
{
	int ret = 0;

	if (!j)
		return -ENOMEM;
	if (json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF)
		ret = -EIO;
	json_decref(j);
	return ret;
}

/* The whole-run document of result.c and its samples (samples.h), before
 * the version, which stays last. */
int report_json(const struct run_result *r, FILE *f)
{
	json_t *j = run_result_to_json(r), *samples = run_result_samples(r), *v;

	if (j && samples) {
		v = json_incref(json_object_get(j, "schema_version"));
		json_object_del(j, "schema_version");
		json_object_set_new(j, "samples", samples);
		json_object_set_new(j, "schema_version", v);
	} else {
		json_decref(samples);
	}
	return report_json_write(j, f);
}
