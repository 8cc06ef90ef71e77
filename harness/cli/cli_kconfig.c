/* ktb kconfig: the union of the scenarios' kernel requirements as a config
 * fragment. Every option is given =y, also those a module could provide, so
 * a kernel built from the fragment boots every scenario with no modules.
 * The order is the requirement table's, by first appearance over the
 * scenarios in file order, so the output is the same on every run. */
#include "cli_kconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "kreq.h"
#include "util.h"

/* Names of at most this many scenarios in an option's comment. */
#define KCONFIG_NAMES 3

/* One option of the union: the first reason seen (with its scenario) and
 * which scenarios need it. */
struct union_opt {
	const char *option;
	char *why;
	const char *names[KCONFIG_NAMES];
	size_t count;
};

struct kconfig_union {
	struct union_opt *v;
	size_t n;
};

static struct union_opt *union_find(struct kconfig_union *u, const char *option)
{
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].option, option))
			return &u->v[i];
	return NULL;
}

static void union_add(struct kconfig_union *u, const struct scenario *s, const struct kreq *r)
{
	struct union_opt *o = union_find(u, r->option);

	if (!o) {
		u->v = xrealloc(u->v, (u->n + 1) * sizeof(*u->v));
		o = &u->v[u->n++];
		memset(o, 0, sizeof(*o));
		o->option = r->option;
		o->why = xstrdup(r->why);
	}
	if (o->count < KCONFIG_NAMES)
		o->names[o->count] = s->name;
	o->count++;
}

/* Who needs an option: every scenario, or the first few by name. */
static void names_print(const struct union_opt *o, size_t scenarios)
{
	if (o->count == scenarios && scenarios > 1) {
		printf("every scenario");
		return;
	}
	for (size_t k = 0; k < o->count && k < KCONFIG_NAMES; k++)
		printf("%s%s", k ? ", " : "", o->names[k]);
	if (o->count > KCONFIG_NAMES)
		printf(", +%zu more", o->count - KCONFIG_NAMES);
}

static void union_print(const struct kconfig_union *u, size_t scenarios)
{
	for (size_t i = 0; i < u->n; i++) {
		printf("# %s (", u->v[i].why);
		names_print(&u->v[i], scenarios);
		printf(")\n%s=y\n", u->v[i].option);
	}
}

static void union_free(struct kconfig_union *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].why);
	free(u->v);
}

static int usage(FILE *f, int ret)
{
	fprintf(f, "usage: ktb kconfig [SCENARIO.yaml|DIR...]\n"
		   "Prints the kernel config fragment the scenarios need (default: the scenario\n"
		   "library), one CONFIG_X=y a line after a comment saying what needs it.\n"
		   "Merge it into a kernel tree with scripts/kconfig/merge_config.sh.\n");
	return ret;
}

int cli_kconfig(int argc, char **argv)
{
	char *def[] = { (char *)scenarios_default_dir() };
	struct kconfig_union u = { NULL, 0 };
	struct scenario_set set;
	struct kreq_list l;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return usage(stdout, KTB_EXIT_PASS);
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-') {
			fprintf(stderr, "ktb kconfig: unknown option %s\n", argv[i]);
			return usage(stderr, KTB_EXIT_USAGE);
		}
	ret = argc > 1 ? scenarios_load_all(argv + 1, argc - 1, &set)
		       : scenarios_load_all(def, 1, &set);
	if (ret)
		return ret;
	for (size_t i = 0; !ret && i < set.count; i++) {
		ret = kreq_for_scenario(set.items[i], &l);
		for (size_t k = 0; !ret && k < l.n; k++)
			union_add(&u, set.items[i], &l.v[k]);
		kreq_list_free(&l);
	}
	if (ret)
		fprintf(stderr, "ktb kconfig: %s\n", strerror(-ret));
	else
		union_print(&u, set.count);
	union_free(&u);
	scenarios_free(&set);
	return ret ? KTB_EXIT_UNTESTED : KTB_EXIT_PASS;
}
