#include "junit.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "util.h"

static int jerr(struct ktap_error *err, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int jerr(struct ktap_error *err, int line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* s cut to at most max bytes (a malloc'd string, or NULL). */
static char *cut(char *s, size_t max)
{
	if (s && strlen(s) > max)
		s[max] = '\0';
	return s;
}

/* The seconds of a time="S" attribute as milliseconds, or -1. */
static int64_t seconds_ms(const char *s)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	v = strtod(s, &end);
	while (*end == ' ' || *end == 's')
		end++;
	if (*end || v != v || v < 0 || v > 1e9)
		return -1;
	return (int64_t)(v * 1000 + 0.5);
}

/* Room for one more test in doc; NULL past KTAP_MAX_TESTS. */
static struct subtest *doc_add(struct ktap_doc *doc)
{
	struct subtest *t;

	if (doc->count >= KTAP_MAX_TESTS)
		return NULL;
	doc->tests = xrealloc(doc->tests, (doc->count + 1) * sizeof(*doc->tests));
	t = &doc->tests[doc->count++];
	memset(t, 0, sizeof(*t));
	t->duration_ms = -1;
	return t;
}

/* A test point's verdict into the counts, as ktap_parse keeps them. */
static void doc_count(struct ktap_doc *doc, enum status st)
{
	doc->top_count++;
	if (st == ST_FAIL)
		doc->top_failed++;
	if (st == ST_SKIP) {
		doc->top_skipped++;
		doc->points_skipped++;
	} else {
		doc->points_run++;
	}
}

/* ------------------------------------------------------------ JUnit XML */

static bool is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, (const xmlChar *)name);
}

static char *attr(const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	char *s = v ? xstrdup((const char *)v) : NULL;

	xmlFree(v);
	return s;
}

static char *content(const xmlNode *n)
{
	xmlChar *v = xmlNodeGetContent(n);
	char *s = v ? xstrdup((const char *)v) : NULL;

	xmlFree(v);
	return cut(s, KTAP_MAX_DIAG - 1);
}

/* The diagnostic of a <failure> or <error>: its message, then its text. */
static char *failure_diag(const xmlNode *f, char *diag)
{
	char *msg = attr(f, "message"), *text = content(f), *all;

	all = xasprintf("%s%s%s%s%s", diag ? diag : "", diag ? "\n" : "", msg ? msg : "",
			msg && text && *text ? "\n" : "", text ? text : "");
	free(msg);
	free(text);
	free(diag);
	return cut(all, KTAP_MAX_DIAG - 1);
}

static int junit_case(struct ktap_doc *doc, const char *suite, const xmlNode *tc,
		      struct ktap_error *err)
{
	char *name = attr(tc, "name"), *time = attr(tc, "time");
	struct subtest *t;

	if (!name || !*name) {
		free(name);
		free(time);
		return jerr(err, (int)xmlGetLineNo(tc), "a <testcase> without a name");
	}
	t = doc_add(doc);
	if (!t) {
		free(name);
		free(time);
		return jerr(err, (int)xmlGetLineNo(tc), "more than %d tests", KTAP_MAX_TESTS);
	}
	t->name = cut(suite ? xasprintf("%s.%s", suite, name) : xstrdup(name), KTAP_MAX_NAME);
	t->status = ST_PASS;
	t->duration_ms = seconds_ms(time);
	free(name);
	free(time);
	for (const xmlNode *k = tc->children; k; k = k->next) {
		if (is(k, "failure") || is(k, "error")) {
			t->status = ST_FAIL;
			t->diag = failure_diag(k, t->diag);
			free(t->reason);
			t->reason = NULL;
		} else if (is(k, "skipped") && t->status != ST_FAIL) {
			t->status = ST_SKIP;
			free(t->reason);
			t->reason = attr(k, "message");
			if (!t->reason || !*t->reason) {
				free(t->reason);
				t->reason = content(k);
			}
			t->reason = cut(t->reason, KTAP_MAX_DIAG - 1);
		}
	}
	doc_count(doc, t->status);
	return 0;
}

/* Named <testsuite> elements at and below n. */
static size_t named_suites(const xmlNode *n, int depth)
{
	size_t c = 0;
	char *name;

	if (depth > KTAP_MAX_DEPTH)
		return 0;
	if (is(n, "testsuite") && (name = attr(n, "name"))) {
		c += *name != '\0';
		free(name);
	}
	for (const xmlNode *k = n->children; k; k = k->next)
		if (is(k, "testsuite") || is(k, "testsuites"))
			c += named_suites(k, depth + 1);
	return c;
}

