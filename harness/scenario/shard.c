#include "shard.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "sha256.h"
#include "util.h"

static int shard_number(const char *s, const char **end, unsigned *v)
{
	unsigned long x = 0;
	const char *p = s;

	/* digits only: strtoul would take a sign, spaces or 0x */
	while (*p >= '0' && *p <= '9' && x <= SHARD_MAX)
		x = x * 10 + (unsigned long)(*p++ - '0');
	*end = p;
	if (p == s || x > SHARD_MAX)
		return -EINVAL;
	*v = (unsigned)x;
	return 0;
}

int shard_parse(const char *arg, unsigned *k, unsigned *n, char *why, size_t whylen)
{
	const char *p;

	if (shard_number(arg, &p, k) || *p != '/' || shard_number(p + 1, &p, n) || *p) {
		snprintf(why, whylen,
			 "--shard %s: give K/N, two whole numbers up to %d (2/4: the "
			 "second of four shares)",
			 arg, SHARD_MAX);
		return -EINVAL;
	}
	if (!*n || !*k || *k > *n) {
		snprintf(why, whylen, "--shard %s: K must be 1 to N, and N at least 1", arg);
		return -EINVAL;
	}
	return 0;
}

struct shard_item {
	const char *name;
	int64_t weight;
	size_t idx;
};

