/* The HTML report: its escaping on every byte and on hostile strings, the
 * page's structure (only the tags and attributes it writes itself, one
 * script, whose hash the Content-Security-Policy names), the console tail
 * and timeline it reads from the artifacts, findings (kernel reports) made
 * of hostile strings, and pass rates from --repeat results read back from a
 * run document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "report_html.h"
#include "sha256.h"
#include "util.h"

/* What a hostile guest or scenario author can put in a string. */
static const char *const hostile[] = {
	"</script><script>document.title='pwned'</script>",
	"<svg onload=\"alert(1)\">",
	"<img src=x onerror='alert(2)'>",
	"\" onmouseover=\"alert(3)\" x=\"",
	"' autofocus onfocus='alert(4)",
	"</pre></details></section><h1>fake</h1>",
	"<!-- --><![CDATA[ ]]>&amp;&lt;&#60;",
	"\033[1;31mred\033[0m\033]0;title\a \x01\x02\x7f\x1b",
	"bad\xff\xfe utf8 \xc3\xa9 \xe2\x82 \xed\xa0\x80 \xef\xbf\xbe \xc2\x85 end",
};

/* ---- helpers ---- */

static char *escaped(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	html_escape(f, s, n);
	fclose(f);
	return buf;
}

static char *render(const struct run_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(report_html(r, f), 0);
	fclose(f);
	assert_int_equal(strlen(buf), len); /* no NUL inside */
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strcasestr(p, needle)); p++)
		n++;
	return n;
}

/* Shortest-form UTF-8 without surrogates, checked apart from the writer. */
static bool utf8_valid(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80	      ? 1
			: (*s & 0xe0) == 0xc0 ? 2
			: (*s & 0xf0) == 0xe0 ? 3
			: (*s & 0xf8) == 0xf0 ? 4
					      : 0;
		unsigned long cp;

		if (!n)
			return false;
		cp = n == 1 ? *s : (unsigned long)(*s & (0x7f >> n));
		for (int i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		s += n;
	}
	return true;
}

/* Valid UTF-8, and no control character but tab, LF and CR. */
static void assert_clean_text(const char *s)
{
	assert_true(utf8_valid((const unsigned char *)s));
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		assert_false(*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r');
		assert_false(*p == 0x7f);
		assert_false(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f); /* C1 */
	}
}

/* Text safe anywhere: no markup character, '&' only opening a reference. */
static void assert_inert(const char *s)
{
	assert_clean_text(s);
	assert_null(strpbrk(s, "<>\"'"));
	for (const char *p = s; (p = strchr(p, '&')); p++)
		assert_true(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) ||
			    !strncmp(p, "&gt;", 4) || !strncmp(p, "&quot;", 6) ||
			    !strncmp(p, "&#39;", 5));
}

static bool in_list(const char *name, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncasecmp(*list, name, n))
			return true;
	return false;
}

static const char *const page_tags[] = {
	"!DOCTYPE", "html", "head",    "meta",	  "title", "style",  "body",   "h1",	  "h2",
	"h3",	    "p",    "small",   "table",	  "thead", "tbody",  "tr",     "th",	  "td",
	"span",	    "a",    "div",     "label",	  "input", "select", "option", "section", "dl",
	"dt",	    "dd",   "details", "summary", "pre",   "img",    "script", NULL,
};
static const char *const page_attrs[] = {
	"lang",	       "charset",   "http-equiv",  "content",	   "name",  "id",   "class",
	"hidden",      "type",	    "placeholder", "autocomplete", "value", "href", "data-section",
	"data-status", "data-name", "open",	   "alt",	   "src",   "html", NULL,
};

/* Attributes of the tag at p (just past its name) up to '>'; returns '>'. */
static const char *scan_attrs(const char *p)
{
	for (;;) {
		size_t n;

		p += strspn(p, " \n");
		if (*p == '>')
			return p;
		n = strcspn(p, " =>\n");
		assert_true(n > 0);
		if (!in_list(p, n, page_attrs))
			fail_msg("attribute not written by the reporter: %.*s", (int)n, p);
		p += n;
		if (*p == '=') {
			assert_int_equal(p[1], '"');
			p = strchr(p + 2, '"');
			assert_non_null(p);
			p++;
		}
	}
}

