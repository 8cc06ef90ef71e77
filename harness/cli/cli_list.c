/* ktb list: the scenarios ktb run with the same selection options would
 * run (cli_select.c), with their tags and summaries. Nothing boots and
 * nothing on the host is probed. */
#include "cli_list.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_select.h"

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: ktb list [options] [SCENARIO.yaml|DIR...]\n"
		"Loads and checks the scenarios (default: the library, %s) and prints\n"
		"the ones ktb run with the same options would run: name, [tags], summary.\n"
		"Nothing boots.\n" SELECT_USAGE,
		scenarios_default_dir());
}

static const struct option list_options[] = {
	SELECT_LONGOPTS,
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};
#define LIST_SHORTOPTS SELECT_SHORTOPTS "h"

static int cli_list(int argc, char **argv)
{
	struct select_opts o = { 0 };
	struct scenario_set set;
	int ret, ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, LIST_SHORTOPTS, list_options, NULL)) != -1) {
		if (select_option(&o, ch, optarg))
			continue;
		select_opts_free(&o);
		if (ch != 'h') {
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
		list_usage(stdout);
		return KTB_EXIT_PASS;
	}
	ret = select_scenarios(&o, argv + optind, argc - optind, &set, NULL);
	if (!ret)
		select_print(&set, stdout);
	scenarios_free(&set);
	select_opts_free(&o);
	return ret;
}

const struct cli_command cli_list_command = {
	.name = "list",
	.fn = cli_list,
	.summary = "the scenarios ktb run would run: ktb list [-t/-n/-x/--shard] [SCENARIO|DIR...]",
	.usage = list_usage,
	.options = list_options,
	.shortopts = LIST_SHORTOPTS,
};
