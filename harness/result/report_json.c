#include "report_json.h"

#include <errno.h>

/* The whole-run document of result.c, indented and in insertion order so
 * that diffs between runs line up. */
int report_json(const struct run_result *r, FILE *f)
{
	json_t *j = run_result_to_json(r);
	int ret = 0;

	if (!j)
		return -ENOMEM;
	if (json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF)
		ret = -EIO;
	json_decref(j);
	return ret;
}