static int junit_suite(struct ktap_doc *doc, const xmlNode *s, const char *parent, bool prefix,
		       int depth, struct ktap_error *err)
{
	char *name = attr(s, "name"), *path = NULL;
	int ret = 0;

	if (depth > KTAP_MAX_DEPTH) {
		free(name);
		return jerr(err, (int)xmlGetLineNo(s), "test suites nested more than %d deep",
			    KTAP_MAX_DEPTH);
	}
	if (prefix && name && *name)
		path = parent ? xasprintf("%s.%s", parent, name) : xstrdup(name);
	else if (parent)
		path = xstrdup(parent);
	for (const xmlNode *k = s->children; k && !ret; k = k->next) {
		if (is(k, "testcase"))
			ret = junit_case(doc, path, k, err);
		else if (is(k, "testsuite"))
			ret = junit_suite(doc, k, path, prefix, depth + 1, err);
	}
	free(path);
	free(name);
	return ret;
}

int junit_parse(const char *text, size_t len, struct ktap_doc *doc, struct ktap_error *err)
{
	const int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			 XML_PARSE_NOCDATA | XML_PARSE_NOXINCNODE;
	const xmlError *e;
	xmlNode *root;
	xmlDoc *x;
	bool prefix;
	int ret = 0;

	memset(doc, 0, sizeof(*doc));
	memset(err, 0, sizeof(*err));
	if (len > INT_MAX)
		return jerr(err, 0, "more than %d bytes", INT_MAX);
	while (len && strchr(" \t\r\n", *text) && *text) {
		text++;
		len--;
	}
	if (!len)
		return jerr(err, 0, "no XML at all (empty output)");
	xmlResetLastError();
	x = xmlReadMemory(text, (int)len, "junit.xml", NULL, opts);
	if (!x) {
		e = xmlGetLastError();
		return jerr(err, e ? e->line : 0, "not XML: %.200s",
			    e && e->message ? e->message : "unreadable");
	}
	root = xmlDocGetRootElement(x);
	if (x->intSubset || x->extSubset)
		ret = jerr(err, 0,
			   "a DOCTYPE, which no JUnit writer makes; refused (its entities "
			   "could multiply the text)");
	else if (!root || (!is(root, "testsuites") && !is(root, "testsuite")))
		ret = jerr(err, root ? (int)xmlGetLineNo(root) : 0,
			   "the root element is <%.40s>, not <testsuites> or <testsuite>",
			   root ? (const char *)root->name : "");
	if (!ret) {
		prefix = named_suites(root, 0) > 1;
		ret = junit_suite(doc, root, NULL, prefix, 0, err);
	}
	xmlFreeDoc(x);
	if (ret)
		ktap_doc_free(doc);
	return ret;
}

/* ------------------------------------------------------- blktests' results */

/* The reasons check printed under "NAME ... [not run]": its following
 * lines indented by four spaces, "; "-joined; NULL when none. */
static char *notrun_reason(const char *out, const char *name)
{
	size_t n = strlen(name);
	const char *line = out, *next;
	char *why = NULL, *w;

	for (; line && *line; line = next) {
		size_t len = strcspn(line, "\n");

		next = line[len] ? line + len + 1 : NULL;
		if (strncmp(line, name, n) || (line[n] != ' ' && line[n] != '\t') ||
		    !memmem(line, len, "[not run]", 9))
			continue;
		while (next && !strncmp(next, "    ", 4)) {
			size_t l = strcspn(next, "\n");

			w = xasprintf("%s%s%.*s", why ? why : "", why ? "; " : "", (int)(l - 4),
				      next + 4);
			free(why);
			why = w;
			next = next[l] ? next + l + 1 : NULL;
		}
		if (why)
			break;
	}
	return cut(why, KTAP_MAX_DIAG - 1);
}

/* "DEV/GROUP/NNN" (a leading "./" dropped) as the test's name; NULL when
 * path is not that, or holds a control character. */
static char *blktests_name(const char *path, size_t len)
{
	const char *s1, *s2;

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f)
			return NULL;
	if (len >= 2 && !strncmp(path, "./", 2)) {
		path += 2;
		len -= 2;
	}
	s1 = memchr(path, '/', len);
	s2 = s1 ? memchr(s1 + 1, '/', len - (size_t)(s1 + 1 - path)) : NULL;
	if (!s1 || !s2 || s1 == path || s2 == s1 + 1 || s2 + 1 >= path + len ||
	    memchr(s2 + 1, '/', len - (size_t)(s2 + 1 - path)))
		return NULL;
	if (s1 - path == 5 && !strncmp(path, "nodev", 5))
		return xasprintf("%.*s", (int)(len - 6), s1 + 1);
	if (s1 - path > 6 && !strncmp(path, "nodev_", 6))
		return xasprintf("%.*s (%.*s)", (int)(len - (size_t)(s1 + 1 - path)), s1 + 1,
				 (int)(s1 - path - 6), path + 6);
	return xasprintf("%.*s => %.*s", (int)(len - (size_t)(s1 + 1 - path)), s1 + 1,
			 (int)(s1 - path), path);
}

