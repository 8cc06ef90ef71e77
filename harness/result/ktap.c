#include "ktap.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* One result line and what nested below it, until flattened into paths. */
struct node {
	char *name;
	enum status status;
	char *reason;
	int64_t duration_ms;
	char *diag;
	struct node *kids;
	size_t nkids;
	bool suite; /* a nested test closed into it, even one with no results */
};

/* One open level: the top, or a nested test whose result line is yet to
 * come. Its results so far, and what the next result line takes over. */
struct block {
	int line;	  /* where it opened */
	long plan;	  /* -1 until a plan line */
	size_t count;	  /* result lines so far */
	bool has_version; /* a version line opened it */
	char *name;	  /* KUnit's "# Subtest: NAME", or NULL */
	struct node *nodes;
	size_t nnodes;
	char *diag; /* diagnostic lines waiting for the next result */
	int64_t duration_ms;
};

enum kind { K_VERSION, K_PLAN, K_RESULT, K_SUBTEST, K_DIAG, K_OTHER };

struct parser {
	struct block stack[KTAP_MAX_DEPTH + 1];
	int depth;	    /* index of the innermost open block; -1 before the version line */
	size_t total;	    /* result lines at any level */
	struct node *child; /* the block the last line closed, for the next result */
	size_t nchild;
	bool closed; /* a block was closed for the next result, child may be empty */
	char *child_diag;
	bool done;
	int lineno;
	struct ktap_error *err;
	char *skip_all;
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	p->err->line = p->lineno;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n->reason);
	free(n->diag);
}

static void nodes_free(struct node *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		node_free(&v[i]);
	free(v);
}

static void block_free(struct block *b)
{
	nodes_free(b->nodes, b->nnodes);
	free(b->name);
	free(b->diag);
	memset(b, 0, sizeof(*b));
}

/* Append text (n bytes) as a line of *diag, keeping at most KTAP_MAX_DIAG. */
static void diag_add(char **diag, const char *text, size_t n)
{
	size_t have = *diag ? strlen(*diag) : 0;

	if (have + n + 2 > KTAP_MAX_DIAG)
		return;
	*diag = xrealloc(*diag, have + n + 2);
	if (have)
		(*diag)[have++] = '\n';
	memcpy(*diag + have, text, n);
	(*diag)[have + n] = '\0';
}

static void diag_move(char **to, char **from)
{
	if (*from)
		diag_add(to, *from, strlen(*from));
	free(*from);
	*from = NULL;
}

/* "[    1.234567] " and "[    1.234567][    T1] ": the kernel log's prefix. */
static size_t prefix_len(const char *s, size_t n)
{
	size_t i = 0;

	for (int part = 0; part < 2 && i < n && s[i] == '['; part++) {
		size_t j = i + 1;

		while (j < n && s[j] == ' ')
			j++;
		if (part == 1 && j < n && (s[j] == 'T' || s[j] == 'C'))
			j++;
		while (j < n && (isdigit((unsigned char)s[j]) || (part == 0 && s[j] == '.')))
			j++;
		if (j >= n || s[j] != ']' || j == i + 1)
			break;
		i = j + 1;
	}
	if (i && i < n && s[i] == ' ')
		i++;
	return i;
}

static bool starts(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && !memcmp(s, word, w);
}

/* A decimal number at *s (n bytes left) that fits in a long; advances. */
static bool number(const char **s, size_t *n, long *out)
{
	long v = 0;
	size_t i = 0;

	while (i < *n && isdigit((unsigned char)(*s)[i])) {
		if (v > (LONG_MAX - 9) / 10)
			return false;
		v = v * 10 + ((*s)[i] - '0');
		i++;
	}
	if (!i)
		return false;
	*s += i, *n -= i, *out = v;
	return true;
}

static enum kind classify(const char *s, size_t n)
{
	if (starts(s, n, "KTAP version ") || starts(s, n, "TAP version "))
		return K_VERSION;
	if (starts(s, n, "1.."))
		return K_PLAN;
	if ((starts(s, n, "ok") && (n == 2 || s[2] == ' ')) ||
	    (starts(s, n, "not ok") && (n == 6 || s[6] == ' ')))
		return K_RESULT;
	if (starts(s, n, "# Subtest: "))
		return K_SUBTEST;
	if (starts(s, n, "#"))
		return K_DIAG;
	return K_OTHER;
}

