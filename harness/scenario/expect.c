#include "expect.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "util.h"

/* How much of a value or of stdout a message quotes. */
#define SHOW_MAX 80

/* Append one difference to *why, "; "-separated. */
static void why_add(char **why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_add(char **why, const char *fmt, ...)
{
	va_list ap;
	char *msg, *all;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (!*why) {
		*why = msg;
		return;
	}
	all = xasprintf("%s; %s", *why, msg);
	free(*why);
	free(msg);
	*why = all;
}

/* A value as compact, ASCII-only JSON, cut at SHOW_MAX with "...". */
static char *expect_show(const json_t *v)
{
	/* 15 digits: 0.99 reads 0.99, not the 17-digit double nearest it */
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII |
					JSON_REAL_PRECISION(15))
		    : NULL;

	if (!s)
		return xstrdup(v ? "?" : "nothing");
	if (strlen(s) > SHOW_MAX)
		strcpy(s + SHOW_MAX - 3, "...");
	return s;
}

/* Captured text quoted the same way, safe for any bytes. */
static char *expect_show_text(const char *text)
{
	char *clean = utf8_sanitize(text);
	json_t *j = json_string(clean);
	char *s = expect_show(j);

	json_decref(j);
	free(clean);
	return s;
}

/* 0 match, 1 no match, -EINVAL (err filled) for a bad pattern. */
static int expect_regex(const char *re, const char *s, int flags, char *err, size_t errlen)
{
	regex_t rx;
	int ret;

	ret = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB | flags);
	if (ret) {
		regerror(ret, &rx, err, errlen);
		return -EINVAL;
	}
	ret = regexec(&rx, s, 0, NULL, 0) ? 1 : 0;
	regfree(&rx);
	return ret;
}

json_t *expect_parse_output(const char *out)
{
	return out ? json_loads(out, JSON_DECODE_ANY, NULL) : NULL;
}

static bool path_index(const char *s, size_t *idx)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*idx = strtoul(s, &end, 10);
	return !*end && !errno;
}

json_t *expect_json_path(json_t *root, const char *path)
{
	char *copy = xstrdup(path), *save = NULL, *part;
	json_t *v = root;
	size_t idx;

	for (part = strtok_r(copy, ".", &save); part && v; part = strtok_r(NULL, ".", &save)) {
		if (json_is_object(v))
			v = json_object_get(v, part);
		else if (json_is_array(v) && path_index(part, &idx))
			v = json_array_get(v, idx);
		else
			v = NULL;
	}
	free(copy);
	return v;
}

/* json_equal, except that 4096 and 4096.0 are the same number: YAML and the
 * tools under test disagree on when a number is a real. */