static int item_cmp_name(const void *a, const void *b)
{
	const struct shard_item *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* heaviest first; equal weights in name order, so the input order never matters */
static int item_cmp(const void *a, const void *b)
{
	const struct shard_item *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

int shard_assign(const char *const *names, const int64_t *weights, size_t count, unsigned n,
		 unsigned *shard_of)
{
	struct shard_item *it = NULL;
	int64_t *load = NULL;
	int ret = 0;

	if (!n)
		return -EINVAL;
	it = xcalloc(count + 1, sizeof(*it));
	load = xcalloc(n, sizeof(*load));
	for (size_t i = 0; i < count; i++)
		it[i] = (struct shard_item){ names[i], weights[i] > 0 ? weights[i] : 0, i };
	qsort(it, count, sizeof(*it), item_cmp);
	for (size_t i = 0; i < count; i++) {
		unsigned best = 0;

		/* the same name twice would let the order of the input decide */
		if (i && it[i].weight == it[i - 1].weight && !strcmp(it[i].name, it[i - 1].name)) {
			ret = -EINVAL;
			goto out;
		}
		for (unsigned s = 1; s < n; s++)
			if (load[s] < load[best])
				best = s;
		shard_of[it[i].idx] = best;
		/* weightless items still count, so they spread too */
		load[best] += it[i].weight + 1;
	}
out:
	free(it);
	free(load);
	return ret;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* each word of v (n of them) as "key WORD\n", in sorted order */
static void hash_words(struct sha256_ctx *h, const char *key, char *const *v, size_t n)
{
	const char **c = xcalloc(n + 1, sizeof(*c));

	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), str_cmp);
	for (size_t i = 0; i < n; i++) {
		char *line = xasprintf("%s %s\n", key, c[i]);

		sha256_feed(h, line, strlen(line));
		free(line);
	}
	free(c);
}

void shard_selection_hash(const struct run_selection *sel, const char *const *names,
			  const int64_t *weights, size_t count, char hex[65])
{
	struct shard_item *it = xcalloc(count + 1, sizeof(*it));
	struct sha256_ctx h;
	char *line;

	sha256_init(&h);
	sha256_feed(&h, "ktb selection 1\n", 16);
	hash_words(&h, "tag", sel->tags, sel->tags_count);
	hash_words(&h, "exclude-tag", sel->exclude_tags, sel->exclude_tags_count);
	hash_words(&h, "name", sel->names, sel->names_count);
	line = xasprintf("repeat %u\n", sel->repeat ? sel->repeat : 1);
	sha256_feed(&h, line, strlen(line));
	free(line);
	for (size_t i = 0; i < count; i++)
		it[i] = (struct shard_item){ names[i], weights[i], i };
	qsort(it, count, sizeof(*it), item_cmp_name);
	for (size_t i = 0; i < count; i++) {
		line = xasprintf("scenario %s %lld\n", it[i].name, (long long)it[i].weight);
		sha256_feed(&h, line, strlen(line));
		free(line);
	}
	sha256_hex(&h, hex);
	free(it);
}

char *shard_run_id(const struct run_selection *sel)
{
	struct sha256_ctx h;
	char hex[SHA256_HEX_LEN + 1];
	char *text = xasprintf("%s\nkernel %s\nrecipe %s\n", sel->hash ? sel->hash : "",
			       sel->kernel ? sel->kernel : "", sel->recipe ? sel->recipe : "");

	sha256_init(&h);
	sha256_feed(&h, text, strlen(text));
	sha256_hex(&h, hex);
	free(text);
	return xasprintf("sel-%.16s", hex);
}

int shard_run_id_check(const char *id, char *why, size_t len)
{
	static const char ok[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t n = strlen(id);

	if (!n || n > 64 || id[0] == '.' || strspn(id, ok) != n)
		return say_err(why, len, -EINVAL,
			       "--run-id %.80s: give 1 to 64 letters, digits and ._- (not "
			       "starting with a dot), such as the CI pipeline's id",
			       id);
	return 0;
}

/* The kernel a run booted (the first scenario that names one), or NULL. */
static const char *run_booted(const struct run_result *r)
{
	for (size_t i = 0; i < r->count; i++)
		if (r->scenarios[i].kernel && r->scenarios[i].kernel[0])
			return r->scenarios[i].kernel;
	return NULL;
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* "ab, c" differs from "ab, d": what, in words, for the refusal */
static bool words_same(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

/* the first name of a that b lacks, or NULL */
static const char *first_missing(char *const *a, size_t na, char *const *b, size_t nb)
{
	for (size_t i = 0; i < na; i++) {
		bool found = false;

		for (size_t j = 0; j < nb && !found; j++)
			found = !strcmp(a[i], b[j]);
		if (!found)
			return a[i];
	}
	return NULL;
}

/* Why two selections' hashes differ, as far as the documents tell. */
static void selection_diff(const struct run_selection *a, const char *pa,
			   const struct run_selection *b, char *buf, size_t len)
{
	const char *only;

	if (!words_same(a->tags, a->tags_count, b->tags, b->tags_count))
		snprintf(buf, len, "its -t filters differ from %s's", pa);
	else if (!words_same(a->exclude_tags, a->exclude_tags_count, b->exclude_tags,
			     b->exclude_tags_count))
		snprintf(buf, len, "its -x filters differ from %s's", pa);
	else if (!words_same(a->names, a->names_count, b->names, b->names_count))
		snprintf(buf, len, "its -n filters differ from %s's", pa);
	else if (a->repeat != b->repeat)
		snprintf(buf, len, "--repeat %u, %s's %u", b->repeat, pa, a->repeat);
	else if ((only = first_missing(b->scenarios, b->scenarios_count, a->scenarios,
				       a->scenarios_count)))
		snprintf(buf, len, "scenario %s is in its selection, not in %s's", only, pa);
	else if ((only = first_missing(a->scenarios, a->scenarios_count, b->scenarios,
				       b->scenarios_count)))
		snprintf(buf, len, "scenario %s is in %s's selection, not in its", only, pa);
	else
		snprintf(buf, len, "the same scenarios as %s's, with other timeouts", pa);
}

/* One shard against the first one: 0, or -EINVAL with why. */
static int shard_fits(const struct run_result *r, const char *path, const struct run_result *f,
		      const char *fpath, char *why, size_t len)
{
	const struct run_selection *s = &r->sel, *fs = &f->sel;
	const char *rb = run_booted(r), *fb = run_booted(f);
	char diff[300];

	if (!s->shard_n)
		return say_err(why, len, -EINVAL,
			       "%s: a whole run (no --shard), but %s is shard %u of %u; merge "
			       "the shards of one run, or whole runs alone",
			       path, fpath, fs->shard_k, fs->shard_n);
	if (!s->hash)
		return say_err(why, len, -EINVAL,
			       "%s: shard %u of %u does not say what it was cut from (no "
			       "\"selection\"); run it again with this ktb",
			       path, s->shard_k, s->shard_n);
	if (strcmp(s->hash, fs->hash)) {
		selection_diff(fs, fpath, s, diff, sizeof(diff));
		return say_err(why, len, -EINVAL,
			       "%s: shard %u of %u of another selection than %s (%s); run every "
			       "shard on the same scenario files with the same -t/-n/-x/--repeat",
			       path, s->shard_k, s->shard_n, fpath, diff);
	}
	if (rb && fb ? strcmp(rb, fb)
		     : !same_str(s->kernel, fs->kernel) || !same_str(s->recipe, fs->recipe))
		return say_err(why, len, -EINVAL,
			       "%s: shard %u of %u of another kernel (%s) than %s (%s); run every "
			       "shard on the same --kernel",
			       path, s->shard_k, s->shard_n,
			       rb && fb	   ? rb
			       : s->kernel ? s->kernel
					   : "the recipe's",
			       fpath,
			       rb && fb	    ? fb
			       : fs->kernel ? fs->kernel
					    : "the recipe's");
	if (s->shard_n != fs->shard_n)
		return say_err(why, len, -EINVAL,
			       "%s: shard %u of %u, but %s is shard %u of %u; give every job the "
			       "same --shard N",
			       path, s->shard_k, s->shard_n, fpath, fs->shard_k, fs->shard_n);
	if (!same_str(r->run_id, f->run_id))
		return say_err(why, len, -EINVAL,
			       "%s: shard %u of %u of run %s, but %s is of run %s; merge the "
			       "shards of one run (one --run-id for all its jobs)",
			       path, s->shard_k, s->shard_n, r->run_id ? r->run_id : "(none)",
			       fpath, f->run_id ? f->run_id : "(none)");
	return 0;
}

/* "shard 3 of 4 ... is missing" or "shards 2, 3 of 4 ... are missing" */
static int shards_missing(const char *const *have, unsigned n, const char *run_id, char *why,
			  size_t len)
{
	char list[256] = "", held[256] = "";
	unsigned missing = 0;

	for (unsigned k = 1; k <= n; k++) {
		char *buf = have[k - 1] ? held : list;
		size_t used = strlen(buf);

		missing += !have[k - 1];
		if (used < sizeof(list) - 16)
			snprintf(buf + used, sizeof(list) - used, "%s%u", used ? ", " : "", k);
		else if (used < sizeof(list) - 4 && !strstr(buf, "..."))
			snprintf(buf + used, sizeof(list) - used, ", ...");
	}
	if (!missing)
		return 0;
	return say_err(why, len, -EINVAL,
		       "shard%s %s of %u of run %s %s missing (the inputs hold shard%s %s); give "
		       "every shard's run document",
		       missing > 1 ? "s" : "", list, n, run_id ? run_id : "(none)",
		       missing > 1 ? "are" : "is", strchr(held, ',') ? "s" : "", held);
}

int shard_merge_check(const struct run_result *runs, const char *const *paths, size_t n, char *why,
		      size_t len)
{
	const char **have = NULL;
	size_t f = n;
	int ret = 0;

	for (size_t i = 0; i < n && f == n; i++)
		if (runs[i].sel.shard_n)
			f = i;
	if (f == n)
		return 0;
	have = xcalloc(runs[f].sel.shard_n + 1, sizeof(*have));
	for (size_t i = 0; i < n && !ret; i++) {
		unsigned k = runs[i].sel.shard_k;

		ret = shard_fits(&runs[i], paths[i], &runs[f], paths[f], why, len);
		if (!ret && have[k - 1])
			ret = say_err(why, len, -EINVAL,
				      "%s: shard %u of %u again (%s is that shard)", paths[i], k,
				      runs[i].sel.shard_n, have[k - 1]);
		if (!ret)
			have[k - 1] = paths[i];
	}
	if (!ret)
		ret = shards_missing(have, runs[f].sel.shard_n, runs[f].run_id, why, len);
	free(have);
	return ret;
}