/* The versions read: KTAP 1, and the TAP kselftest prints. */
static const char *const versions[] = { "KTAP version 1", "TAP version 13", "TAP version 14" };

static int check_version(struct parser *p, const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (n == strlen(versions[i]) && !memcmp(s, versions[i], n))
			return 0;
	return perr(p, "\"%.*s\": only KTAP version 1 and TAP version 13 or 14 are read",
		    (int)(n > 40 ? 40 : n), s);
}

/* "1..N", optionally "# SKIP reason". */
static int on_plan(struct parser *p, struct block *b, const char *s, size_t n)
{
	long plan;

	s += 3, n -= 3;
	if (!number(&s, &n, &plan))
		return perr(p, "a plan line needs a number after \"1..\"");
	if (plan > KTAP_MAX_TESTS)
		return perr(p, "a plan of %ld tests; a step takes at most %d", plan,
			    KTAP_MAX_TESTS);
	if (b->plan >= 0)
		return perr(p, "a second plan line in the test opened at line %d", b->line);
	if (b->count && (size_t)plan != b->count)
		return perr(p, "the plan says %ld tests but %zu were reported", plan, b->count);
	b->plan = plan;
	if (p->depth == 0 && (size_t)plan == b->count)
		p->done = true;
	while (n && *s == ' ')
		s++, n--;
	if (p->depth == 0 && plan == 0 && n && *s == '#') {
		s++, n--;
		while (n && *s == ' ')
			s++, n--;
		if (n >= 4 && !strncasecmp(s, "SKIP", 4)) {
			s += 4, n -= 4;
			while (n && *s == ' ')
				s++, n--;
			free(p->skip_all);
			p->skip_all = xasprintf("%.*s", (int)n, s);
		}
	}
	return 0;
}

/* The directive after " # " in a result line: SKIP and TODO set status. */
static void directive(struct node *nd, const char *d, size_t n)
{
	while (n && *d == ' ')
		d++, n--;
	if (n >= 4 && (!strncasecmp(d, "SKIP", 4) || !strncasecmp(d, "TODO", 4))) {
		bool todo = !strncasecmp(d, "TODO", 4);

		nd->status = ST_SKIP;
		d += 4, n -= 4;
		while (n && *d == ' ')
			d++, n--;
		n = str_trim_len(d, n, " \r");
		if (todo)
			nd->reason = xasprintf("TODO%s%.*s", n ? " " : "", (int)n, d);
		else if (n)
			nd->reason = xasprintf("%.*s", (int)n, d);
	}
}

/* "ok N - name # directive": fills nd; the number into *num. */
static int result_fields(struct parser *p, const char *s, size_t n, struct node *nd, long *num)
{
	const char *hash;
	size_t name_n;

	nd->status = s[0] == 'o' ? ST_PASS : ST_FAIL;
	s += nd->status == ST_PASS ? 2 : 6, n -= nd->status == ST_PASS ? 2 : 6;
	while (n && *s == ' ')
		s++, n--;
	if (!number(&s, &n, num))
		return perr(p, "a result line needs its test number after \"%s\"",
			    nd->status == ST_PASS ? "ok" : "not ok");
	while (n && *s == ' ')
		s++, n--;
	if (n >= 2 && s[0] == '-' && s[1] == ' ')
		s += 2, n -= 2;
	hash = memchr(s, '#', n);
	name_n = hash ? (size_t)(hash - s) : n;
	if (hash)
		directive(nd, hash + 1, n - name_n - 1);
	/* a NUL byte (a guest's garbage) ends the name as it would end the string */
	name_n = str_trim_len(s, strnlen(s, name_n), " \r");
	if (name_n > KTAP_MAX_NAME)
		name_n = KTAP_MAX_NAME;
	/* kselftest's "ok 3 # SKIP why" has no name: the number stands in */
	nd->name = name_n ? xasprintf("%.*s", (int)name_n, s) : xasprintf("%ld", *num);
	return 0;
}

