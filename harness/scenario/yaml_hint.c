/* What a YAML syntax error most likely means (yaml_hint.h). */
#include "yaml_hint.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Line n (1-based) of data: its start and length, without the newline. */
static const char *text_line(const char *data, size_t len, size_t n, size_t *out)
{
	const char *p = data, *end = data + len, *nl;

	for (size_t i = 1; i < n && p < end; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*out = (size_t)((nl ? nl : end) - p);
	if (*out && p[*out - 1] == '\r')
		(*out)--;
	return p;
}

/* The spaces a line starts with. */
static size_t text_indent(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && l[i] == ' ')
		i++;
	return i;
}

/* The nearest line above line n that holds something other than a comment;
 * 0 if none. */
static size_t text_prev(const char *data, size_t len, size_t n)
{
	size_t ln, ind;
	const char *l;

	while (--n > 0) {
		l = text_line(data, len, n, &ln);
		ind = text_indent(l, ln);
		if (ind < ln && l[ind] != '#')
			return n;
	}
	return 0;
}

/* A "key: value" line: the offset of the value after the first ": " (0 if
 * the line is not one); a list entry's "- " is skipped. */
static size_t text_value_at(const char *l, size_t n)
{
	size_t i = text_indent(l, n), k;

	if (i + 1 < n && l[i] == '-' && l[i + 1] == ' ')
		i = i + 2 + text_indent(l + i + 2, n - i - 2);
	k = i;
	while (i + 1 < n && !(l[i] == ':' && l[i + 1] == ' ') && l[i] != '"' && l[i] != '\'' &&
	       l[i] != '#')
		i++;
	if (i + 1 >= n || l[i] != ':' || i == k)
		return 0;
	i++;
	return i + text_indent(l + i, n - i);
}

/* "mapping values are not allowed": a ": " where the line's value goes on,
 * most often a value that holds ": " itself (run: echo a: b). */
static void hint_colon(const char *data, size_t len, const yaml_mark_t *m, char *h, size_t hl)
{
	size_t ln, pn, v, prev = text_prev(data, len, m->line + 1);
	const char *l = text_line(data, len, m->line + 1, &ln), *pl;
	const char *q;

	v = text_value_at(l, ln);
	if (v && v <= m->column) {
		size_t k = text_indent(l, ln);

		if (k + 1 < ln && l[k] == '-' && l[k + 1] == ' ')
			k += 2;
		q = memchr(l + v, '"', ln - v) ? "'" : "\"";
		snprintf(h, hl,
			 "the value on line %zu holds \": \", which YAML reads as a second key; "
			 "quote the value: %.*s%s%.*s%s",
			 (size_t)m->line + 1, (int)(v - k > 80 ? 80 : v - k), l + k, q,
			 (int)(ln - v > 60 ? 60 : ln - v), l + v, q);
		return;
	}
	pl = prev ? text_line(data, len, prev, &pn) : NULL;
	if (pl && text_indent(l, ln) > text_indent(pl, pn))
		snprintf(h, hl,
			 "line %zu is indented deeper (%zu spaces) than line %zu (%zu), so YAML "
			 "reads it as more of line %zu's value; give the keys of one mapping the "
			 "same indentation",
			 (size_t)m->line + 1, text_indent(l, ln), prev, text_indent(pl, pn), prev);
	else if (pl && !text_value_at(pl, pn) && pn && pl[pn - 1] != ':')
		snprintf(h, hl,
			 "line %zu has no \": \" after its key, so YAML reads it and line %zu as "
			 "one text; write each key as key: value",
			 prev, (size_t)m->line + 1);
}

/* A block mapping or list whose next line lines up with neither it nor the
 * line above. */
static void hint_indent(const char *data, size_t len, const yaml_parser_t *p, bool list, char *h,
			size_t hl)
{
	size_t ln, pn, prev = text_prev(data, len, p->problem_mark.line + 1);
	size_t at = p->context_mark.column, line = p->problem_mark.line + 1;
	const char *l = text_line(data, len, line, &ln);
	const char *pl = prev ? text_line(data, len, prev, &pn) : NULL;
	size_t ind = text_indent(l, ln);
	char above[80] = "";

	if (pl && prev != p->context_mark.line + 1)
		snprintf(above, sizeof(above), ", line %zu at %zu", prev, text_indent(pl, pn));
	if (list)
		snprintf(h, hl,
			 "line %zu is indented %zu space%s, but the list begun on line %zu has "
			 "its '-' at %zu and the keys of its entries at %zu%s; indent the line "
			 "as one of them",
			 line, ind, ind == 1 ? "" : "s", (size_t)p->context_mark.line + 1, at,
			 at + 2, above);
	else
		snprintf(h, hl,
			 "line %zu is indented %zu space%s, but the mapping begun on line %zu "
			 "has its keys at %zu%s; the keys of one mapping line up",
			 line, ind, ind == 1 ? "" : "s", (size_t)p->context_mark.line + 1, at,
			 above);
}

/* Does the line of mark m hold a tab where YAML wants indentation, or at m? */
static bool text_tab_at(const char *data, size_t len, const yaml_mark_t *m)
{
	size_t ln, col = 0, i;
	const char *l = text_line(data, len, m->line + 1, &ln);

	for (i = 0; i < ln && (l[i] == ' ' || l[i] == '\t'); i++)
		if (l[i] == '\t')
			return true;
	for (i = 0; i < ln; i++) {
		if (((unsigned char)l[i] & 0xc0) == 0x80)
			continue;
		if (col++ == m->column)
			return l[i] == '\t';
	}
	return false;
}

/* What a libyaml syntax error most likely means, for the common cases. */
void yaml_syntax_hint(const char *data, size_t len, const yaml_parser_t *p, char *h, size_t hl)
{
	const char *what = p->problem ? p->problem : "";
	const char *ctx = p->context ? p->context : "";

	h[0] = '\0';
	if (strstr(what, "tab") || text_tab_at(data, len, &p->problem_mark))
		snprintf(h, hl,
			 "line %zu holds a tab: YAML indents with spaces only; replace the tab "
			 "with spaces",
			 (size_t)p->problem_mark.line + 1);
	else if (strstr(what, "mapping values are not allowed"))
		hint_colon(data, len, &p->problem_mark, h, hl);
	else if (strstr(what, "did not find expected key") && strstr(ctx, "block mapping"))
		hint_indent(data, len, p, false, h, hl);
	else if (strstr(what, "expected '-' indicator"))
		hint_indent(data, len, p, true, h, hl);
	else if (strstr(what, "unknown escape character"))
		snprintf(h, hl,
			 "in double quotes a backslash starts an escape (\\n, \\\\); write a "
			 "regular expression in single quotes ('[0-9]+\\.') or double each "
			 "backslash");
	else if (strstr(what, "end of stream") && strstr(ctx, "quoted scalar"))
		snprintf(h, hl, "the quote opened on line %zu, column %zu, is never closed",
			 (size_t)p->context_mark.line + 1, (size_t)p->context_mark.column + 1);
	else if (strstr(what, "expected ',' or"))
		snprintf(h, hl,
			 "in the flow %s begun on line %zu, quote a value that holds \": \", "
			 "',', '[', ']', '{' or '}' ({run: \"echo a: b\"}), and close the %s",
			 strstr(what, "']'") ? "list [...]" : "mapping {...}",
			 (size_t)p->context_mark.line + 1, strstr(what, "']'") ? "']'" : "'}'");
	else if (strstr(what, "could not find expected ':'"))
		snprintf(h, hl, "line %zu holds a key without \": \" after it; write key: value",
			 (size_t)p->context_mark.line + 1);
}
