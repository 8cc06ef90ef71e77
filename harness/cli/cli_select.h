/* Which scenarios a run is made of: the scenario files and folders given
 * (none: the library), loaded and checked, then -t/-n/-x, then --shard K/N.
 * ktb run, ktb run --list and ktb list all select with this one function,
 * so ktb list shows exactly what ktb run with the same options runs. */
#ifndef KTB_CLI_SELECT_H
#define KTB_CLI_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli_common.h"
#include "result.h"

struct select_opts {
	char **tags, **globs, **xtags; /* -t TAG, -n GLOB, -x TAG (NULL-terminated) */
	size_t ntags, nglobs, nxtags;
	const char *shard; /* --shard K/N */
};

/* The getopt letters and the long option of the selection, and their lines
 * in a command's --help. */
#define SELECT_SHORTOPTS "t:n:x:"
#define SELECT_OPT_SHARD 'S'
#define SELECT_LONGOPTS                                                                            \
	{                                                                                          \
		"shard", required_argument, 0, SELECT_OPT_SHARD                                    \
	}
#define SELECT_USAGE                                                                               \
	"  -t TAG            only scenarios with this tag (may be repeated: any of them)\n"        \
	"  -n GLOB           only scenarios whose name matches (may be repeated)\n"                \
	"  -x TAG            not the scenarios with this tag (may be repeated)\n"                  \
	"  --shard K/N       only the K-th of N balanced shares of the selection (CI jobs)\n"

/* -t, -n, -x or --shard into o: true when ch was one of them. */
bool select_option(struct select_opts *o, int ch, const char *arg);
void select_opts_free(struct select_opts *o);

/* Load paths[0..n) (n == 0: the library), keep what -t/-n/-x select (none
 * selected: bad input), then --shard's share. With sel, it also gets what
 * the run is cut from: the filters, the selection and its hash (the caller
 * filled sel's repeat, kernel and recipe) and K/N. 0, or KTB_EXIT_USAGE
 * after the reason on stderr (set is empty then). */
int select_scenarios(const struct select_opts *o, char **paths, int n, struct scenario_set *set,
		     struct run_selection *sel);

/* One line per scenario: name, [tags], summary. */
void select_print(const struct scenario_set *set, FILE *f);

#endif
