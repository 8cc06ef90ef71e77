/* ktb merge R1.json R2.json ...: one run from many. The scenarios keep
 * the order of the inputs (shards: by K); the merged run began when the
 * first input did and ended when the last one did. Shards must make one
 * whole run (shard_merge_check): a partial or mixed set is refused. */
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
#include "shard.h"
#include "util.h"

struct merge_cli {
	const char *json, *junit, *tap, *html, *kcidb;
};

static void merge_usage(FILE *f)
{
	fprintf(f, "usage: ktb merge RUN.json... [options]\n"
		   "  combine the run documents of ktb run --json (CI shards) into one run\n"
		   "  --json FILE       the merged run document (it merges again)\n"
		   "  --junit FILE      JUnit XML\n"
		   "  --tap FILE        TAP\n"
		   "  --html FILE       one self-contained HTML page\n"
		   "  --kcidb FILE      the KCIDB I/O schema\n"
		   "                    (a report's FILE - is standard output; the summary then\n"
		   "                    goes to standard error)\n"
		   "Shards (ktb run --shard K/N) must make one whole run: every K of 1..N once,\n"
		   "of one selection, kernel and run id.\n"
		   "Exit code: as the merged run's (0 passed, 1 failed, 125 errors), 2 bad input\n"
		   "or shards that are not one whole run.\n");
}

static const struct option merge_options[] = {
	{ "json", required_argument, 0, 'J' },
	{ "junit", required_argument, 0, 'U' },
	{ "tap", required_argument, 0, 'T' },
	{ "html", required_argument, 0, 'H' },
	{ "kcidb", required_argument, 0, 'K' },
	{ "help", no_argument, 0, 'h' },
	/* removed: says what to write instead */
	{ "out", required_argument, 0, 'o' },
	{ 0, 0, 0, 0 },
};
static const char *const merge_unlisted[] = { "out", NULL };

/* The reports c asks for, in the order they are written. */
static void merge_report_files(const struct merge_cli *c, struct report_file files[5])
{
	files[0] = (struct report_file){ "--json", c->json, report_json };
	files[1] = (struct report_file){ "--junit", c->junit, report_junit };
	files[2] = (struct report_file){ "--tap", c->tap, report_tap };
	files[3] = (struct report_file){ "--html", c->html, report_html };
	files[4] = (struct report_file){ "--kcidb", c->kcidb, report_kcidb };
}

static int merge_parse(int argc, char **argv, struct merge_cli *c)
{
	/* one row per option: where its file name goes */
	const char **dest[] = {
		['J'] = &c->json, ['U'] = &c->junit, ['T'] = &c->tap,
		['H'] = &c->html, ['K'] = &c->kcidb,
	};
	struct report_file files[5];
	int ch;

	memset(c, 0, sizeof(*c));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", merge_options, NULL)) != -1) {
		if (ch == 'h') {
			merge_usage(stdout);
			exit(0);
		}
		if (ch == 'o') {
			fprintf(stderr, "ktb merge: --out is now --json FILE (the merged run "
					"document, as ktb run --json writes one)\n");
			return KTB_EXIT_USAGE;
		}
		if (ch < 0 || (size_t)ch >= sizeof(dest) / sizeof(dest[0]) || !dest[ch]) {
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
		*dest[ch] = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "ktb merge: give at least one run document (ktb run --json)\n");
		return KTB_EXIT_USAGE;
	}
	merge_report_files(c, files);
	return reports_check(files, 5);
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

/* Every input read, or KTB_EXIT_USAGE after one message naming the first
 * that is not a run document. *runs holds n results either way (zeroed
 * past the bad one), for run_results_free. */
static int merge_load(char **paths, int n, struct run_result **runs)
{
	int ret = 0;

	*runs = xcalloc((size_t)n + 1, sizeof(**runs));
	for (int i = 0; i < n && !ret; i++)
		ret = run_document_load(paths[i], &(*runs)[i]);
	return ret;
}

static void merge_runs_free(struct run_result *runs, int n)
{
	for (int i = 0; runs && i < n; i++)
		run_result_free(&runs[i]);
	free(runs);
}

/* The order the inputs go in: shards by K (shard-10.json sorts before
 * shard-2.json in a glob), other runs as given. */
static void merge_order(const struct run_result *runs, int n, int *order)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		order[i] = i;
	if (!n || !runs[0].sel.shard_n)
		return;
	for (unsigned want = 1; want <= runs[0].sel.shard_n; want++)
		for (int i = 0; i < n; i++)
			if (runs[i].sel.shard_k == want)
				order[k++] = i;
}

static int merge_all(char **paths, int n, struct run_result *m)
{
	struct run_result *runs = NULL;
	int *order = xcalloc((size_t)n + 1, sizeof(*order));
	char why[600];
	int ret = merge_load(paths, n, &runs);

	if (!ret &&
	    shard_merge_check(runs, (const char *const *)paths, (size_t)n, why, sizeof(why))) {
		fprintf(stderr, "ktb merge: %s\n", why);
		ret = KTB_EXIT_USAGE;
	}
	if (ret)
		goto out;
	merge_order(runs, n, order);
	for (int i = 0; i < n && !ret; i++)
		ret = absorb(m, &runs[order[i]], paths[order[i]]);
	/* the shards of one run make that run whole: its id and selection */
	if (!ret && runs[0].sel.shard_n) {
		m->run_id = runs[0].run_id;
		runs[0].run_id = NULL;
		m->sel = runs[0].sel;
		memset(&runs[0].sel, 0, sizeof(runs[0].sel));
		m->sel.shard_k = m->sel.shard_n = 0;
	}
out:
	merge_runs_free(runs, n);
	free(order);
	return ret;
}

static int merge_write(const struct merge_cli *c, const struct run_result *m)
{
	struct report_file files[5];

	merge_report_files(c, files);
	return reports_write(files, 5, m);
}

static bool merge_to_stdout(const struct merge_cli *c)
{
	struct report_file files[5];

	merge_report_files(c, files);
	return reports_to_stdout(files, 5);
}

static int cli_merge(int argc, char **argv)
{
	struct merge_cli c;
	struct run_result m = { 0 };
	int ret = merge_parse(argc, argv, &c);

	if (ret)
		return ret;
	ret = merge_all(argv + optind, argc - optind, &m);
	if (ret)
		goto out;
	if (!m.run_id)
		m.run_id = runner_new_run_id();
	report_term_summary(&m, merge_to_stdout(&c) ? stderr : stdout);
	ret = run_result_exit_code(&m);
	/* as ktb run: a report that cannot be written spoils a pass, not a failure */
	if (merge_write(&c, &m) && !ret)
		ret = KTB_EXIT_UNTESTED;
out:
	run_result_free(&m);
	return ret;
}

const struct cli_command cli_merge_command = {
	.name = "merge",
	.fn = cli_merge,
	.summary = "combine run documents into one run and its reports: ktb merge R1.json "
		   "R2.json...",
	.usage = merge_usage,
	.options = merge_options,
	.shortopts = "h",
	.unlisted = merge_unlisted,
};