static int on_result(struct parser *p, const char *s, size_t n)
{
	struct block *b = &p->stack[p->depth];
	struct node nd = { .duration_ms = -1 };
	long num;
	int ret;

	ret = result_fields(p, s, n, &nd, &num);
	if (!ret && (size_t)num != b->count + 1)
		ret = perr(p, "test number %ld, expected %zu", num, b->count + 1);
	if (!ret && b->plan >= 0 && b->count + 1 > (size_t)b->plan)
		ret = perr(p, "test %ld is past the plan of %ld", num, b->plan);
	if (!ret && ++p->total > KTAP_MAX_TESTS)
		ret = perr(p, "more than %d results; a step takes no more", KTAP_MAX_TESTS);
	if (ret) {
		node_free(&nd);
		return ret;
	}
	nd.kids = p->child, nd.nkids = p->nchild;
	nd.suite = p->closed;
	p->child = NULL, p->nchild = 0;
	p->closed = false;
	diag_move(&nd.diag, &b->diag);
	diag_move(&nd.diag, &p->child_diag);
	nd.duration_ms = b->duration_ms;
	b->duration_ms = -1;
	b->nodes = xrealloc(b->nodes, (b->nnodes + 1) * sizeof(*b->nodes));
	b->nodes[b->nnodes++] = nd;
	b->count++;
	if (p->depth == 0 && b->plan >= 0 && b->count == (size_t)b->plan)
		p->done = true;
	return 0;
}

/* "# time=1.5s", "# time=200ms" before a result: its duration. */
static void diag_duration(struct block *b, const char *s, size_t n)
{
	char buf[32];
	char *end;
	double v;

	if (n < 5 || n - 5 >= sizeof(buf) || strncmp(s, "time=", 5))
		return;
	memcpy(buf, s + 5, n - 5);
	buf[n - 5] = '\0';
	str_trim(buf, " \r");
	v = strtod(buf, &end);
	if (end == buf || v < 0 || v > 1e9)
		return;
	if (!strcmp(end, "ms"))
		b->duration_ms = (int64_t)v;
	else if (!strcmp(end, "s"))
		b->duration_ms = (int64_t)(v * 1000);
}

static void on_diag(struct block *b, const char *s, size_t n)
{
	s++, n--;
	if (n && *s == ' ')
		s++, n--;
	n = str_trim_len(s, n, " \r");
	diag_duration(b, s, n);
	diag_add(&b->diag, s, n);
}

static int push(struct parser *p)
{
	struct block *b;

	if (p->depth >= KTAP_MAX_DEPTH)
		return perr(p, "nested more than %d levels deep", KTAP_MAX_DEPTH);
	b = &p->stack[++p->depth];
	memset(b, 0, sizeof(*b));
	b->line = p->lineno;
	b->plan = -1;
	b->duration_ms = -1;
	return 0;
}

/* The innermost block ends at its parent's result line: it must have met
 * its plan; its results become that result's children. */
static int pop(struct parser *p)
{
	struct block *b = &p->stack[p->depth];

	if (b->plan >= 0 && b->count != (size_t)b->plan)
		return perr(p,
			    "the nested test opened at line %d planned %ld tests but "
			    "reported %zu",
			    b->line, b->plan, b->count);
	p->child = b->nodes, p->nchild = b->nnodes;
	p->closed = true;
	b->nodes = NULL, b->nnodes = 0;
	p->child_diag = b->diag;
	b->diag = NULL;
	block_free(b);
	p->depth--;
	return 0;
}

/* A line of kind k at nesting level lvl, depth the innermost block. */
static int on_level(struct parser *p, enum kind k, int lvl)
{
	if (lvl > p->depth + 1)
		return perr(p, "indented %d levels inside a test nested %d deep", lvl, p->depth);
	if (lvl == p->depth + 1)
		return push(p);
	if (lvl == p->depth)
		return 0;
	if (k != K_RESULT || lvl < p->depth - 1)
		return perr(p, "the nested test opened at line %d has no result line",
			    p->stack[p->depth].line);
	return pop(p);
}

