/* ktb findings R1.json R2.json ...: the kernel reports of one or more runs,
 * grouped by signature, most frequent first. Every input is read before
 * anything is printed, so bad input prints nothing but its message. */
#include "cli_findings.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "findings.h"
#include "report_json.h"
#include "report_term.h"

struct findings_cli {
	const char *json;
	bool failing;
};

static void findings_usage(FILE *f)
{
	fprintf(f, "usage: ktb findings RUN.json... [--failing] [--json FILE]\n"
		   "  the kernel reports (findings) of the runs, grouped by signature, most\n"
		   "  frequent first: count, kind, title, verdicts, and the runs, scenarios and\n"
		   "  kernels each was seen in\n"
		   "  --failing         only findings that failed their step (verdict fail), not\n"
		   "                    those a scenario expected or tolerated\n"
		   "  --json FILE       the groups as JSON (- is standard output; the listing\n"
		   "                    then goes to standard error)\n"
		   "RUN.json: what ktb run --json or ktb merge --json writes.\n"
		   "Exit code: 0 every input was read (findings or not), 2 bad input.\n");
}

static const struct option findings_options[] = {
	{ "json", required_argument, 0, 'J' },
	{ "failing", no_argument, 0, 'F' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* The groups, for the --json writer (reports_write hands it a run). */
static const struct finding_groups *findings_doc;

static int findings_json(const struct run_result *r, FILE *f)
{
	(void)r;
	return report_json_write(finding_groups_to_json(findings_doc), f);
}

static void findings_report_file(const struct findings_cli *c, struct report_file *file)
{
	*file = (struct report_file){ "--json", c->json, findings_json };
}

static int findings_parse(int argc, char **argv, struct findings_cli *c)
{
	struct report_file file;
	int ch;

	memset(c, 0, sizeof(*c));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", findings_options, NULL)) != -1) {
		switch (ch) {
		case 'h':
			findings_usage(stdout);
			exit(0);
		case 'J':
			c->json = optarg;
			break;
		case 'F':
			c->failing = true;
			break;
		default:
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err("give at least one run document (ktb run --json, ktb merge --json)");
		return KTB_EXIT_USAGE;
	}
	findings_report_file(c, &file);
	return reports_check(&file, 1);
}

/* Every input into g, or KTB_EXIT_USAGE after one message naming the first
 * that is not a run document. */
static int findings_load(char **paths, int n, bool failing, struct finding_groups *g)
{
	for (int i = 0; i < n; i++) {
		struct run_result r = { 0 };
		int ret = run_document_load(paths[i], &r);

		if (ret)
			return ret;
		finding_groups_add(g, &r, failing);
		run_result_free(&r);
	}
	finding_groups_sort(g);
	return 0;
}

static int cli_findings(int argc, char **argv)
{
	struct findings_cli c;
	struct finding_groups g = { 0 };
	struct report_file file;
	struct run_result none = { 0 };
	int ret = findings_parse(argc, argv, &c);

	if (ret)
		return ret;
	ret = findings_load(argv + optind, argc - optind, c.failing, &g);
	if (!ret) {
		findings_report_file(&c, &file);
		report_term_findings(&g, reports_to_stdout(&file, 1) ? stderr : stdout);
		findings_doc = &g;
		/* a file that cannot be written: as ktb run, the listing stands */
		if (reports_write(&file, 1, &none))
			ret = KTB_EXIT_UNTESTED;
		findings_doc = NULL;
	}
	finding_groups_free(&g);
	return ret;
}

const struct cli_command cli_findings_command = {
	.name = "findings",
	.fn = cli_findings,
	.summary = "the kernel reports of runs, grouped by signature: ktb findings R1.json...",
	.usage = findings_usage,
	.options = findings_options,
	.shortopts = "h",
};
