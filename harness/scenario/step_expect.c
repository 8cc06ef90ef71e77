/* A step's expect, loaded and checked (step_expect.h). */
#include "step_expect.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "load.h"

static int expect_check_allowed(struct load_ctx *c, const struct expect *e, unsigned allowed,
				const char *keyword, const char *path)
{
	static const struct {
		unsigned bit;
		const char *key;
	} keys[] = {
		{ EXPECT_EXIT, "exit" },
		{ EXPECT_STDOUT, "stdout" },
		{ EXPECT_JSON, "json" },
	};
	unsigned given = (e->exit ? EXPECT_EXIT : 0) | (e->stdout_re ? EXPECT_STDOUT : 0) |
			 (e->json ? EXPECT_JSON : 0);
	char f[80];

	for (size_t i = 0; i < COUNT(keys); i++) {
		snprintf(f, sizeof(f), "%s.expect.%s", path, keys[i].key);
		if ((given & keys[i].bit) && !(allowed & keys[i].bit))
			return fail(c, f, "a %s step cannot check %s", keyword, keys[i].key);
	}
	return 0;
}

/* A mapping of expect.json operators only ({ge: 1, re: x}), as expect.c
 * tells them from a value to compare with. */
static bool expect_ops_only(struct load_ctx *c, yaml_node_t *m)
{
	static const char *const ops[] = { "ge", "gt", "le", "lt", "ne", "re", "len" };
	yaml_node_t *k;

	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		if (!k || k->type != YAML_SCALAR_NODE ||
		    word_index((const char *)k->data.scalar.value, ops, COUNT(ops)) < 0)
			return false;
	}
	return true;
}

/* What other tools call the operators (MongoDB's $gte, JSON Schema and
 * assertion libraries' gte, regex, length, shell and C's >=): NULL for
 * equality, which a plain value already is. */
static const struct {
	const char *alias, *op;
} op_aliases[] = {
	{ "gte", "ge" },     { "$gte", "ge" },	 { ">=", "ge" },      { "$gt", "gt" },
	{ ">", "gt" },	     { "lte", "le" },	 { "$lte", "le" },    { "<=", "le" },
	{ "$lt", "lt" },     { "<", "lt" },	 { "neq", "ne" },     { "$ne", "ne" },
	{ "!=", "ne" },	     { "<>", "ne" },	 { "regex", "re" },   { "regexp", "re" },
	{ "$regex", "re" },  { "match", "re" },	 { "matches", "re" }, { "=~", "re" },
	{ "length", "len" }, { "$size", "len" }, { "eq", NULL },      { "$eq", NULL },
	{ "==", NULL },	     { "=", NULL },	 { "equals", NULL },  { "equal", NULL },
};

/* The edit distance of a and b, adjacent swaps counting one (Damerau's);
 * both short (keys near an operator: at most 8 bytes, longer is far). */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t m = strlen(a), n = strlen(b);
	unsigned d[10][10];

	if (m > 8 || n > 8)
		return 9;
	for (size_t i = 0; i <= m; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= n; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= m; i++)
		for (size_t j = 1; j <= n; j++) {
			unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			v = d[i - 1][j] + 1 < v ? d[i - 1][j] + 1 : v;
			v = d[i][j - 1] + 1 < v ? d[i][j - 1] + 1 : v;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[m][n];
}

/* Is key (not an operator) a misspelt one, or another tool's name for
 * one? 1 with *op the operator (NULL: equality), 0 if not. A key one
 * edit from an operator (a letter more, less, changed or swapped: gt_, lr,
 * eg, lenn), ignoring case, two letters at least, is taken for one. */
static int op_near(const char *key, const char **op)
{
	static const char *const ops[] = { "ge", "gt", "le", "lt", "ne", "re", "len" };
	char low[10];
	size_t n = strlen(key);

	for (size_t i = 0; i < COUNT(op_aliases); i++)
		if (!strcmp(key, op_aliases[i].alias)) {
			*op = op_aliases[i].op;
			return 1;
		}
	if (n < 2 || n > 8)
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] + 32 : key[i]);
	for (size_t i = 0; i < COUNT(ops); i++)
		if (!strcmp(low, ops[i])) {
			*op = ops[i];
			return 1;
		}
	for (size_t i = 0; i < COUNT(op_aliases); i++)
		if (!strcmp(low, op_aliases[i].alias)) {
			*op = op_aliases[i].op;
			return 1;
		}
	for (size_t i = 0; i < COUNT(ops); i++)
		if (edit_distance(low, ops[i]) <= 1) {
			*op = ops[i];
			return 1;
		}
	/* and the long aliases misspelt (lenght, regx) */
	for (size_t i = 0; i < COUNT(op_aliases); i++)
		if (strlen(op_aliases[i].alias) >= 5 &&
		    edit_distance(low, op_aliases[i].alias) <= 1) {
			*op = op_aliases[i].op;
			return 1;
		}
	return 0;
}