static int on_line(struct parser *p, const char *s, size_t n)
{
	size_t ind = 0;
	enum kind k;

	while (ind < n && s[ind] == ' ')
		ind++;
	s += ind, n -= ind;
	k = classify(s, n);
	if (p->depth < 0) {
		if (k != K_VERSION || ind)
			return 0;
		push(p);
		p->depth = 0;
		p->stack[0].has_version = true;
		return check_version(p, s, n);
	}
	if (k == K_OTHER) {
		/* KUnit's failure details ("Expected a == b, but") inside a nested
		 * test; unindented strangers (other kernel messages) are dropped */
		if (p->depth > 0 && ind >= 4 * (size_t)p->depth && n)
			diag_add(&p->stack[p->depth].diag, s, str_trim_len(s, n, " \r"));
		return 0;
	}
	if (k == K_DIAG) {
		/* diagnostics attach to the level they are indented to, or the innermost */
		int lvl = ind % 4 ? p->depth : (int)(ind / 4);

		on_diag(&p->stack[lvl > p->depth ? p->depth : lvl], s, n);
		return 0;
	}
	if (ind % 4)
		return perr(p, "indented by %zu spaces, not a multiple of 4", ind);
	return on_level(p, k, (int)(ind / 4));
}

static int on_kind(struct parser *p, const char *s, size_t n)
{
	struct block *b = &p->stack[p->depth];
	size_t ind = 0;

	while (ind < n && s[ind] == ' ')
		ind++;
	s += ind, n -= ind;
	switch (classify(s, n)) {
	case K_VERSION:
		if (b->has_version || b->count)
			return perr(p, "a second version line in the test opened at line %d",
				    b->line);
		b->has_version = true;
		return check_version(p, s, n);
	case K_PLAN:
		return on_plan(p, b, s, n);
	case K_RESULT:
		return on_result(p, s, n);
	case K_SUBTEST:
		free(b->name);
		b->name = xasprintf("%.*s", (int)str_trim_len(s + 11, n - 11, " \r"), s + 11);
		return 0;
	default:
		return 0;
	}
}

/* Pre-order: each result, then what nested below it, named by its path. */
static void flatten(struct ktap_doc *doc, struct node *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		struct subtest *t = &doc->tests[doc->count++];

		t->name = path ? xasprintf("%s.%s", path, v[i].name) : xstrdup(v[i].name);
		t->status = v[i].status;
		t->reason = v[i].reason, v[i].reason = NULL;
		t->diag = v[i].diag, v[i].diag = NULL;
		t->duration_ms = v[i].duration_ms;
		flatten(doc, v[i].kids, v[i].nkids, t->name);
	}
}

/* The test points below v: results with nothing nested below them. A suite
 * counts its own points, not itself; one whose nested test reported none
 * (an empty plan) has none, unless its own result says it was skipped or
 * failed, which is then its one point. */
static void count_points(struct ktap_doc *doc, const struct node *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].nkids)
			count_points(doc, v[i].kids, v[i].nkids);
		else if (v[i].status == ST_SKIP)
			doc->points_skipped++;
		else if (v[i].status == ST_FAIL || !v[i].suite)
			doc->points_run++;
	}
}

static int finish(struct parser *p, struct ktap_doc *doc)
{
	struct block *top = &p->stack[0];

	if (p->depth < 0) {
		p->lineno = 0;
		perr(p, "no \"KTAP version 1\" or \"TAP version 13\" line");
		return -ENOENT;
	}
	if (!p->done) {
		if (p->depth > 0)
			return perr(p, "the output ended inside the nested test opened at line %d",
				    p->stack[p->depth].line);
		if (top->plan < 0)
			return perr(p, "the output ended without a plan line (\"1..N\")");
		if (top->count < (size_t)top->plan)
			return perr(p, "the output ended after %zu of the %ld planned tests",
				    top->count, top->plan);
	}
	doc->tests = xcalloc(p->total ? p->total : 1, sizeof(*doc->tests));
	flatten(doc, top->nodes, top->nnodes, NULL);
	for (size_t i = 0; i < top->nnodes; i++) {
		doc->top_failed += top->nodes[i].status == ST_FAIL;
		doc->top_skipped += top->nodes[i].status == ST_SKIP;
	}
	doc->top_count = top->nnodes;
	count_points(doc, top->nodes, top->nnodes);
	doc->skip_all = p->skip_all, p->skip_all = NULL;
	return 0;
}

static void parser_free(struct parser *p)
{
	for (int i = 0; i <= p->depth; i++)
		block_free(&p->stack[i]);
	nodes_free(p->child, p->nchild);
	free(p->child_diag);
	free(p->skip_all);
}