/* Every tag and attribute in the page is one the reporter writes itself:
 * nothing from the results turned into markup. */
static void assert_structure(const char *page)
{
	for (const char *p = strchr(page, '<'); p; p = strchr(p, '<')) {
		size_t n;

		p += 1 + (p[1] == '/');
		n = strcspn(p, " >\n");
		if (!in_list(p, n, page_tags))
			fail_msg("tag not written by the reporter: <%.*s", (int)n, p);
		if (p[-1] != '/' && (!strncmp(p, "script>", 7) || !strncmp(p, "style>", 6))) {
			p = strstr(p, p[1] == 'c' ? "</script>" : "</style>");
			assert_non_null(p);
			continue;
		}
		p = scan_attrs(p + n);
	}
}

static void fill_scenario(struct scenario_result *s, const char *name, enum status st)
{
	struct step_result *step = scenario_result_add_step(s);

	s->name = xstrdup(name);
	s->file = xasprintf("scenarios/%s.yaml", name);
	s->status = st;
	s->duration_ms = 9800;
	s->metrics = json_pack("{s:i, s:f, s:s}", "boot_ms", 7200, "ratio", 0.5, "note", "<b>");
	s->kernel = xstrdup("6.1.0-57-amd64");
	s->accel = xstrdup("tcg");
	step->name = xstrdup("run: ktb-probe cpus");
	step->status = st;
	step->line = 7;
	step->start_ms = 7300;
	step->duration_ms = 400;
	step->exit_code = 0;
	step->out = xstrdup("{\"online\":2}\n");
}

/* A kernel report made of s: the findings table and its folded stack. */
static void hostile_finding(struct scenario_result *sc, const char *s)
{
	struct finding *f = scenario_result_add_finding(sc);

	f->kind = xstrdup(s);
	f->title = xstrdup(s);
	f->signature = xstrdup(s);
	f->reason = xstrdup(s);
	f->text = xstrdup(s);
	f->step = 1;
	f->frames = xcalloc(1, sizeof(*f->frames));
	f->frames[0].func = xstrdup(s);
	f->frames[0].off = xstrdup(s);
	f->frames[0].module = xstrdup(s);
	f->frames_count = 1;
}

/* One scenario per hostile string, its name, tag, message, step,
 * finding and console all made of it; then a plain passing one. */
static void hostile_run(struct run_result *r)
{
	size_t n = sizeof(hostile) / sizeof(hostile[0]);

	memset(r, 0, sizeof(*r));
	r->run_id = xstrdup("20261203-<run>");
	r->started_unix_ms = 1738324800000LL;
	r->duration_ms = 41300;
	r->count = n + 1;
	r->scenarios = xcalloc(r->count, sizeof(*r->scenarios));
	for (size_t i = 0; i < n; i++) {
		struct scenario_result *s = &r->scenarios[i];
		struct step_result *st;
		struct subtest *sub;

		fill_scenario(s, hostile[i], ST_FAIL);
		s->summary = xstrdup(hostile[i]);
		s->tags = xcalloc(1, sizeof(char *));
		s->tags[s->tags_count++] = xstrdup(hostile[i]);
		s->message = xstrdup(hostile[i]);
		s->console_tail = xstrdup(hostile[i]);
		s->artifacts = xasprintf("/nonexistent/%s", hostile[i]);
		st = scenario_result_add_step(s);
		st->name = xstrdup(hostile[i]);
		st->status = ST_FAIL;
		st->message = xstrdup(hostile[i]);
		st->out = xstrdup(hostile[i]);
		st->err = xstrdup(hostile[i]);
		sub = step_result_add_subtest(st);
		sub->name = xstrdup(hostile[i]);
		sub->status = ST_FAIL;
		sub->reason = xstrdup(hostile[i]);
		sub->diag = xstrdup(hostile[i]);
		json_object_set_new(s->metrics, hostile[i], json_string(hostile[i]));
		hostile_finding(s, hostile[i]);
	}
	fill_scenario(&r->scenarios[n], "smoke", ST_PASS);
}

