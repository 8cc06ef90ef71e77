/* ktb kconfig: the union of the scenarios' kernel requirements as a config
 * fragment. Every option is given =y, also those a module could provide, so
 * a kernel built from the fragment boots every scenario with no modules.
 * The order is the requirement table's, by first appearance over the
 * scenarios in file order, so the output is the same on every run.
 * --minimal puts the minimal kernel's base first (to go on top of `make
 * tinyconfig`); --apply TREE merges the fragment into a kernel tree's
 * .config with the kernel's own merge_config.sh and olddefconfig, then
 * reports each option the tree did not take. */
#include "cli_kconfig.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "kconfig.h"
#include "kreq.h"
#include "spawn.h"
#include "util.h"

/* Names of at most this many scenarios in an option's comment. */
#define KCONFIG_NAMES 3

/* One option of the union: the first reason seen (with its scenario) and
 * which scenarios need it (none: only the minimal base does). */
struct union_opt {
	char *option;
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

/* Adds r, needed by the scenario called name (NULL: the minimal base). */
static void union_add(struct kconfig_union *u, const char *name, const struct kreq *r)
{
	struct union_opt *o = union_find(u, r->option);

	if (!o) {
		u->v = xrealloc(u->v, (u->n + 1) * sizeof(*u->v));
		o = &u->v[u->n++];
		memset(o, 0, sizeof(*o));
		o->option = xstrdup(r->option);
		o->why = xstrdup(r->why);
	}
	if (!name)
		return;
	if (o->count < KCONFIG_NAMES)
		o->names[o->count] = name;
	o->count++;
}

/* Who needs an option: every scenario, or the first few by name. */
static void names_print(FILE *f, const struct union_opt *o, size_t scenarios)
{
	if (o->count == scenarios && scenarios > 1) {
		fprintf(f, "every scenario");
		return;
	}
	for (size_t k = 0; k < o->count && k < KCONFIG_NAMES; k++)
		fprintf(f, "%s%s", k ? ", " : "", o->names[k]);
	if (o->count > KCONFIG_NAMES)
		fprintf(f, ", +%zu more", o->count - KCONFIG_NAMES);
}

static void union_print(FILE *f, const struct kconfig_union *u, size_t scenarios)
{
	for (size_t i = 0; i < u->n; i++) {
		if (!u->v[i].count) {
			fprintf(f, "# %s (the minimal kernel)\n%s=y\n", u->v[i].why,
				u->v[i].option);
			continue;
		}
		fprintf(f, "# %s (", u->v[i].why);
		names_print(f, &u->v[i], scenarios);
		fprintf(f, ")\n%s=y\n", u->v[i].option);
	}
}

static void union_free(struct kconfig_union *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].option);
		free(u->v[i].why);
	}
	free(u->v);
}

static void kconfig_usage(FILE *f)
{
	fprintf(f, "usage: ktb kconfig [--minimal] [--apply TREE] [SCENARIO.yaml|DIR...]\n"
		   "Prints the kernel config fragment the scenarios need (default: the scenario\n"
		   "library), one CONFIG_X=y a line after a comment saying what needs it.\n"
		   "  --minimal     start with the minimal kernel's base, for `make tinyconfig`\n"
		   "  --apply TREE  merge it into the kernel tree's .config (merge_config.sh -m,\n"
		   "                make olddefconfig; with --minimal after make tinyconfig)\n"
		   "                and name each option the tree did not take\n"
		   "Exit: 0, 1 (--apply) an option was not taken, 2 bad input, 125 make or the\n"
		   "merge failed (docs/cli.md).\n");
}

/* The fragment: the minimal base (when asked), then each scenario's needs. */
static int union_build(struct kconfig_union *u, const struct scenario_set *set, bool minimal)
{
	struct kreq_list l;
	int ret = 0;

	if (minimal) {
		/* what the scenarios need, for the base's menus of their options */
		struct kreq_list needs = { NULL, 0 };

		for (size_t i = 0; !ret && i < set->count; i++) {
			ret = kreq_for_scenario(set->items[i], &l);
			for (size_t k = 0; !ret && k < l.n; k++)
				ret = kreq_list_add(&needs, l.v[k].option, NULL, "");
			kreq_list_free(&l);
		}
		if (!ret)
			ret = kreq_minimal_base(&needs, &l);
		kreq_list_free(&needs);
		for (size_t k = 0; !ret && k < l.n; k++)
			union_add(u, NULL, &l.v[k]);
		if (!ret)
			kreq_list_free(&l);
	}
	for (size_t i = 0; !ret && i < set->count; i++) {
		ret = kreq_for_scenario(set->items[i], &l);
		for (size_t k = 0; !ret && k < l.n; k++)
			union_add(u, set->items[i]->name, &l.v[k]);
		kreq_list_free(&l);
	}
	return ret;
}

