#include "cli_select.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shard.h"
#include "util.h"

static void push_word(char ***v, size_t *n, char *w)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(char *));
	(*v)[(*n)++] = w;
	(*v)[*n] = NULL;
}

bool select_option(struct select_opts *o, int ch, const char *arg)
{
	switch (ch) {
	case 't':
		push_word(&o->tags, &o->ntags, (char *)arg);
		return true;
	case 'n':
		push_word(&o->globs, &o->nglobs, (char *)arg);
		return true;
	case 'x':
		push_word(&o->xtags, &o->nxtags, (char *)arg);
		return true;
	case SELECT_OPT_SHARD:
		o->shard = arg;
		return true;
	}
	return false;
}

void select_opts_free(struct select_opts *o)
{
	free(o->tags);
	free(o->globs);
	free(o->xtags);
	memset(o, 0, sizeof(*o));
}

static bool has_tag(const struct scenario *s, const char *tag)
{
	for (unsigned t = 0; t < s->tags_count; t++)
		if (!strcmp(tag, s->tags[t]))
			return true;
	return false;
}

static bool wanted(const struct select_opts *o, const struct scenario *s)
{
	bool tag_ok = !o->ntags, name_ok = !o->nglobs;

	for (size_t i = 0; i < o->ntags && !tag_ok; i++)
		tag_ok = has_tag(s, o->tags[i]);
	for (size_t i = 0; i < o->nglobs && !name_ok; i++)
		name_ok = !fnmatch(o->globs[i], s->name, 0);
	for (size_t i = 0; i < o->nxtags && tag_ok; i++)
		tag_ok = !has_tag(s, o->xtags[i]);
	return tag_ok && name_ok;
}

/* Keep what -t, -n and -x select; nothing selected is bad input. */
static int filter(const struct select_opts *o, struct scenario_set *set)
{
	size_t kept = 0;

	for (size_t i = 0; i < set->count; i++) {
		if (wanted(o, set->items[i]))
			set->items[kept++] = set->items[i];
		else
			scenario_free(set->items[i]);
	}
	set->count = kept;
	if (kept)
		return 0;
	cli_err("no scenario matches the -t/-n/-x filters");
	return KTB_EXIT_USAGE;
}

static void selection_fill(const struct select_opts *o, const struct scenario_set *set,
			   struct run_selection *sel)
{
	sel->tags = run_selection_words((const char *const *)o->tags, o->ntags);
	sel->tags_count = o->ntags;
	sel->exclude_tags = run_selection_words((const char *const *)o->xtags, o->nxtags);
	sel->exclude_tags_count = o->nxtags;
	sel->names = run_selection_words((const char *const *)o->globs, o->nglobs);
	sel->names_count = o->nglobs;
	scenarios_selection(set, sel);
}

int select_scenarios(const struct select_opts *o, char **paths, int n, struct scenario_set *set,
		     struct run_selection *sel)
{
	char *def[] = { (char *)scenarios_default_dir() };
	unsigned k = 0, of = 0;
	char why[200];
	int ret = n > 0 ? scenarios_load_all(paths, n, set) : scenarios_load_all(def, 1, set);

	if (ret)
		return ret;
	ret = filter(o, set);
	if (!ret && sel)
		selection_fill(o, set, sel);
	if (!ret && o->shard)
		ret = scenarios_shard(set, cli_name(), o->shard);
	if (!ret && sel && o->shard && !shard_parse(o->shard, &k, &of, why, sizeof(why))) {
		sel->shard_k = k;
		sel->shard_n = of;
	}
	if (ret)
		scenarios_free(set);
	return ret;
}

void select_print(const struct scenario_set *set, FILE *f)
{
	for (size_t i = 0; i < set->count; i++) {
		const struct scenario *s = set->items[i];

		fprintf(f, "%-24s [", s->name);
		for (unsigned t = 0; t < s->tags_count; t++)
			fprintf(f, "%s%s", t ? "," : "", s->tags[t]);
		fprintf(f, "]  %s\n", s->summary ? s->summary : "");
	}
}