/* ---- escaping ---- */

static void test_escape_markup(void **state)
{
	char *e;

	(void)state;
	e = escaped(hostile[0], strlen(hostile[0]));
	assert_string_equal(e, "&lt;/script&gt;&lt;script&gt;document.title=&#39;pwned&#39;&lt;"
			       "/script&gt;");
	free(e);
	e = escaped(hostile[1], strlen(hostile[1]));
	assert_string_equal(e, "&lt;svg onload=&quot;alert(1)&quot;&gt;");
	free(e);
	e = escaped(hostile[6], strlen(hostile[6]));
	assert_string_equal(e, "&lt;!-- --&gt;&lt;![CDATA[ ]]&gt;&amp;amp;&amp;lt;&amp;#60;");
	free(e);
}

static void test_escape_bytes(void **state)
{
	char *e;

	(void)state;
	/* escape sequences go whole, controls go, tab/LF/CR and UTF-8 stay */
	e = escaped(hostile[7], strlen(hostile[7]));
	assert_string_equal(e, "red ");
	free(e);
	e = escaped("a\tb\r\nc \xc3\xa9 \xf0\x9f\x90\xa7", 14);
	assert_string_equal(e, "a\tb\r\nc \xc3\xa9 \xf0\x9f\x90\xa7");
	free(e);
	/* bad bytes, a cut sequence, a surrogate, a noncharacter, a C1 control */
	e = escaped(hostile[8], strlen(hostile[8]));
	assert_string_equal(e,
			    "bad\xef\xbf\xbd\xef\xbf\xbd utf8 \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd "
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd \xef\xbf\xbd end");
	free(e);
	/* a NUL inside the given length (console.log may hold one) goes too */
	e = escaped("a\0b", 3);
	assert_string_equal(e, "ab");
	free(e);
}

/* Every byte value alone, and pseudo-random byte strings: the output is
 * always inert text. */
static void test_escape_any_bytes(void **state)
{
	uint32_t seed = 12345;
	char buf[256];
	char *e;

	(void)state;
	for (int b = 0; b < 256; b++) {
		buf[0] = (char)b;
		e = escaped(buf, 1);
		assert_inert(e);
		free(e);
	}
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (char)(seed >> 16);
		}
		e = escaped(buf, sizeof(buf));
		assert_inert(e);
		free(e);
	}
}

/* ---- the page ---- */