/* ---- --apply TREE ---- */

/* Runs argv in tree, its output to /dev/null unless it fails: then its
 * stderr's first line is in why. */
static int tree_run(const char *tree, char *const argv[], char *why, size_t len)
{
	struct child_process cp = { .argv = argv, .dir = tree, .own_group = true };
	struct spawn_buf err = { NULL, 0 };
	int r;

	cp.in.how = SPAWN_NULL;
	cp.out.how = SPAWN_NULL;
	r = pipe_command(&cp, NULL, 0, NULL, &err, -1);
	if (r) {
		char *nl = err.buf ? strchr(err.buf, '\n') : NULL;

		if (nl)
			*nl = '\0';
		snprintf(why, len, "%s %s: %s", argv[0], argv[1],
			 r < 0		       ? strerror(-r)
			 : err.buf && *err.buf ? err.buf
					       : "failed");
		r = r < 0 ? r : -EIO;
	}
	free(err.buf);
	return r;
}

/* Which of the options not taken the tree's Kconfig files define at all
 * (then a dependency is unmet), marked in defined[]. */
static void tree_defined(const char *tree, char **names, size_t n, bool *defined)
{
	struct child_process cp = { .dir = tree, .own_group = true };
	struct spawn_buf out = { NULL, 0 };
	char *re = xstrdup("^[[:space:]]*(menu)?config (");
	char *argv[] = { "grep", "-rhoE", "--include=Kconfig*", NULL, ".", NULL };

	for (size_t i = 0; i < n; i++) {
		char *t = xasprintf("%s%s%s", re, i ? "|" : "", names[i] + strlen("CONFIG_"));

		free(re);
		re = t;
	}
	argv[3] = xasprintf("%s)[[:space:]]*$", re);
	cp.argv = argv;
	cp.in.how = SPAWN_NULL;
	cp.err.how = SPAWN_NULL;
	pipe_command(&cp, NULL, 0, &out, NULL, 60000);
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i] + strlen("CONFIG_");
		size_t len = strlen(name);

		for (const char *p = out.buf; p && (p = strstr(p, name)); p += len)
			if (p > out.buf && (p[-1] == ' ' || p[-1] == '\t') &&
			    (!p[len] || p[len] == '\n' || p[len] == ' ' || p[len] == '\t'))
				defined[i] = true;
	}
	free(out.buf);
	free(argv[3]);
	free(re);
}

static int tree_check(const char *tree)
{
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", tree);
	int ret = 0;

	if (access(merge, X_OK)) {
		fprintf(stderr,
			"ktb kconfig: --apply %s: not a kernel source tree (no "
			"scripts/kconfig/merge_config.sh)\n",
			tree);
		ret = -EINVAL;
	}
	free(merge);
	return ret;
}

/* Copies the tree's .config to .config.ktb-before, so that nothing the
 * user had is lost to tinyconfig or the merge. */
static int tree_keep(const char *tree, char *why, size_t len)
{
	char *from = xasprintf("%s/.config", tree), *to = xasprintf("%s/.config.ktb-before", tree);
	size_t n;
	char *text = read_file(from, &n);
	int ret = text ? write_file(to, text, n) : 0;

	if (ret)
		ret = say_err(why, len, ret, "cannot keep %s as %s", from, to);
	free(text);
	free(from);
	free(to);
	return ret;
}

/* After the merge: every option of u that the tree's .config does not
 * have =y, printed with why; the number of them, or -errno. */
static int tree_report(const char *tree, const struct kconfig_union *u)
{
	char *path = xasprintf("%s/.config", tree), why[512] = "";
	struct kconfig *k = NULL;
	char **missing = xcalloc(u->n + 1, sizeof(*missing));
	bool *defined = xcalloc(u->n + 1, sizeof(*defined));
	size_t n = 0;
	int ret = kconfig_read_file(path, "the merge", &k, why, sizeof(why));

	if (ret)
		fprintf(stderr, "ktb kconfig: %s\n", why);
	for (size_t i = 0; !ret && i < u->n; i++) {
		const char *v = kconfig_value(k, u->v[i].option);

		if (!v || strcmp(v, "y"))
			missing[n++] = u->v[i].option;
	}
	if (n)
		tree_defined(tree, missing, n, defined);
	for (size_t i = 0; i < n; i++) {
		const char *v = kconfig_value(k, missing[i]);

		printf("%s: %s after olddefconfig: %s\n", missing[i], v ? "is not y" : "is not set",
		       defined[i] ? "a dependency is unmet (see it in make menuconfig)"
				  : "this kernel has no such option");
	}
	kconfig_free(k);
	free(missing);
	free(defined);
	free(path);
	return ret ? ret : (int)n;
}

