/* One load's shared tools (load.h): the document by field path, the
 * errors, YAML to JSON, and the field checks several parts make. */
#include "load.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex_any.h"
#include "scenario_limits.h"
#include "util.h"

#define JSON_DEPTH 64

/* ---- the libyaml document: find nodes by field path ---- */

yaml_node_t *doc_node(struct load_ctx *c, int id)
{
	return yaml_document_get_node(&c->doc, id);
}

bool scalar_is(const yaml_node_t *n, const char *s, size_t len)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
	       !memcmp(n->data.scalar.value, s, len);
}

/* The last pair of mapping m whose key is k (len bytes); NULL if none. */
yaml_node_pair_t *doc_pair(struct load_ctx *c, yaml_node_t *m, const char *k, size_t len)
{
	yaml_node_pair_t *hit = NULL;

	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (scalar_is(doc_node(c, p->key), k, len))
			hit = p;
	return hit;
}

yaml_node_t *doc_item(struct load_ctx *c, yaml_node_t *s, unsigned long i)
{
	if (!s || s->type != YAML_SEQUENCE_NODE)
		return NULL;
	if (i >= (unsigned long)(s->data.sequence.items.top - s->data.sequence.items.start))
		return NULL;
	return doc_node(c, s->data.sequence.items.start[i]);
}

/* One step of a path such as "machine.disks[1].size"; advances *p. */
static bool doc_step(struct load_ctx *c, const char **p, struct doc_hit *h)
{
	const char *s = *p;
	yaml_node_pair_t *pair;
	yaml_node_t *next;
	size_t len;

	if (*s == '[') {
		next = doc_item(c, h->val, strtoul(s + 1, NULL, 10));
		s += strcspn(s, "]");
		s += *s == ']';
		h->key = NULL;
	} else {
		s += *s == '.';
		len = strcspn(s, ".[");
		pair = doc_pair(c, h->val, s, len);
		next = pair ? doc_node(c, pair->value) : NULL;
		h->key = pair ? doc_node(c, pair->key) : NULL;
		s += len;
	}
	*p = s;
	if (next)
		h->val = next;
	return next != NULL;
}

void doc_find(struct load_ctx *c, const char *path, struct doc_hit *h)
{
	h->key = NULL;
	h->val = yaml_document_get_root_node(&c->doc);
	h->complete = h->val != NULL;
	while (h->complete && path && *path)
		h->complete = doc_step(c, &path, h);
}

yaml_node_t *doc_get(struct load_ctx *c, const char *path)
{
	struct doc_hit h;

	doc_find(c, path, &h);
	return h.complete ? h.val : NULL;
}

/* ---- errors ---- */

/* Every error is added to the load's list: the loader goes on where it
 * can (the next key, the next step) and reports them all. */
static void err_vset(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt,
		     va_list ap)
{
	scenario_error_vadd(c->err, at ? (int)at->start_mark.line + 1 : 0,
			    at ? (int)at->start_mark.column + 1 : 0, field, fmt, ap);
}

