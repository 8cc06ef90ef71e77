/* The suspend/resume timeline as SVG: well-formed XML whatever the guest's
 * log held, the phases and slowest devices of the captured S3 cycle in it,
 * a phases-only picture without pm_print_times, and no picture without a
 * cycle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "util.h"

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
	static const char *const named[] = {"amp;", "lt;", "gt;", "quot;", "apos;"};
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

static char *sample(const char *name)
{
	char *path = xasprintf("%s/pm/%s", KTB_TEST_DATA, name);
	size_t len;
	char *s = read_file(path, &len);

	assert_non_null(s);
	free(path);
	return s;
}

/* The SVG of one cycle of @log, as a string; asserts timeline_svg's @want. */
static char *render(const char *log, size_t cycle, int want)
{
	struct pm_report r;
	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);

	assert_non_null(f);
	assert_int_equal(pmlog_parse(log, &r), 0);
	assert_int_equal(timeline_svg(&r, cycle, f), want);
	assert_int_equal(fclose(f), 0);
	pm_report_free(&r);
	return svg;
}

static void test_xml_checker(void **state)
{
	(void)state;
	assert_true(
	    xml_wellformed("<?xml version=\"1.0\"?>\n<a x=\"1&amp;\"><b/>t&#10;&lt;</a>\n"));
	assert_false(xml_wellformed("<a><b></a></b>"));
	assert_false(xml_wellformed("<a>x & y</a>"));
	assert_false(xml_wellformed("<a x=\"<\"/>"));
}

static void test_s3_picture(void **state)
{
	static const char *const want[] = {
	    "sync",
	    "freeze_user",
	    "freeze_kernel",
	    "suspend_late",
	    "suspend_noirq",
	    "resume_noirq",
	    "resume_early",
	    "thaw_tasks",
	    "S3 sleep",
	    "S3 (deep)",
	    "virtio-pci 0000:00:01.0",
	    "pci_pm_suspend",
	    "5.92 ms",
	    "6.21 ms",
	    "Slowest suspend callbacks",
	    "Slowest resume callbacks",
	};
	char *log = sample("s3-deep.txt"), *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_non_null(strstr(svg, want[i]));
	/* self-contained: nothing to run, nothing to fetch */
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "href"));
	assert_null(strstr(svg, "@import"));
	free(svg);
	free(log);
}

static void test_phases_only(void **state)
{
	char *log = sample("s4-console.txt"), *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg, "S4 (hibernate)"));
	assert_non_null(strstr(svg, "restore_noirq"));
	assert_non_null(strstr(svg, "prealloc"));
	assert_non_null(strstr(svg, "No per-device times"));
	assert_null(strstr(svg, "Slowest"));
	free(svg);
	free(log);
}

/* Each pm_test cycle, the refused one (no sleep point) included. */
static void test_pm_test_cycles(void **state)
{
	char *log = sample("pm-test.txt");

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char *svg = render(log, i, 0);

		assert_true(xml_wellformed(svg));
		assert_non_null(strstr(svg, i == 1 ? "did not sleep" : "pm_test wait"));
		free(svg);
	}
	free(render(log, 3, -EINVAL));
	free(log);
}

static void test_no_cycles(void **state)
{
	char *svg;

	(void)state;
	svg = render("[    1.000000] nothing to see\n", 0, -ENODATA);
	assert_true(!svg || !*svg);
	free(svg);
	assert_int_equal(timeline_svg(NULL, 0, stdout), -ENODATA);
}

/* Whatever a device calls itself reaches the picture escaped. */
static void test_hostile_names(void **state)
{
	static const char log[] =
	    "[    1.000000] PM: suspend entry (deep)\n"
	    "[    1.001000] we<i>rd &dev \"q\" 'a' \x01\xff: PM: cb<x>+0x0/0x1 [m&d] returned 0 "
	    "after 900 usecs\n"
	    "[    1.002000] ACPI: PM: Preparing to enter system sleep state S3\n"
	    "[    1.003000] ACPI: PM: Waking up from system sleep state S3\n"
	    "[    1.004000] ]]> PM: Some devices failed to suspend <now> & \xc3\n"
	    "[    1.005000] PM: suspend exit\n";
	char *svg = render(log, 0, 0);

	(void)state;
	assert_true(xml_wellformed(svg));
	assert_non_null(strstr(svg, "we&lt;i&gt;rd &amp;dev &quot;q&quot; &apos;a&apos; ??"));
	assert_non_null(strstr(svg, "cb&lt;x&gt;"));
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xml_checker), cmocka_unit_test(test_s3_picture),
	    cmocka_unit_test(test_phases_only), cmocka_unit_test(test_pm_test_cycles),
	    cmocka_unit_test(test_no_cycles),	cmocka_unit_test(test_hostile_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