/* An expectation that is a mapping whose keys are all operators or near
 * one, at least one only near ({gte: 1}, {ge: 1, lte: 5}): expect.c would
 * compare it as a literal mapping, which the field is never equal to. A
 * real literal stays comparable: a key far from every operator makes the
 * mapping a value, as docs/scenarios.md says. */
static int expect_check_op_names(struct load_ctx *c, yaml_node_t *ops, const char *field,
				 const char *jpath)
{
	static const char *const exact[] = { "ge", "gt", "le", "lt", "ne", "re", "len" };
	yaml_node_t *k, *bad = NULL;
	const char *op = NULL, *bad_op = NULL;

	if (!ops || ops->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = ops->data.mapping.pairs.start; p < ops->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		if (!k || k->type != YAML_SCALAR_NODE)
			return 0;
		if (word_index((const char *)k->data.scalar.value, exact, COUNT(exact)) >= 0)
			continue;
		if (!op_near((const char *)k->data.scalar.value, &op))
			return 0;
		if (!bad)
			bad = k, bad_op = op;
	}
	if (!bad)
		return 0;
	if (!bad_op)
		return fail_at(c, bad, field,
			       "\"%s\" is not an operator: a plain value is compared for "
			       "equality, write the value itself (%s: VALUE) (to compare with a "
			       "mapping that has the key %s, check its member instead: %s.%s: "
			       "VALUE)",
			       (const char *)bad->data.scalar.value, jpath,
			       (const char *)bad->data.scalar.value, jpath,
			       (const char *)bad->data.scalar.value);
	return fail_at(c, bad, field,
		       "\"%s\" is not an operator; did you mean %s:? (the operators are ge, "
		       "gt, le, lt, ne, re and len; to compare with a mapping that has the key "
		       "%s, check its member instead: %s.%s: VALUE)",
		       (const char *)bad->data.scalar.value, bad_op,
		       (const char *)bad->data.scalar.value, jpath,
		       (const char *)bad->data.scalar.value);
}

static int check_regex_node(struct load_ctx *c, yaml_node_t *n, const char *field)
{
	char why[512];

	if (!n || n->type != YAML_SCALAR_NODE)
		return fail_at(c, n, field, "expected a string, a regular expression");
	if (regex_refusal((const char *)n->data.scalar.value, &use_json, why, sizeof(why)) < 0)
		return fail_at(c, n, field, "%s", why);
	return 0;
}

/* {re: RE} operators of expect.json are compiled when the step runs: their
 * patterns get the same checks as stdout's, here, with the exact line. */
static int expect_check_json_res(struct load_ctx *c, const char *path)
{
	yaml_node_t *json = doc_get(c, path), *k, *ops;
	yaml_node_pair_t *re;
	char f[128];
	int ret;

	if (!json || json->type != YAML_MAPPING_NODE)
		return 0;
	/* each path's expectation is its own: all are checked */
	ret = 0;
	for (yaml_node_pair_t *p = json->data.mapping.pairs.start; p < json->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		ops = doc_node(c, p->value);
		if (!k || k->type != YAML_SCALAR_NODE)
			continue;
		snprintf(f, sizeof(f), "%s.%s", path, (const char *)k->data.scalar.value);
		if (expect_check_op_names(c, ops, f, (const char *)k->data.scalar.value) < 0) {
			ret = -EINVAL;
			continue;
		}
		re = doc_pair(c, ops, "re", 2);
		if (!re || !expect_ops_only(c, ops))
			continue;
		snprintf(f, sizeof(f), "%s.%s.re", path, (const char *)k->data.scalar.value);
		if (check_regex_node(c, doc_node(c, re->value), f) < 0)
			ret = -EINVAL;
	}
	return ret;
}

int expect_load(struct load_ctx *c, struct step *st, unsigned allowed, const char *keyword,
		const char *path)
{
	struct expect *e = st->expect;
	char f[80];
	int ret;

	if (!e)
		return 0;
	snprintf(f, sizeof(f), "%s.expect.json", path);
	ret = mapping_field_json(c, f, &e->json);
	if (!ret && e->json && !json_object_size(e->json))
		return fail(c, f,
			    "an empty mapping checks nothing; give the values to check "
			    "(json: {KEY: VALUE}), or leave json out");
	if (!ret)
		ret = expect_check_json_res(c, f);
	if (ret < 0)
		return ret;
	snprintf(f, sizeof(f), "%s.expect", path);
	if (!e->exit && !e->stdout_re && !e->json && !e->finding)
		return fail(c, f,
			    "an empty expect checks nothing; give exit, stdout or json (what "
			    "this step may check) or finding, or leave expect out");
	ret = expect_check_allowed(c, e, allowed, keyword, path);
	if (!ret && e->finding) {
		snprintf(f, sizeof(f), "%s.expect.finding", path);
		ret = check_regex(c, f, e->finding, &use_finding);
	}
	if (ret < 0 || !e->stdout_re)
		return ret;
	snprintf(f, sizeof(f), "%s.expect.stdout", path);
	return check_regex(c, f, e->stdout_re, &use_stdout);
}