/* One document from *s: up to its top-level plan's last result, whose
 * lines after it are not read by it. *s is left after the last line read,
 * *lineno counting every line from the start of the whole input. */
static int parse_doc(const char **s, const char *end, int *lineno, struct ktap_doc *doc,
		     struct ktap_error *err)
{
	struct parser p = { .depth = -1, .err = err, .lineno = *lineno };
	int ret = 0;

	memset(doc, 0, sizeof(*doc));
	while (*s < end && !p.done && !ret) {
		const char *nl = memchr(*s, '\n', (size_t)(end - *s));
		size_t n = nl ? (size_t)(nl - *s) : (size_t)(end - *s);
		size_t pre = prefix_len(*s, n);
		bool was_before = p.depth < 0;

		p.lineno++;
		ret = on_line(&p, *s + pre, str_trim_len(*s + pre, n - pre, "\r"));
		if (!ret && !was_before)
			ret = on_kind(&p, *s + pre, str_trim_len(*s + pre, n - pre, "\r"));
		*s = nl ? nl + 1 : end;
	}
	if (!ret)
		ret = finish(&p, doc);
	*lineno = p.lineno;
	parser_free(&p);
	if (ret)
		ktap_doc_free(doc);
	return ret;
}

/* Past the lines up to the next top-level version line (left at *s); false
 * when there is none. */
static bool next_doc(const char **s, const char *end, int *lineno)
{
	while (*s < end) {
		const char *nl = memchr(*s, '\n', (size_t)(end - *s));
		size_t n = nl ? (size_t)(nl - *s) : (size_t)(end - *s);
		size_t pre = prefix_len(*s, n);

		if (classify(*s + pre, n - pre) == K_VERSION)
			return true;
		(*lineno)++;
		*s = nl ? nl + 1 : end;
	}
	return false;
}

/* more's tests after doc's, its counts added; more is emptied. */
static int doc_append(struct ktap_doc *doc, struct ktap_doc *more, int lineno,
		      struct ktap_error *err)
{
	if (doc->count + more->count > KTAP_MAX_TESTS) {
		err->line = lineno;
		snprintf(err->msg, sizeof(err->msg), "more than %d results; a step takes no more",
			 KTAP_MAX_TESTS);
		ktap_doc_free(more);
		return -EINVAL;
	}
	doc->tests = xrealloc(doc->tests, (doc->count + more->count + 1) * sizeof(*doc->tests));
	memcpy(doc->tests + doc->count, more->tests, more->count * sizeof(*more->tests));
	doc->count += more->count;
	doc->top_count += more->top_count;
	doc->top_failed += more->top_failed;
	doc->top_skipped += more->top_skipped;
	doc->points_run += more->points_run;
	doc->points_skipped += more->points_skipped;
	/* "1..0 # SKIP why" stands for the whole only while nothing else ran */
	if (!doc->skip_all)
		doc->skip_all = more->skip_all, more->skip_all = NULL;
	free(more->tests);
	more->tests = NULL, more->count = 0;
	ktap_doc_free(more);
	return 0;
}

/* Every document of the input, one after another: kselftest's runner
 * prints one per collection (its own version line, its own plan), KUnit
 * one per module loaded after boot. Lines between them are not read. */
int ktap_parse(const char *text, size_t len, struct ktap_doc *doc, struct ktap_error *err)
{
	const char *s = text, *end = text + len;
	int lineno = 0, ret;
	struct ktap_doc more;

	memset(err, 0, sizeof(*err));
	ret = parse_doc(&s, end, &lineno, doc, err);
	while (!ret && next_doc(&s, end, &lineno)) {
		ret = parse_doc(&s, end, &lineno, &more, err);
		if (!ret)
			ret = doc_append(doc, &more, lineno, err);
	}
	if (ret)
		ktap_doc_free(doc);
	return ret;
}

void ktap_subtest_free(struct subtest *st)
{
	free(st->name);
	free(st->reason);
	free(st->diag);
}

void ktap_doc_free(struct ktap_doc *doc)
{
	for (size_t i = 0; i < doc->count; i++)
		ktap_subtest_free(&doc->tests[i]);
	free(doc->tests);
	free(doc->skip_all);
	memset(doc, 0, sizeof(*doc));
}