static void test_page_hostile(void **state)
{
	struct run_result r;
	char *page;

	(void)state;
	hostile_run(&r);
	page = render(&r);
	assert_clean_text(page);
	assert_structure(page);
	/* one script element, one style element: the page's own */
	assert_int_equal(count(page, "<script"), 1);
	assert_int_equal(count(page, "</script"), 1);
	assert_int_equal(count(page, "<style"), 1);
	assert_int_equal(count(page, "<svg"), 0);
	/* the attack strings are there, as text only */
	assert_int_equal(count(page, "onload"), count(page, "&lt;svg onload="));
	assert_int_equal(count(page, "onerror"), count(page, "&lt;img src=x onerror=&#39;"));
	assert_non_null(strstr(page, "&lt;svg onload=&quot;alert(1)&quot;&gt;"));
	assert_non_null(strstr(page, "<title>ktestbed run 20261203-&lt;run&gt;</title>"));
	/* every scenario has its row and its section, every row visible */
	for (size_t i = 1; i <= r.count; i++) {
		char *row =
		    xasprintf("<tr id=\"row-%zu\" data-section=\"s-%zu\" data-status=\"%s\"", i, i,
			      i == r.count ? "pass" : "fail");
		char *sec = xasprintf("<section id=\"s-%zu\" class=\"scenario\"", i);

		assert_non_null(strstr(page, row));
		assert_non_null(strstr(page, sec));
		free(row);
		free(sec);
	}
	assert_non_null(strstr(page,
			       "data-name=\"smoke\"><td><span class=\"st st-pass\">pass</span>"
			       "</td><td><a href=\"#s-10\">smoke</a></td><td class=\"num\">9.8s"
			       "</td><td class=\"num\">7.2s</td>"));
	/* the failing step's output is open, a passing one's folded */
	assert_non_null(strstr(page, "<details id=\"s-1-step-2-stdout\" open>"));
	assert_non_null(strstr(page, "<details id=\"s-10-step-1-stdout\"><summary>step 1 stdout "
				     "(13 bytes)</summary><pre>{&quot;online&quot;:2}\n</pre>"));
	/* the filter shows only with JavaScript */
	assert_non_null(strstr(page, "<div id=\"filters\" hidden>"));
	/* one choice per status, after everything and everything but passes */
	assert_non_null(strstr(page, "<select id=\"status\"><option value=\"all\">all</option>"
				     "<option value=\"problem\">not passed</option>"
				     "<option value=\"pass\">pass</option>"
				     "<option value=\"fail\">fail</option>"
				     "<option value=\"error\">error</option>"
				     "<option value=\"timeout\">timeout</option>"
				     "<option value=\"skip\">skip</option></select>"));
	assert_null(strstr(page, "<tr id=\"row-1\" hidden"));
	assert_non_null(strstr(page, "<tr><th>boot_ms</th><td class=\"num\">7200</td></tr>"));
	assert_non_null(strstr(page, "<tr><th>note</th><td>&quot;&lt;b&gt;&quot;"));
	assert_non_null(strstr(page, "<p id=\"summary\">10 scenarios: 1 passed, 9 failed. Started "
				     "2025-01-31T12:00:00Z, took 41.3s.</p>"));
	free(page);
	run_result_free(&r);
}

/* A step's subtests: a table of their own, open when the step failed. */
static void test_page_subtests(void **state)
{
	struct run_result r = { 0 };
	struct subtest *t;
	char *page;

	(void)state;
	r.count = 1;
	r.scenarios = xcalloc(1, sizeof(*r.scenarios));
	fill_scenario(&r.scenarios[0], "kunit-boot", ST_FAIL);
	t = step_result_add_subtest(&r.scenarios[0].steps[0]);
	t->name = xstrdup("list.add");
	t->status = ST_FAIL;
	t->diag = xstrdup("Expected a < b");
	t = step_result_add_subtest(&r.scenarios[0].steps[0]);
	t->name = xstrdup("example");
	t->status = ST_SKIP;
	t->reason = xstrdup("not here");
	t->duration_ms = 1500;
	page = render(&r);
	assert_structure(page);
	assert_non_null(strstr(page, "<details id=\"s-1-step-1-subtests\" open><summary>step 1 "
				     "subtests (2)</summary>"));
	assert_non_null(strstr(page, "<tr data-status=\"fail\"><td><span class=\"st st-fail\">"
				     "fail</span></td><td>list.add</td><td></td><td></td><td><pre>"
				     "Expected a &lt; b</pre></td></tr>"));
	assert_non_null(strstr(page, "<td>example</td><td class=\"num\">1.5s</td><td>not here"
				     "</td><td></td></tr>"));
	free(page);
	run_result_free(&r);
}

static char *csp_source(const char *text)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE + 1] = { 0 };
	char out[64] = "'sha256-", *o = out + 8;

	sha256_init(&h);
	sha256_feed(&h, text, strlen(text));
	sha256_digest(&h, SHA256_DIGEST_SIZE, d);
	for (size_t i = 0; i < SHA256_DIGEST_SIZE; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];

		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < SHA256_DIGEST_SIZE ? tab[(v >> 6) & 63] : '=';
		*o++ = i + 2 < SHA256_DIGEST_SIZE ? tab[v & 63] : '=';
	}
	*o++ = '\'';
	return xstrdup(out);
}

