/* run: a shell command in the guest, its exit code, output and JSON
 * output checked by expect; metrics: fields of that output copied into the
 * scenario's metrics. The kernel options a command needs by the tools and
 * files it names. Runs in harness/steps/step_basic.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kreq.h"
#include "load.h"
#include "scenario.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_value_t metric_path_schema = {
	CYAML_VALUE_STRING(PTR, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t run_fields[] = { STR("run", OPT, struct step, run),
						   CYAML_FIELD_SEQUENCE(
						       "metrics", PTR | OPT, struct step, metrics,
						       &metric_path_schema, 0, CYAML_UNLIMITED),
						   CYAML_FIELD_END };

/* Does one of metrics[0..n) name metric name? */
static bool metric_in(char **metrics, unsigned n, const char *name)
{
	bool found = false;

	for (unsigned i = 0; i < n && !found; i++) {
		char *other = step_metric_name(metrics[i]);

		found = !strcmp(other, name);
		free(other);
	}
	return found;
}

/* Did step p save its value as name (measure's as)? */
static bool saved_as(const struct step *p, const char *name)
{
	const struct step_kind_row *row = step_kinds[p->kind];
	const char *as = row->saved_as ? row->saved_as(p) : NULL;

	return as && !strcmp(as, name);
}

/* The step that sets metric name before st's field i: an earlier run
 * step's metrics or measure's as, or st's own earlier field; -1 if none. */
static int metric_set_before(const struct scenario *s, const struct step *st, unsigned i,
			     const char *name)
{
	for (const struct step *p = s->steps; p < st; p++)
		if (metric_in(p->metrics, p->metrics_count, name) || saved_as(p, name))
			return (int)(p - s->steps);
	return metric_in(st->metrics, i, name) ? (int)(st - s->steps) : -1;
}

/* run: any command (expect is checked for every kind); metrics: fields of
 * its JSON output by path (a.b.0), each a metric named by the path with
 * '.' as '_', set by no other step. */
static int step_check_run(struct load_ctx *c, struct step *st, const char *path)
{
	char f[96];

	for (unsigned i = 0; i < st->metrics_count; i++) {
		const char *m = st->metrics[i];
		char *name = step_metric_name(m);
		bool words = name_valid_metric(name) && *m != '.' && m[strlen(m) - 1] != '.' &&
			     !strstr(m, "..");
		int other = metric_set_before(c->s, st, i, name), ret = 0;

		snprintf(f, sizeof(f), "%s.metrics[%u]", path, i);
		if (!words)
			ret =
			    fail(c, f,
				 "\"%s\" is not a field path: words of [a-z0-9_] joined by '.'", m);
		else if (other >= 0)
			ret = fail(c, f, "%s sets the metric %s, which steps[%d] already sets", m,
				   name, other);
		free(name);
		if (ret)
			return ret;
	}
	return 0;
}

/* What a run step's command calls, by a word in it (and not when the
 * command also has `unless`): the guest tools' subcommands, the community's
 * tools and the kernel files a step reads or writes. zswap: the library
 * expects the lzo compressor (paging-zswap) and zbud, the default pool. fio
 * keeps its jobs' state in System V shared memory (shmget; "failed to setup
 * shm segment" without it) unless its jobs are threads (--thread). */
static const struct {
	const char *word, *unless;
	struct kreq_opts opts;
} run_words[] = {
	{ "fio ", "--thread", { { { "CONFIG_SYSVIPC", NULL } } } },
	{ "swapon", NULL, { { { "CONFIG_SWAP", NULL } } } },
	{ "ktb-mem pressure", NULL, { { { "CONFIG_VM_EVENT_COUNTERS", NULL } } } },
	{ "/proc/vmstat", NULL, { { { "CONFIG_VM_EVENT_COUNTERS", NULL } } } },
	{ "ktb-mem zswap",
	  NULL,
	  { { { "CONFIG_VM_EVENT_COUNTERS", NULL },
	      { "CONFIG_SWAP", NULL },
	      { "CONFIG_ZSWAP", NULL },
	      { "CONFIG_ZSWAP_COMPRESSOR_DEFAULT_LZO", NULL },
	      { "CONFIG_CRYPTO_LZO", NULL },
	      { "CONFIG_ZSWAP_ZPOOL_DEFAULT_ZBUD", NULL },
	      { "CONFIG_ZBUD", NULL } } } },
	{ "/sys/module/zswap/", NULL, { { { "CONFIG_SWAP", NULL }, { "CONFIG_ZSWAP", NULL } } } },
	{ "ktb-mem psi", NULL, { { { "CONFIG_PSI", NULL } } } },
	{ "/proc/pressure/", NULL, { { { "CONFIG_PSI", NULL } } } },
	{ "ktb-mem thp", NULL, { { { "CONFIG_TRANSPARENT_HUGEPAGE", NULL } } } },
	{ "/sys/kernel/mm/transparent_hugepage/",
	  NULL,
	  { { { "CONFIG_TRANSPARENT_HUGEPAGE", NULL } } } },
	{ "ktb-mem bind", NULL, { { { "CONFIG_NUMA", NULL } } } },
	{ "ktb-probe numa", NULL, { { { "CONFIG_NUMA", NULL } } } },
	{ "dmsetup", NULL, { { { "CONFIG_MD", NULL }, { "CONFIG_BLK_DEV_DM", "dm_mod" } } } },
	{ "mkfs.xfs", NULL, { { { "CONFIG_XFS_FS", "xfs" } } } },
	{ "mount -t xfs", NULL, { { { "CONFIG_XFS_FS", "xfs" } } } },
	{ "/sys/power/suspend_stats/", NULL, { { { "CONFIG_SUSPEND", NULL } } } },
	{ "ktb-probe sleep", NULL, { { { "CONFIG_SUSPEND", NULL } } } },
};

static int run_kreq_words(struct kreq_list *l, unsigned i, const char *cmd)
{
	char why[256];
	int ret = 0;

	for (size_t w = 0; !ret && w < sizeof(run_words) / sizeof(run_words[0]); w++) {
		if (!strstr(cmd, run_words[w].word) ||
		    (run_words[w].unless && strstr(cmd, run_words[w].unless)))
			continue;
		/* the word without a space that ends it ("fio ") */
		int n = (int)strlen(run_words[w].word);

		while (n && run_words[w].word[n - 1] == ' ')
			n--;
		snprintf(why, sizeof(why), "steps[%u] runs %.*s", i, n, run_words[w].word);
		ret = kreq_add_opts(l, &run_words[w].opts, why);
	}
	return ret;
}

static int run_kreq(struct kreq_list *l, unsigned i, const struct step *st)
{
	return st->run ? run_kreq_words(l, i, st->run) : 0;
}

const struct step_kind_row kind_run = {
	.keyword = "run",
	.kind = STEP_RUN,
	.field = offsetof(struct step, run),
	.expects = EXPECT_EXIT | EXPECT_STDOUT | EXPECT_JSON,
	.needs = NEEDS_NOTHING,
	.keys = "metrics",
	.fields = run_fields,
	.check = step_check_run,
	.guest_key = step_in_guest,
	.kreq = run_kreq,
};
