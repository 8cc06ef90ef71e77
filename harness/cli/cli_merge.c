/* ktb merge R1.json R2.json ...: one run from many. The scenarios keep
 * the order of the inputs; the merged run began when the first input did and
 * ended when the last one did. */
#include "cli_merge.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "report_html.h"
#include "report_json.h"
#include "report_junit.h"
#include "report_kcidb.h"
#include "report_tap.h"
#include "report_term.h"
#include "runner.h"
#include "util.h"

struct merge_cli {
	const char *out, *junit, *tap, *html, *kcidb;
};

static void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: ktb merge RUN.json... [options]\n"
		"  combine the run documents of ktb run --json (CI shards) into one run\n"
		"  --out F           the merged run document\n"
		"  --junit F         JUnit XML\n"
		"  --tap F           TAP\n"
		"  --html F          one self-contained HTML page\n"
		"  --kcidb F         the KCIDB I/O schema\n"
		"Exit code: as the merged run's (0 passed, 1 failed, 125 errors), 2 bad input.\n");
}

static int merge_parse(int argc, char **argv, struct merge_cli *c)
{
	static const struct option opts[] = {
		{ "out", required_argument, 0, 'o' },
		{ "junit", required_argument, 0, 'U' },
		{ "tap", required_argument, 0, 'T' },
		{ "html", required_argument, 0, 'H' },
		{ "kcidb", required_argument, 0, 'K' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	/* one row per option: where its file name goes */
	const char **dest[] = { ['o'] = &c->out,
				['U'] = &c->junit,
				['T'] = &c->tap,
				['H'] = &c->html,
				['K'] = &c->kcidb };
	int ch;

	memset(c, 0, sizeof(*c));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ch == 'h') {
			merge_usage(stdout);
			exit(0);
		}
		if (ch < 0 || (size_t)ch >= sizeof(dest) / sizeof(dest[0]) || !dest[ch]) {
			merge_usage(stderr);
			return KTB_EXIT_USAGE;
		}
		*dest[ch] = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "ktb merge: give at least one run document (ktb run --json)\n");
		return KTB_EXIT_USAGE;
	}
	return 0;
}

static int load_one(const char *path, struct run_result *r)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	char why[300];
	int ret;

	if (!j && access(path, R_OK)) {
		fprintf(stderr, "ktb merge: %s: cannot read: %s\n", path, strerror(errno));
		return KTB_EXIT_USAGE;
	}
	if (!j) {
		fprintf(stderr, "ktb merge: %s: not a JSON file (line %d: %s)\n", path, jerr.line,
			jerr.text);
		return KTB_EXIT_USAGE;
	}
	ret = run_result_from_json(j, r, why, sizeof(why));
	json_decref(j);
	if (ret) {
		fprintf(stderr, "ktb merge: %s: %s\n", path, why);
		return KTB_EXIT_USAGE;
	}
	return 0;
}

/* a name twice would give two results one id in every report */
static const char *first_with_name(const struct run_result *m, const char *name)
{
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->scenarios[i].name ? m->scenarios[i].name : "", name))
			return m->scenarios[i].file ? m->scenarios[i].file : "";
	return NULL;
}

/* Move r's scenarios to the end of m, and widen m's time span to cover r's. */
static int absorb(struct run_result *m, struct run_result *r, const char *path)
{
	int64_t end = m->started_unix_ms + m->duration_ms;

	for (size_t i = 0; i < r->count; i++) {
		const char *name = r->scenarios[i].name ? r->scenarios[i].name : "";

		if (first_with_name(m, name)) {
			fprintf(stderr, "ktb merge: %s: scenario %s is in an earlier input too\n",
				path, name);
			return KTB_EXIT_USAGE;
		}
		m->scenarios = xrealloc(m->scenarios, (m->count + 1) * sizeof(*m->scenarios));
		m->scenarios[m->count++] = r->scenarios[i];
		memset(&r->scenarios[i], 0, sizeof(r->scenarios[i]));
	}
	if (r->started_unix_ms && (!m->started_unix_ms || r->started_unix_ms < m->started_unix_ms))
		m->started_unix_ms = r->started_unix_ms;
	if (r->started_unix_ms + r->duration_ms > end)
		end = r->started_unix_ms + r->duration_ms;
	m->duration_ms = end - m->started_unix_ms;
	if (!m->interrupted)
		m->interrupted = r->interrupted;
	return 0;
}

static int merge_all(char **paths, int n, struct run_result *m)
{
	int ret = 0;

	for (int i = 0; i < n && !ret; i++) {
		struct run_result r;

		ret = load_one(paths[i], &r);
		if (!ret)
			ret = absorb(m, &r, paths[i]);
		run_result_free(&r);
	}
	return ret;
}

static int merge_write(const struct merge_cli *c, const struct run_result *m)
{
	const struct report_file files[] = {
		{ c->out, report_json },  { c->junit, report_junit }, { c->tap, report_tap },
		{ c->html, report_html }, { c->kcidb, report_kcidb },
	};

	return reports_write(files, sizeof(files) / sizeof(files[0]), m);
}

int cli_merge(int argc, char **argv)
{
	struct merge_cli c;
	struct run_result m = { 0 };
	int ret = merge_parse(argc, argv, &c);

	if (ret)
		return ret;
	ret = merge_all(argv + optind, argc - optind, &m);
	if (ret)
		goto out;
	m.run_id = runner_new_run_id();
	report_term_summary(&m, stdout);
	ret = merge_write(&c, &m) ? KTB_EXIT_UNTESTED : run_result_exit_code(&m);
out:
	run_result_free(&m);
	return ret;
}