/* The policy allows exactly the page's own script and style. */
static void test_page_csp(void **state)
{
	struct run_result r = { 0 };
	char *page = render(&r), *want, *js, *css;

	(void)state;
	js = csp_source(report_html_script());
	css = csp_source(report_html_style());
	want = xasprintf("content=\"default-src 'none'; img-src data:; style-src %s; script-src %s;"
			 " base-uri 'none'; form-action 'none'\">",
			 css, js);
	assert_non_null(strstr(page, want));
	free(want);
	want = xasprintf("<script>%s</script>\n</body>\n</html>\n", report_html_script());
	assert_non_null(strstr(page, want));
	free(want);
	want = xasprintf("<style>%s</style>", report_html_style());
	assert_non_null(strstr(page, want));
	assert_non_null(strstr(page, "<p id=\"summary\">0 scenarios: 0 passed, 0 failed."));
	assert_structure(page);
	free(want);
	free(js);
	free(css);
	free(page);
}

static int b64_value(char c)
{
	const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = strchr(tab, c);

	return c && p ? (int)(p - tab) : -1;
}

/* The data: URI of the image with id, decoded. */
static char *data_uri(const char *page, const char *id)
{
	char *key = xasprintf("id=\"%s\"", id);
	const char *p = strstr(page, key), *b;
	char *out = xcalloc(strlen(page), 1), *o = out;

	free(key);
	assert_non_null(p);
	p = strstr(p, "src=\"data:image/svg+xml;base64,");
	assert_non_null(p);
	for (b = strchr(p, ',') + 1; *b != '"'; b += 4) {
		int v[4];

		for (int i = 0; i < 4; i++)
			v[i] = b[i] == '=' ? 0 : b64_value(b[i]);
		assert_true(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0);
		*o++ = (char)(v[0] << 2 | v[1] >> 4);
		if (b[2] != '=')
			*o++ = (char)((v[1] & 15) << 4 | v[2] >> 2);
		if (b[3] != '=')
			*o++ = (char)((v[2] & 3) << 6 | v[3]);
	}
	return out;
}

static const char svg[] = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
			  "onload=\"alert(1)\"><script>alert(2)</script><text>&lt;&#x0;"
			  "</text></svg>\n";

/* A scenario that passed kept no console tail: the page shows the end of
 * its console.log; timeline.svg goes in as an image, byte for byte. */
static void test_page_artifacts(void **state)
{
	char dir[] = "/tmp/ktb-html-XXXXXX", *path, *log = NULL, *page, *back;
	struct run_result r = { 0 };
	size_t loglen = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	f = open_memstream(&log, &loglen);
	for (int i = 1; i <= 100; i++)
		fprintf(f, "line %d </pre><script>x()</script>%c\r\n", i, i == 90 ? '\0' : '.');
	fclose(f);
	path = xasprintf("%s/console.log", dir);
	assert_int_equal(write_file(path, log, loglen), 0);
	free(path);
	path = xasprintf("%s/timeline.svg", dir);
	assert_int_equal(write_file(path, svg, strlen(svg)), 0);
	free(path);
	r.count = 2;
	r.scenarios = xcalloc(2, sizeof(*r.scenarios));
	fill_scenario(&r.scenarios[0], "s3-basic", ST_PASS);
	r.scenarios[0].artifacts = xstrdup(dir);
	fill_scenario(&r.scenarios[1], "gone", ST_PASS);
	r.scenarios[1].artifacts = xstrdup("/nonexistent/ktb-html");
	page = render(&r);
	assert_clean_text(page);
	assert_structure(page);
	assert_non_null(strstr(page,
			       "<h3>Console <small>(last 30 lines of console.log)</small></h3>\n"
			       "<pre id=\"s-1-console\" class=\"console\">line 71 &lt;/pre&gt;"
			       "&lt;script&gt;x()&lt;/script&gt;.\r\n"));
	assert_null(strstr(page, "line 70 "));
	assert_non_null(strstr(page, "line 90 &lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;\r\n"));
	assert_non_null(
	    strstr(page, "line 100 &lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;.</pre>"));
	back = data_uri(page, "s-1-timeline");
	assert_string_equal(back, svg);
	free(back);
	/* nothing for a scenario whose artifacts are gone */
	assert_null(strstr(page, "s-2-console"));
	assert_null(strstr(page, "s-2-timeline"));
	free(page);

	/* a timeline.svg that is not an SVG is named, not shown */
	path = xasprintf("%s/timeline.svg", dir);
	assert_int_equal(write_file(path, "<html><script>alert(1)</script>", 31), 0);
	page = render(&r);
	assert_null(strstr(page, "s-1-timeline"));
	assert_non_null(strstr(page, "<p>timeline.svg is not an SVG image; see the artifacts"));
	assert_structure(page);
	free(page);
	free(path);
	free(log);
	assert_int_equal(rm_rf(dir), 0);
	run_result_free(&r);
}

