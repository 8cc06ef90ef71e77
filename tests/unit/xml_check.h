/* A small XML 1.0 well-formedness checker for the tests of the writers
 * (JUnit report, timeline SVG). Header-only: each test program that
 * includes it gets its own static copy. */
#ifndef KTB_TEST_XML_CHECK_H
#define KTB_TEST_XML_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * A small XML 1.0 well-formedness checker, independent of the writer: every
 * character legal and valid UTF-8, tags balanced, attributes quoted, '&' only
 * in entity references, '<' never in text or attributes, no "]]>" in text.
 */
static bool xml_chars_legal(const unsigned char *s)
{
	while (*s) {
		unsigned long cp;
		int n = *s < 0x80	      ? 1
			: (*s & 0xe0) == 0xc0 ? 2
			: (*s & 0xf0) == 0xe0 ? 3
			: (*s & 0xf8) == 0xf0 ? 4
					      : 0;

		if (!n)
			return false;
		cp = n == 1 ? *s : (unsigned long)(*s & (0x7f >> n));
		for (int i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
			return false;
		if (!(cp == 9 || cp == 10 || cp == 13 || (cp >= 0x20 && cp <= 0xd7ff) ||
		      (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)))
			return false;
		s += n;
	}
	return true;
}

static bool xml_ref(const char **p)
{
	static const char *const named[] = { "amp;", "lt;", "gt;", "quot;", "apos;" };
	const char *s = *p + 1;

	for (size_t i = 0; i < 5; i++) {
		if (!strncmp(s, named[i], strlen(named[i]))) {
			*p = s + strlen(named[i]);
			return true;
		}
	}
	if (*s++ != '#')
		return false;
	if (*s == 'x')
		s++;
	if (!strchr("0123456789abcdefABCDEF", *s) || !*s)
		return false;
	while (*s && strchr("0123456789abcdefABCDEF", *s))
		s++;
	if (*s != ';')
		return false;
	*p = s + 1;
	return true;
}

static size_t xml_name(const char *s)
{
	size_t n = 0;

	if (!(s[0] == '_' || s[0] == ':' || ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z')))
		return 0;
	while (s[n] && (strchr("_:.-", s[n]) || (s[n] >= '0' && s[n] <= '9') ||
			((s[n] | 0x20) >= 'a' && (s[n] | 0x20) <= 'z')))
		n++;
	return n;
}

static void xml_space(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

/* Attributes up to '>' or "/>"; *empty says which. */
static bool xml_attrs(const char **p, bool *empty)
{
	for (;;) {
		const char *s = *p;
		size_t n;
		char q;

		xml_space(&s);
		if (*s == '>' || (s[0] == '/' && s[1] == '>')) {
			*empty = *s == '/';
			*p = s + (*empty ? 2 : 1);
			return true;
		}
		if (s == *p || !(n = xml_name(s)))
			return false;
		s += n;
		xml_space(&s);
		if (*s++ != '=')
			return false;
		xml_space(&s);
		q = *s++;
		if (q != '"' && q != '\'')
			return false;
		while (*s != q) {
			if (!*s || *s == '<')
				return false;
			if (*s != '&')
				s++;
			else if (!xml_ref(&s))
				return false;
		}
		*p = s + 1;
	}
}

static bool xml_text(const char **p)
{
	const char *s = *p;

	while (*s && *s != '<') {
		if (!strncmp(s, "]]>", 3))
			return false;
		if (*s == '&') {
			if (!xml_ref(&s))
				return false;
		} else {
			s++;
		}
	}
	*p = s;
	return true;
}

static bool xml_wellformed(const char *doc)
{
	char stack[16][64];
	const char *p = doc, *end;
	int depth = 0;
	bool empty, root_done = false;

	if (!xml_chars_legal((const unsigned char *)doc))
		return false;
	if (!strncmp(p, "<?xml", 5)) {
		end = strstr(p, "?>");
		if (!end)
			return false;
		p = end + 2;
	}
	for (;;) {
		if (depth == 0)
			xml_space(&p);
		else if (!xml_text(&p))
			return false;
		if (!*p)
			return depth == 0 && root_done;
		if (*p != '<' || (depth == 0 && root_done))
			return false;
		if (p[1] == '/') {
			size_t n = xml_name(p + 2);

			if (!depth || !n || strncmp(p + 2, stack[depth - 1], n) ||
			    stack[depth - 1][n])
				return false;
			p += 2 + n;
			xml_space(&p);
			if (*p++ != '>')
				return false;
			root_done = --depth == 0;
			continue;
		}
		size_t n = xml_name(p + 1);

		if (!n || n >= 64 || depth == 16)
			return false;
		snprintf(stack[depth], sizeof(stack[depth]), "%.*s", (int)n, p + 1);
		p += 1 + n;
		if (!xml_attrs(&p, &empty))
			return false;
		if (empty)
			root_done = depth == 0;
		else
			depth++;
	}
}

#endif