/* One "key<TAB>value" line of the current test's file. */
static int blktests_kv(struct subtest *t, const char *line, size_t len, int lineno,
		       struct ktap_error *err)
{
	const char *tab = memchr(line, '\t', len);
	size_t klen = tab ? (size_t)(tab - line) : len, vlen = tab ? len - klen - 1 : 0;
	const char *v = tab ? tab + 1 : "";
	char *d;

	if (klen == 6 && !strncmp(line, "status", 6)) {
		if (vlen == 4 && !strncmp(v, "pass", 4))
			t->status = ST_PASS;
		else if (vlen == 4 && !strncmp(v, "fail", 4))
			t->status = ST_FAIL;
		else if (vlen == 7 && !strncmp(v, "not run", 7))
			t->status = ST_SKIP;
		else
			return jerr(err, lineno, "status \"%.*s\" is none of pass, fail, not run",
				    (int)(vlen > 40 ? 40 : vlen), v);
	} else if (klen == 7 && !strncmp(line, "runtime", 7)) {
		char *s = xasprintf("%.*s", (int)(vlen > 40 ? 40 : vlen), v);

		t->duration_ms = seconds_ms(s);
		free(s);
	} else if ((klen == 6 && !strncmp(line, "reason", 6)) ||
		   (klen == 11 && !strncmp(line, "exit_status", 11))) {
		d = xasprintf("%s%s%.*s: %.*s", t->diag ? t->diag : "", t->diag ? "\n" : "",
			      (int)klen, line, (int)(vlen > 200 ? 200 : vlen), v);
		free(t->diag);
		t->diag = cut(d, KTAP_MAX_DIAG - 1);
	}
	return 0;
}

/* The test just read: it must have said its status. */
static int blktests_close(struct ktap_doc *doc, const char *check_out, int line, bool *has_status,
			  struct ktap_error *err)
{
	struct subtest *t = &doc->tests[doc->count - 1];

	if (!*has_status)
		return jerr(err, line, "the results of %s have no status line", t->name);
	if (t->status == ST_SKIP && check_out)
		t->reason = notrun_reason(check_out, t->name);
	if (t->status != ST_FAIL) {
		free(t->diag); /* exit_status 0 and the like: nothing to say */
		t->diag = NULL;
	}
	doc_count(doc, t->status);
	return 0;
}

int blktests_parse(const char *dump, size_t len, const char *check_out, struct ktap_doc *doc,
		   struct ktap_error *err)
{
	const char *p = dump, *end = dump + len;
	bool open = false, has_status = false;
	int lineno = 0, ret = 0;
	struct subtest *t;

	memset(doc, 0, sizeof(*doc));
	memset(err, 0, sizeof(*err));
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lineno++;
		if (l && p[l - 1] == '\r')
			l--;
		if (l >= 3 && !strncmp(p, "== ", 3)) {
			char *name = blktests_name(p + 3, l - 3);

			if (open)
				ret = blktests_close(doc, check_out, lineno, &has_status, err);
			if (!ret && !name)
				ret = jerr(err, lineno, "%.*s is not DEVICE/GROUP/TEST",
					   (int)(l - 3 > 80 ? 80 : l - 3), p + 3);
			if (!ret && !(t = doc_add(doc)))
				ret = jerr(err, lineno, "more than %d tests", KTAP_MAX_TESTS);
			if (!ret) {
				t->name = cut(name, KTAP_MAX_NAME);
				name = NULL;
				open = true;
				has_status = false;
			}
			free(name);
		} else if (l && !open) {
			ret = jerr(err, lineno, "a line before the first results file");
		} else if (l) {
			has_status = has_status || (l > 7 && !strncmp(p, "status\t", 7));
			ret = blktests_kv(&doc->tests[doc->count - 1], p, l, lineno, err);
		}
		p = nl ? nl + 1 : end;
	}
	if (!ret && open)
		ret = blktests_close(doc, check_out, lineno, &has_status, err);
	if (ret)
		ktap_doc_free(doc);
	return ret;
}