static int apply(const char *tree, bool minimal, const char *fragment, size_t len,
		 const struct kconfig_union *u)
{
	char frag[] = "/tmp/ktb-kconfig-XXXXXX", why[1024] = "";
	char *tiny[] = { "make", "tinyconfig", NULL };
	char *merge[] = { "scripts/kconfig/merge_config.sh", "-m", ".config", frag, NULL };
	char *olddef[] = { "make", "olddefconfig", NULL };
	char *config = xasprintf("%s/.config", tree);
	int fd = -1, ret = tree_check(tree);

	if (ret)
		goto out;
	if (!minimal && access(config, R_OK)) {
		fprintf(stderr,
			"ktb kconfig: --apply %s: no .config there; configure the tree first "
			"(make defconfig), or give --minimal to start from make tinyconfig\n",
			tree);
		ret = -EINVAL;
		goto out;
	}
	fd = mkstemp(frag);
	ret = fd < 0 ? -errno : write_file(frag, fragment, len);
	if (ret) {
		say_err(why, sizeof(why), ret, "cannot write %s", frag);
		goto fail;
	}
	ret = tree_keep(tree, why, sizeof(why));
	if (!ret && minimal)
		ret = tree_run(tree, tiny, why, sizeof(why));
	if (!ret)
		ret = tree_run(tree, merge, why, sizeof(why));
	if (!ret)
		ret = tree_run(tree, olddef, why, sizeof(why));
	if (ret)
		goto fail;
	ret = tree_report(tree, u);
	if (ret >= 0)
		printf("ktb kconfig: %zu options merged into %s (%s); %d not taken%s\n", u->n,
		       config,
		       minimal ? "make tinyconfig, merge_config.sh -m, olddefconfig"
			       : "merge_config.sh -m, make olddefconfig",
		       ret, ret ? " (above)" : "");
	goto out;
fail:
	fprintf(stderr, "ktb kconfig: --apply %s: %s\n", tree, why);
	ret = ret == -EINVAL ? -EIO : ret;
out:
	if (fd >= 0) {
		close(fd);
		unlink(frag);
	}
	free(config);
	return ret;
}

enum { OPT_MINIMAL = 1000, OPT_APPLY };

static const struct option kconfig_options[] = {
	{ "minimal", no_argument, NULL, OPT_MINIMAL },
	{ "apply", required_argument, NULL, OPT_APPLY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int cli_kconfig(int argc, char **argv)
{
	char *def[] = { (char *)scenarios_default_dir() };
	struct kconfig_union u = { NULL, 0 };
	struct scenario_set set;
	const char *tree = NULL;
	bool minimal = false;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ch, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", kconfig_options, NULL)) != -1) {
		switch (ch) {
		case OPT_MINIMAL:
			minimal = true;
			break;
		case OPT_APPLY:
			tree = optarg;
			break;
		case 'h':
			kconfig_usage(stdout);
			return KTB_EXIT_PASS;
		default:
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	ret = optind < argc ? scenarios_load_all(argv + optind, argc - optind, &set)
			    : scenarios_load_all(def, 1, &set);
	if (ret)
		return ret;
	ret = union_build(&u, &set, minimal);
	if (ret) {
		fprintf(stderr, "ktb kconfig: %s\n", strerror(-ret));
		goto out;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		ret = -errno;
		goto out;
	}
	if (minimal)
		fprintf(f, "# ktb kconfig --minimal: on top of make tinyconfig\n");
	union_print(f, &u, set.count);
	fclose(f);
	if (!tree)
		fwrite(text, 1, len, stdout);
	else
		ret = apply(tree, minimal, text, len, &u);
out:
	free(text);
	union_free(&u);
	scenarios_free(&set);
	if (ret == -EINVAL)
		return KTB_EXIT_USAGE;
	if (ret > 0)
		return KTB_EXIT_FAIL;
	return ret ? KTB_EXIT_UNTESTED : KTB_EXIT_PASS;
}

const struct cli_command cli_kconfig_command = {
	.name = "kconfig",
	.fn = cli_kconfig,
	.summary = "the kernel config fragment scenarios need: ktb kconfig [SCENARIO|DIR...]",
	.usage = kconfig_usage,
	.options = kconfig_options,
	.shortopts = "h",
};