/* Report at node at (NULL: no location). Returns -EINVAL. */
int fail_at(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(c, at, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report at the value the field path names, or its nearest ancestor present
 * in the file (a defaulted field has no line of its own). */
int fail(struct load_ctx *c, const char *field, const char *fmt, ...)
{
	struct doc_hit h;
	va_list ap;

	doc_find(c, field, &h);
	va_start(ap, fmt);
	err_vset(c, h.val, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report at line:col (1-based; 0 for none) of the file, no node at hand. */
int fail_pos(struct load_ctx *c, int line, int col, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	scenario_error_vadd(c->err, line, col, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report at the file's first line: what is wrong is the file as a whole. */
int fail_line1(struct load_ctx *c, const char *msg)
{
	return fail_pos(c, 1, 1, "", "%s", msg);
}

const char *node_desc(const yaml_node_t *n, char *buf, size_t len)
{
	if (!n)
		return "nothing";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	snprintf(buf, len, "\"%.*s\"",
		 (int)(n->data.scalar.length > 60 ? 60 : n->data.scalar.length),
		 (const char *)n->data.scalar.value);
	return buf;
}

/* ---- YAML to JSON, for qmp arguments and expect.json ---- */

static json_t *scalar_to_json(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;
	char *end;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_string(s);
	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	    !strcmp(s, "NULL"))
		return json_null();
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		return json_true();
	if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return json_false();
	errno = 0;
	long long i = strtoll(s, &end, 10);
	if (!*end && !errno)
		return json_integer(i);
	double d = strtod(s, &end);
	if (!*end && strpbrk(s, "0123456789") && !strpbrk(s, "xXnN"))
		return json_real(d);
	return json_string(s);
}

static json_t *node_to_json(struct load_ctx *c, yaml_node_t *n, int depth);

static json_t *mapping_to_json(struct load_ctx *c, yaml_node_t *n, int depth)
{
	json_t *obj = json_object();

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = doc_node(c, p->key);
		json_t *v = node_to_json(c, doc_node(c, p->value), depth + 1);

		if (!v || !k || k->type != YAML_SCALAR_NODE) {
			json_decref(v);
			json_decref(obj);
			return NULL;
		}
		json_object_set_new(obj, (const char *)k->data.scalar.value, v);
	}
	return obj;
}

static json_t *node_to_json(struct load_ctx *c, yaml_node_t *n, int depth)
{
	json_t *arr;

	if (!n || depth > JSON_DEPTH)
		return NULL;
	if (n->type == YAML_SCALAR_NODE)
		return scalar_to_json(n);
	if (n->type == YAML_MAPPING_NODE)
		return mapping_to_json(c, n, depth);
	arr = json_array();
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		json_t *v = node_to_json(c, doc_node(c, *i), depth + 1);

		if (!v) {
			json_decref(arr);
			return NULL;
		}
		json_array_append_new(arr, v);
	}
	return arr;
}

/* The mapping at path as a JSON object into *out (NULL when absent). */
int mapping_field_json(struct load_ctx *c, const char *path, json_t **out)
{
	yaml_node_t *n = doc_get(c, path);
	char buf[80];

	*out = NULL;
	if (!n)
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, path, "expected a mapping, got %s", node_desc(n, buf, sizeof(buf)));
	*out = node_to_json(c, n, 0);
	if (!*out)
		return fail(c, path, "keys must be plain strings and nesting at most %d deep",
			    JSON_DEPTH);
	return 0;
}

const struct regex_use use_stdout = {
	REG_NEWLINE,
	false,
	"any output, even none",
	"write what the output must hold (\"^ready$\" for a line that is exactly "
	"ready), or leave stdout out to check only the exit code",
};
const struct regex_use use_wait = {
	0,
	true,
	"any console line, even an empty one, so the wait ends at the first line",
	"write what the line waited for holds (\"Freezing user space\")",
};
const struct regex_use use_finding = {
	0,
	true,
	"any report's title",
	"write what the title holds (\"^memcg OOM kill: \", \"^WARNING in nvme_\"; "
	"docs/debugging.md lists the titles)",
};
const struct regex_use use_json = {
	0,
	false,
	"any string, even \"\"",
	"write what the value must be: the value itself, or an anchored pattern "
	"(\"^[0-9]+$\")",
};

/* The runner matches with POSIX extended regexes, as a search: refuse one
 * that does not compile, whose compiled form could take more memory or
 * time than a scenario may (scenario_limits.c), or that finds a match in
 * every text (regex_any.c), which passes whatever the guest did. */
int regex_refusal(const char *pattern, const struct regex_use *u, char *why, size_t len)
{
	int r;

	if (limits_check_regex(pattern, why, len) < 0)
		return -EINVAL;
	r = regex_matches_any(pattern, u->cflags, u->lines);
	if (r < 0)
		snprintf(why, len, "not a POSIX extended regular expression");
	else if (r > 0)
		snprintf(why, len, "/%.60s/ matches %s: it checks nothing; %s", pattern, u->any,
			 u->instead);
	return r ? -EINVAL : 0;
}

int check_regex(struct load_ctx *c, const char *field, const char *pattern,
		const struct regex_use *u)
{
	char why[512];

	if (regex_refusal(pattern, u, why, sizeof(why)) < 0)
		return fail(c, field, "%s", why);
	return 0;
}

/* A duration field into *out; eg: examples for the message. */
int duration_field(struct load_ctx *c, const char *f, const char *v, int64_t *out, const char *eg)
{
	int r = parse_duration_ms(v, out);

	if (r == -ERANGE)
		return fail(c, f,
			    "\"%.40s\" is longer than 24h, the longest duration a scenario "
			    "may give",
			    v);
	if (r < 0)
		return fail(c, f, "\"%.60s\" is not a duration; write e.g. %s", v, eg);
	return 0;
}

bool name_valid_metric(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

int word_index(const char *w, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, words[i]))
			return (int)i;
	return -1;
}

/* A duration for a message: 500ms, 90s, 1.5s. */
const char *ms_str(int64_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%lldms", (long long)ms);
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%llds", (long long)(ms / 1000));
	else
		snprintf(buf, len, "%.3gs", (double)ms / 1000);
	return buf;
}
