#include "report_json.h"

#include <errno.h>

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

/* The whole-run document of result.c. */
int report_json(const struct run_result *r, FILE *f)
{
	return report_json_write(run_result_to_json(r), f);
}
