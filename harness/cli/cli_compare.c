/* ktb compare BASE.json NEW.json: both runs read first, so bad input prints
 * nothing but its message; then the table, and the reports asked for. */
#include "cli_compare.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "compare.h"
#include "report_json.h"

struct compare_cli {
	const char *json, *html;
	struct compare_opts o;
};

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: ktb compare BASE.json NEW.json [options]\n"
		"  every metric both runs have samples of (ktb run --repeat N --json), compared:\n"
		"  the medians, their ratio with a bootstrap interval, a rank test corrected\n"
		"  for the number of comparisons (Holm), and a verdict\n"
		"  --threshold P     the smallest change that counts (default 10%%)\n"
		"  --confidence C    a change needs a corrected p-value under 1 - C\n"
		"                    (default 95%%)\n"
		"  --json FILE       the comparison as JSON (- is standard output; the table\n"
		"                    then goes to standard error)\n"
		"  --html FILE       one HTML page, with the samples of each changed metric\n"
		"Exit code: 0 no regression, 1 a regression (a time or size that grew), 2 bad\n"
		"input (a document ktb cannot read, a scenario in one run only).\n");
}

static const struct option compare_options[] = {
	{ "threshold", required_argument, 0, 't' },
	{ "confidence", required_argument, 0, 'c' },
	{ "json", required_argument, 0, 'J' },
	{ "html", required_argument, 0, 'H' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static int compare_parse(int argc, char **argv, struct compare_cli *c)
{
	int ch;

	memset(c, 0, sizeof(*c));
	c->o = (struct compare_opts){ .threshold = 0.10, .confidence = 0.95 };
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", compare_options, NULL)) != -1) {
		switch (ch) {
		case 'h':
			compare_usage(stdout);
			exit(0);
		case 't':
			if (cli_threshold(optarg, &c->o.threshold))
				return KTB_EXIT_USAGE;
			break;
		case 'c':
			if (cli_confidence(optarg, &c->o.confidence))
				return KTB_EXIT_USAGE;
			break;
		case 'J':
			c->json = optarg;
			break;
		case 'H':
			c->html = optarg;
			break;
		default:
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		cli_err("give two run documents, the base and the new (ktb run --json)");
		return KTB_EXIT_USAGE;
	}
	return 0;
}

/* FILE (- standard output) written by fn; 0 or -1 after a message */
static int write_to(const char *opt, const char *path, const json_t *doc,
		    void (*fn)(const json_t *, FILE *))
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		cli_err("%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	fn(doc, f);
	if ((f == stdout ? fflush(f) : fclose(f)) != 0) {
		cli_err("%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	return 0;
}

static void json_out(const json_t *doc, FILE *f)
{
	json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
}

static int cli_compare(int argc, char **argv)
{
	struct compare_cli c;
	struct run_result base = { 0 }, new = { 0 };
	json_t *doc = NULL;
	char why[400];
	int ret = compare_parse(argc, argv, &c);

	if (ret)
		return ret;
	ret = run_document_load(argv[optind], &base);
	if (!ret)
		ret = run_document_load(argv[optind + 1], &new);
	if (!ret && compare_runs(&base, &new, &c.o, &doc, why, sizeof(why))) {
		cli_err("%s", why);
		ret = KTB_EXIT_USAGE;
	}
	if (ret)
		goto out;
	compare_print(doc, (c.json && !strcmp(c.json, "-")) ? stderr : stdout);
	ret = compare_regressions(doc) ? KTB_EXIT_FAIL : 0;
	if ((c.json && write_to("--json", c.json, doc, json_out)) ||
	    (c.html && write_to("--html", c.html, doc, compare_html)))
		ret = ret ? ret : KTB_EXIT_UNTESTED;
out:
	json_decref(doc);
	run_result_free(&base);
	run_result_free(&new);
	return ret;
}

const struct cli_command cli_compare_command = {
	.name = "compare",
	.fn = cli_compare,
	.summary = "compare two runs' samples metric by metric: ktb compare BASE.json NEW.json",
	.usage = compare_usage,
	.options = compare_options,
	.shortopts = "h",
};
