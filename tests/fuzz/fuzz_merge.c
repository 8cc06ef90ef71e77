/* libFuzzer target: any bytes as run documents (ktb run --json) given to
 * ktb merge: the input cut at each 0x1e into up to MAX_DOCS files, merged
 * by cli_merge into every report it writes (JSON, JUnit, TAP, HTML,
 * KCIDB). It must exit 2 for inputs it refuses, writing nothing, or with
 * the run's exit code having written every report; the merged document
 * must read back as a run document. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "cli_merge.h"
#include "fuzz_util.h"
#include "result.h"

#define MAX_DOCS 6

static const char *const reports[][2] = {
	{ "--json", "m.json" }, { "--junit", "m.xml" },	       { "--tap", "m.tap" },
	{ "--html", "m.html" }, { "--kcidb", "m-kcidb.json" },
};
#define NREPORTS (sizeof(reports) / sizeof(reports[0]))

static char *out_path(size_t i)
{
	static char path[NREPORTS][256];

	snprintf(path[i], sizeof(path[i]), "%s/%s", fuzz_dir(), reports[i][1]);
	return path[i];
}

static void check_written(int rc)
{
	struct run_result r;
	json_t *j;
	char why[300];

	for (size_t i = 0; i < NREPORTS; i++)
		FUZZ_CHECK((access(out_path(i), R_OK) == 0) == (rc != KTB_EXIT_USAGE));
	if (rc == KTB_EXIT_USAGE)
		return;
	j = json_load_file(out_path(0), 0, NULL);
	FUZZ_CHECK(j);
	FUZZ_CHECK(run_result_from_json(j, &r, why, sizeof(why)) == 0);
	FUZZ_CHECK(run_result_exit_code(&r) == rc);
	run_result_free(&r);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char paths[MAX_DOCS][256], name[16], *argv[1 + MAX_DOCS + 2 * NREPORTS + 1];
	struct fuzz_parts parts;
	const uint8_t *p;
	size_t n, docs = 0;
	int argc = 0, rc;

	argv[argc++] = "merge";
	fuzz_parts_init(&parts, data, size);
	while (docs < MAX_DOCS && fuzz_parts_next(&parts, &p, &n)) {
		snprintf(name, sizeof(name), "run-%zu.json", docs);
		fuzz_file(paths[docs], sizeof(paths[docs]), name, p, n);
		argv[argc++] = paths[docs++];
	}
	for (size_t i = 0; i < NREPORTS; i++) {
		unlink(out_path(i));
		argv[argc++] = (char *)reports[i][0];
		argv[argc++] = out_path(i);
	}
	argv[argc] = NULL;
	rc = cli_merge_command.fn(argc, argv);
	FUZZ_CHECK(rc == KTB_EXIT_PASS || rc == KTB_EXIT_FAIL || rc == KTB_EXIT_USAGE ||
		   rc == KTB_EXIT_UNTESTED || rc == KTB_EXIT_INTERRUPTED);
	check_written(rc);
	return 0;
}
