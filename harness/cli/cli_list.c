/* ktb list: the scenarios with their tags and summaries. */
#include "cli_list.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"

static void list_usage(FILE *f)
{
	fprintf(f, "usage: ktb list [--shard K/N] [SCENARIO.yaml|DIR...]\n"
		   "  --shard K/N   only the scenarios ktb run --shard K/N would run\n");
}

int cli_list(int argc, char **argv)
{
	struct scenario_set set;
	char *def[] = { (char *)scenarios_default_dir() };
	static const struct option opts[] = {
		{ "shard", required_argument, 0, 'S' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *shard = NULL;
	int ret, ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ch == 'S') {
			shard = optarg;
			continue;
		}
		list_usage(ch == 'h' ? stdout : stderr);
		return ch == 'h' ? 0 : KTB_EXIT_USAGE;
	}
	ret = optind < argc ? scenarios_load_all(argv + optind, argc - optind, &set)
			    : scenarios_load_all(def, 1, &set);
	if (ret)
		return ret;
	if (shard && (ret = scenarios_shard(&set, "list", shard))) {
		scenarios_free(&set);
		return ret;
	}
	for (size_t i = 0; i < set.count; i++) {
		const struct scenario *s = set.items[i];

		printf("%-24s [", s->name);
		for (unsigned t = 0; t < s->tags_count; t++)
			printf("%s%s", t ? "," : "", s->tags[t]);
		printf("]  %s\n", s->summary ? s->summary : "");
	}
	scenarios_free(&set);
	return 0;
}