/* --repeat results as a worker writes them, read back: the pass rates. */
static void test_page_repeat(void **state)
{
	char *path = xasprintf("%s/report/repeat.json", KTB_TEST_DATA);
	json_t *doc = json_load_file(path, 0, NULL), *v;
	struct run_result r = { 0 };
	size_t i;
	char *page;

	(void)state;
	assert_non_null(doc);
	r.run_id = xstrdup(json_string_value(json_object_get(doc, "run_id")));
	r.duration_ms = json_integer_value(json_object_get(doc, "duration_ms"));
	r.scenarios =
	    xcalloc(json_array_size(json_object_get(doc, "scenarios")), sizeof(*r.scenarios));
	json_array_foreach (json_object_get(doc, "scenarios"), i, v)
		assert_int_equal(scenario_result_from_json(v, &r.scenarios[r.count++]), 0);
	page = render(&r);
	assert_structure(page);
	assert_non_null(strstr(page, "<h2 id=\"pass-rates\">Pass rates</h2>"));
	assert_non_null(strstr(page,
			       "<tr id=\"rate-1\" class=\"flaky\" data-name=\"smoke\"><td>"
			       "smoke</td><td class=\"num\">1/2</td><td class=\"num\">50%</td>"
			       "<td>flaky</td></tr>"));
	assert_non_null(strstr(page,
			       "<tr id=\"rate-2\" data-name=\"a-steady\"><td>a-steady</td><td "
			       "class=\"num\">2/2</td><td class=\"num\">100%</td><td></td></tr>"));
	assert_null(strstr(page, "rate-3"));
	assert_non_null(strstr(page, "<a href=\"#s-2\">smoke#2</a>"));
	assert_non_null(strstr(page, "<dt>attempt</dt><dd>2</dd>"));
	assert_non_null(strstr(page, "<p id=\"summary\">4 scenarios: 3 passed, 1 failed."));
	free(page);
	run_result_free(&r);
	json_decref(doc);
	free(path);

	/* no --repeat, no table */
	memset(&r, 0, sizeof(r));
	r.count = 1;
	r.scenarios = xcalloc(1, sizeof(*r.scenarios));
	fill_scenario(&r.scenarios[0], "smoke", ST_PASS);
	page = render(&r);
	assert_null(strstr(page, "pass-rates"));
	free(page);
	run_result_free(&r);
}

/* A report that cannot be written says so. */
static void test_page_write_error(void **state)
{
	struct run_result r;
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(f);
	hostile_run(&r);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(report_html(&r, f), -EIO);
	fclose(f);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_markup),	 cmocka_unit_test(test_escape_bytes),
		cmocka_unit_test(test_escape_any_bytes), cmocka_unit_test(test_page_hostile),
		cmocka_unit_test(test_page_subtests),	 cmocka_unit_test(test_page_csp),
		cmocka_unit_test(test_page_artifacts),	 cmocka_unit_test(test_page_repeat),
		cmocka_unit_test(test_page_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
