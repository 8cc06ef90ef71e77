/* The HTML report of a run document that `ktb run --json` wrote, read back
 * the way `-j` reads its workers' results: for the browser check of the
 * page (t_html_page.sh), which needs pages no VM has to produce. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report_html.h"
#include "util.h"

static int load_run(const char *path, struct run_result *r)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err), *list, *v;
	const char *started;
	struct tm tm = { 0 };
	size_t i;

	list = json_object_get(doc, "scenarios");
	if (!json_is_array(list)) {
		fprintf(stderr, "html_page: %s: not a run document (%s)\n", path, err.text);
		json_decref(doc);
		return -1;
	}
	r->run_id = xstrdup(json_string_value(json_object_get(doc, "run_id")));
	r->duration_ms = json_integer_value(json_object_get(doc, "duration_ms"));
	started = json_string_value(json_object_get(doc, "started"));
	if (started && strptime(started, "%Y-%m-%dT%H:%M:%SZ", &tm))
		r->started_unix_ms = (int64_t)timegm(&tm) * 1000;
	r->scenarios = xcalloc(json_array_size(list) + 1, sizeof(*r->scenarios));
	json_array_foreach (list, i, v)
		if (scenario_result_from_json(v, &r->scenarios[r->count++])) {
			fprintf(stderr, "html_page: %s: scenario %zu is not a result\n", path, i);
			json_decref(doc);
			return -1;
		}
	json_decref(doc);
	return 0;
}

int main(int argc, char **argv)
{
	struct run_result r = { 0 };
	FILE *f;
	int ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: html_page RUN.json OUT.html\n");
		return 2;
	}
	if (load_run(argv[1], &r))
		goto out;
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		goto out;
	}
	ret = report_html(&r, f) || fclose(f) ? 1 : 0;
out:
	run_result_free(&r);
	return ret;
}
