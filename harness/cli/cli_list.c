/* ktb list: the scenarios with their tags and summaries. */
#include "cli_list.h"

#include <stdio.h>
#include <string.h>

#include "cli_common.h"

int cli_list(int argc, char **argv)
{
	struct scenario_set set;
	char *def[] = { (char *)scenarios_default_dir() };
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ktb list [SCENARIO.yaml|DIR...]\n");
		return 0;
	}
	ret = argc > 1 ? scenarios_load_all(argv + 1, argc - 1, &set)
		       : scenarios_load_all(def, 1, &set);
	if (ret)
		return ret;
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