static bool expect_equal(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *va;
	size_t i;

	if (!a || !b)
		return a == b;
	if (json_is_integer(a) && json_is_integer(b))
		return json_integer_value(a) == json_integer_value(b);
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_typeof(a) != json_typeof(b))
		return false;
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		json_array_foreach (a, i, va)
			if (!expect_equal(va, json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a)) {
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach ((json_t *)a, key, va)
			if (!json_object_get(b, key) || !expect_equal(va, json_object_get(b, key)))
				return false;
		return true;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

/* One operator of an {op: arg} expectation: true when got satisfies it.
 * *want always gets what was expected; *seen may get what was found when
 * that says more than the value itself (a length). */
typedef bool (*expect_op_fn)(const json_t *arg, const json_t *got, const char *op, char **want,
			     char **seen);

static bool op_compare(const json_t *arg, const json_t *got, const char *op, char **want,
		       char **seen)
{
	char *a = expect_show(arg);
	double x, y;
	bool ok = false;

	(void)seen;
	*want = xasprintf(
	    "%s %s", op[0] == 'g' ? (op[1] == 'e' ? ">=" : ">") : (op[1] == 'e' ? "<=" : "<"), a);
	free(a);
	if (!json_is_number(got) || !json_is_number(arg))
		return false;
	x = json_number_value(got);
	y = json_number_value(arg);
	if (!strcmp(op, "ge"))
		ok = x >= y;
	else if (!strcmp(op, "gt"))
		ok = x > y;
	else if (!strcmp(op, "le"))
		ok = x <= y;
	else
		ok = x < y;
	return ok;
}

static bool op_ne(const json_t *arg, const json_t *got, const char *op, char **want, char **seen)
{
	char *a = expect_show(arg);

	(void)op, (void)seen;
	*want = xasprintf("!= %s", a);
	free(a);
	/* absent is not "something else": {x: {ne: 0}} must not pass without x,
	 * nor on null, which the guest tools write for what they could not read */
	return got && !json_is_null(got) && !expect_equal(arg, got);
}

static bool op_re(const json_t *arg, const json_t *got, const char *op, char **want, char **seen)
{
	const char *re = json_is_string(arg) ? json_string_value(arg) : "";
	char err[128];
	int ret = 1;

	(void)op, (void)seen;
	if (json_is_string(arg) && json_is_string(got))
		ret = expect_regex(re, json_string_value(got), 0, err, sizeof(err));
	if (ret < 0)
		*want = xasprintf("a string matching /%s/ (bad regex: %s)", re, err);
	else
		*want = xasprintf("a string matching /%s/", re);
	return ret == 0;
}

static bool op_len(const json_t *arg, const json_t *got, const char *op, char **want, char **seen)
{
	char *a = expect_show(arg);
	size_t n;

	(void)op;
	*want = xasprintf("length %s", a);
	free(a);
	if (json_is_array(got))
		n = json_array_size(got);
	else if (json_is_object(got))
		n = json_object_size(got);
	else if (json_is_string(got))
		n = json_string_length(got);
	else
		return false;
	*seen = xasprintf("length %zu", n);
	return json_is_integer(arg) && json_integer_value(arg) == (json_int_t)n;
}

static const struct {
	const char *name;
	expect_op_fn fn;
} expect_ops[] = {
	{ "ge", op_compare }, { "gt", op_compare }, { "le", op_compare }, { "lt", op_compare },
	{ "ne", op_ne },      { "re", op_re },	    { "len", op_len },
};

static expect_op_fn expect_op_find(const char *name)
{
	for (size_t i = 0; i < sizeof(expect_ops) / sizeof(expect_ops[0]); i++)
		if (!strcmp(expect_ops[i].name, name))
			return expect_ops[i].fn;
	return NULL;
}

/* {ge: 1} is a comparison; {a: 1} or {} is a value to compare with. */
static bool expect_is_ops(const json_t *v)
{
	const char *key;
	json_t *arg;

	if (!json_is_object(v) || !json_object_size(v))
		return false;
	json_object_foreach ((json_t *)v, key, arg)
		if (!expect_op_find(key))
			return false;
	return true;
}

static void expect_ops_check(const char *path, const json_t *ops, const json_t *got, char **why)
{
	char *want, *seen;
	const char *op;
	json_t *arg;

	json_object_foreach ((json_t *)ops, op, arg) {
		seen = NULL;
		if (!expect_op_find(op)(arg, got, op, &want, &seen)) {
			if (!seen)
				seen = expect_show(got);
			why_add(why, "json %s: expected %s, got %s", path, want, seen);
		}
		free(want);
		free(seen);
	}
}

static void expect_json_one(const char *path, const json_t *want, json_t *root, char **why)
{
	json_t *got = expect_json_path(root, path);
	char *w, *g;

	if (expect_is_ops(want)) {
		expect_ops_check(path, want, got, why);
		return;
	}
	if (got && expect_equal(want, got))
		return;
	w = expect_show(want);
	g = expect_show(got);
	why_add(why, "json %s: expected %s, got %s", path, w, g);
	free(w);
	free(g);
}

static void expect_json_all(const json_t *checks, const char *out, json_t *data, char **why)
{
	json_t *parsed = NULL, *want;
	json_error_t err;
	const char *path;

	if (!data) {
		parsed = json_loads(out, JSON_DECODE_ANY, &err);
		if (!parsed) {
			why_add(why, "stdout is not JSON: %s (line %d, column %d)", err.text,
				err.line, err.column);
			return;
		}
		data = parsed;
	}
	json_object_foreach ((json_t *)checks, path, want)
		expect_json_one(path, want, data, why);
	json_decref(parsed);
}

static void expect_stdout(const char *re, const char *out, char **why)
{
	char err[128], *shown;
	int ret;

	ret = expect_regex(re, out, REG_NEWLINE, err, sizeof(err));
	if (ret < 0)
		why_add(why, "bad regex /%s/: %s", re, err);
	if (ret <= 0)
		return;
	shown = expect_show_text(out);
	why_add(why, "stdout did not match /%s/: %s", re, shown);
	free(shown);
}

int expect_verify(const struct expect *e, int exit_code, const char *out, json_t *data, char **why)
{
	int want_exit = e && e->exit ? *e->exit : 0;

	*why = NULL;
	if (!out)
		out = "";
	if (exit_code != want_exit)
		why_add(why, "exit: expected %d, got %d", want_exit, exit_code);
	if (e && e->stdout_re)
		expect_stdout(e->stdout_re, out, why);
	if (e && json_object_size(e->json))
		expect_json_all(e->json, out, data, why);
	return *why ? 1 : 0;
}
