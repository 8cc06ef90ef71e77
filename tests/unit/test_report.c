/* The four reporters over one run with every status and hostile guest
 * output: JUnit must stay well-formed XML, TAP and the terminal summary must
 * keep the exact lines parsers look for, colour only on a TTY. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "report_json.h"
#include "samples.h"
#include "report_junit.h"
#include "report_tap.h"
#include "report_term.h"
#include "util.h"

/* ESC sequences, a NUL cut, bad UTF-8, a CDATA terminator, quotes and
 * every XML metacharacter: what a real console can hold. */
static const char nasty[] = "\033[1;31mred\033[0m <b>&amp; \"q\" 'a' ]]> \x01\x02\x7f"
			    " bad\xff\xfe utf8 \xc3\xa9 \xe2\x82 end\r\nline2\tx\n";

static void add_tags(struct scenario_result *s, const char *tag)
{
	s->tags = xcalloc(1, sizeof(char *));
	s->tags[0] = xstrdup(tag);
	s->tags_count = 1;
}

static struct step_result *add_step(struct scenario_result *s, const char *name, enum status st,
				    int line)
{
	struct step_result *step = scenario_result_add_step(s);

	step->name = xstrdup(name);
	step->status = st;
	step->line = line;
	step->duration_ms = 1200;
	return step;
}

static void fill(struct scenario_result *s, const char *name, enum status st, int64_t ms)
{
	s->name = xstrdup(name);
	s->file = xasprintf("scenarios/%s.yaml", name);
	s->status = st;
	s->duration_ms = ms;
	s->metrics = json_pack("{s:i}", "boot_ms", 3100);
	s->accel = xstrdup("tcg");
	add_step(s, "boot", ST_PASS, 0);
}

/* pass, fail (hostile output), error, timeout, skip */
static void run_fill(struct run_result *r)
{
	struct step_result *st;
	struct scenario_result *s;

	memset(r, 0, sizeof(*r));
	r->run_id = xstrdup("20250131-120000");
	r->started_unix_ms = 1738324800000LL;
	r->duration_ms = 41300;
	r->count = 5;
	r->scenarios = xcalloc(r->count, sizeof(*r->scenarios));
	fill(&r->scenarios[0], "smoke", ST_PASS, 4200);
	s = &r->scenarios[1];
	fill(s, "disk-4kn", ST_FAIL, 12300);
	add_tags(s, "disk");
	st = add_step(s, "run: ktb-probe disk data", ST_FAIL, 14);
	st->message = xstrdup("json logical_block_size: expected 4096, got 512 <&>");
	st->exit_code = 0;
	st->out = xstrdup(nasty);
	st->err = xstrdup("warning: something\n");
	s->message = xstrdup(st->message);
	s->console_tail = xstrdup(nasty);
	s->artifacts = xstrdup("artifacts/20250131-120000/disk-4kn");
	s = &r->scenarios[2];
	fill(s, "no-boot", ST_ERROR, 60000);
	s->message = xstrdup("VM never booted: kernel panic");
	s->console_tail = xstrdup("Kernel panic - not syncing\n");
	s = &r->scenarios[3];
	fill(s, "suspend#1", ST_TIMEOUT, 120000);
	add_step(s, "wait: for resume", ST_TIMEOUT, 9)->message = xstrdup("no match within 30s");
	s->message = xstrdup("no match within 30s");
	fill(&r->scenarios[4], "s4", ST_SKIP, 0);
	r->scenarios[4].message = xstrdup("no S4 on this machine");
}

/* Everything f received, as a string. */
static char *slurp(FILE *f)
{
	long n = ftell(f);
	char *buf = xcalloc((size_t)n + 1, 1);

	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	struct run_result r;
	json_t *want, *got, *samples;
	FILE *f = tmpfile();
	char *text;

	(void)state;
	run_fill(&r);
	assert_int_equal(report_json(&r, f), 0);
	text = slurp(f);
	got = json_loads(text, 0, NULL);
	want = run_result_to_json(&r);
	/* and its samples (samples.h), the version still last */
	samples = run_result_samples(&r);
	assert_non_null(samples);
	json_object_set_new(want, "samples", samples);
	assert_non_null(got);
	assert_true(json_equal(got, want));
	assert_true(strstr(text, "\"samples\"") < strstr(text, "\"schema_version\""));
	/* indented, and the keys keep the documented order */
	assert_non_null(strstr(text, "{\n  \"run_id\": \"20250131-120000\",\n  \"started\""));
	json_decref(got);
	json_decref(want);
	free(text);
	run_result_free(&r);
}

#include "xml_check.h"

static void test_xml_checker(void **state)
{
	(void)state;
	assert_true(
	    xml_wellformed("<?xml version=\"1.0\"?>\n<a x=\"1&amp;\"><b/>t&#10;&lt;</a>\n"));
	assert_false(xml_wellformed("<a><b></a></b>"));
	assert_false(xml_wellformed("<a>x & y</a>"));
	assert_false(xml_wellformed("<a>]]></a>"));
	assert_false(xml_wellformed("<a x=\"<\"/>"));
	assert_false(xml_wellformed("<a x=1/>"));
	assert_false(xml_wellformed("<a>\033</a>"));
	assert_false(xml_wellformed("<a>\xff</a>"));
	assert_false(xml_wellformed("<a/><b/>"));
	assert_false(xml_wellformed("<a>"));
}

/* A second opinion where libxml2's checker happens to be installed. */
static void xmllint_check(const char *doc)
{
	char path[] = "/tmp/ktb-junit-XXXXXX";
	int fd, status;
	char *cmd;

	if (access("/usr/bin/xmllint", X_OK))
		return;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	cmd = xasprintf("/usr/bin/xmllint --noout %s", path);
	status = system(cmd);
	unlink(path);
	free(cmd);
	assert_int_equal(status, 0);
}

static void test_junit(void **state)
{
	struct run_result r;
	FILE *f = tmpfile();
	char *xml;

	(void)state;
	run_fill(&r);
	assert_int_equal(report_junit(&r, f), 0);
	xml = slurp(f);
	assert_true(xml_wellformed(xml));
	xmllint_check(xml);
	assert_non_null(strstr(xml, "<testsuites name=\"ktestbed\" tests=\"5\" failures=\"2\" "
				    "errors=\"1\" skipped=\"1\" time=\"41.300\">"));
	assert_non_null(strstr(xml, "<testsuite name=\"ktestbed\" tests=\"5\""));
	assert_non_null(
	    strstr(xml, "<testcase classname=\"ktb.scenario\" name=\"smoke\" time=\"4.200\""));
	assert_non_null(
	    strstr(xml, "<testcase classname=\"ktb.disk\" name=\"disk-4kn\" time=\"12.300\""));
	assert_non_null(strstr(xml,
			       "<failure message=\"json logical_block_size: expected 4096, got "
			       "512 &lt;&amp;&gt;\" type=\"fail\">step: run: ktb-probe disk data "
			       "(scenarios/disk-4kn.yaml:14)\n"));
	assert_non_null(strstr(xml, "<failure message=\"no match within 30s\" type=\"timeout\">"));
	assert_non_null(
	    strstr(xml, "<error message=\"VM never booted: kernel panic\" type=\"error\">"));
	assert_non_null(strstr(xml, "<skipped message=\"no S4 on this machine\"/>"));
	/* the console tail survives with its text, minus what XML cannot hold */
	assert_non_null(strstr(xml,
			       "--- console tail ---\nred &lt;b&gt;&amp;amp; "
			       "&quot;q&quot; &apos;a&apos; ]]&gt; \x7f bad\xef\xbf\xbd\xef\xbf\xbd"
			       " utf8 \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd end\r\nline2\tx\n"));
	assert_non_null(strstr(xml, "<system-out>pass        1.2s  boot\nfail        1.2s  run: "));
	assert_non_null(
	    strstr(xml, "artifacts: artifacts/20250131-120000/disk-4kn\n</system-out>"));
	free(xml);
	run_result_free(&r);
}

static void test_junit_empty(void **state)
{
	struct run_result r = { 0 };
	FILE *f = tmpfile();
	char *xml;

	(void)state;
	assert_int_equal(report_junit(&r, f), 0);
	xml = slurp(f);
	assert_true(xml_wellformed(xml));
	assert_non_null(strstr(xml, "tests=\"0\" failures=\"0\""));
	free(xml);
}

static void test_tap(void **state)
{
	struct run_result r;
	FILE *f = tmpfile();
	char *tap;

	(void)state;
	run_fill(&r);
	assert_int_equal(report_tap(&r, f), 0);
	tap = slurp(f);
	assert_non_null(strstr(
	    tap, "TAP version 13\n1..5\nok 1 - smoke\nnot ok 2 - disk-4kn\n"
		 "  ---\n  status: fail\n"
		 "  message: \"json logical_block_size: expected 4096, got 512 <&>\"\n"
		 "  step: \"run: ktb-probe disk data\"\n  line: 14\n"
		 "  file: \"scenarios/disk-4kn.yaml\"\n  duration_ms: 12300\n"
		 "  artifacts: \"artifacts/20250131-120000/disk-4kn\"\n"
		 "  console_tail: \"\\u001B[1;31mred\\u001B[0m <b>&amp; \\\"q\\\" 'a' ]]> "
		 "\\u0001\\u0002\\u007F bad\\uFFFD\\uFFFD utf8 \xc3\xa9 \\uFFFD\\uFFFD end\\u000D"
		 "\\nline2\\tx\\n\"\n  ...\n"));
	assert_non_null(strstr(tap, "\nnot ok 3 - no-boot\n  ---\n  status: error\n"
				    "  message: \"VM never booted: kernel panic\"\n"));
	/* '#' in a name would start a directive */
	assert_non_null(strstr(tap, "\nnot ok 4 - suspend\\#1\n  ---\n  status: timeout\n"));
	assert_non_null(strstr(tap, "\nok 5 - s4 # SKIP no S4 on this machine\n"));
	assert_null(strstr(tap, "Bail out!"));
	free(tap);
	run_result_free(&r);
}

/* An interrupted run says so in every view, after what it has. */
static void test_interrupted_views(void **state)
{
	struct run_result r;
	FILE *f = tmpfile(), *g = tmpfile(), *h = tmpfile();
	char *tap, *xml, *term;

	(void)state;
	run_fill(&r);
	r.interrupted = 2;
	assert_int_equal(report_tap(&r, f), 0);
	tap = slurp(f);
	assert_non_null(strstr(tap, "\nok 5 - s4 # SKIP no S4 on this machine\n"
				    "Bail out! interrupted by signal 2\n"));
	assert_int_equal(report_junit(&r, g), 0);
	xml = slurp(g);
	assert_true(xml_wellformed(xml));
	assert_non_null(strstr(xml, "<property name=\"interrupted\" value=\"signal 2\"/>"));
	report_term_summary(&r, h);
	term = slurp(h);
	assert_non_null(strstr(term, "\ninterrupted by signal 2\ntime: "));
	free(tap);
	free(xml);
	free(term);
	run_result_free(&r);
}

/* A scenario whose ktap step reported a passed, a failed (its diagnostics
 * with XML's metacharacters) and a skipped subtest. */
static void subtests_fill(struct run_result *r)
{
	struct scenario_result *s;
	struct step_result *st;
	struct subtest *t;

	memset(r, 0, sizeof(*r));
	r->count = 1;
	r->duration_ms = 9000;
	r->scenarios = xcalloc(1, sizeof(*r->scenarios));
	s = &r->scenarios[0];
	fill(s, "kunit-boot", ST_FAIL, 9000);
	st = add_step(s, "ktap: console", ST_FAIL, 7);
	st->message = xstrdup("1 of 2 tests failed: list.add");
	s->message = xstrdup(st->message);
	t = step_result_add_subtest(st);
	t->name = xstrdup("list");
	t->status = ST_FAIL;
	t = step_result_add_subtest(st);
	t->name = xstrdup("list.init");
	t->status = ST_PASS;
	t->duration_ms = 1500;
	t = step_result_add_subtest(st);
	t->name = xstrdup("list.add");
	t->status = ST_FAIL;
	t->diag = xstrdup("EXPECTATION FAILED at lib/list-test.c:30\nExpected a < b & c");
	t = step_result_add_subtest(st);
	t->name = xstrdup("example");
	t->status = ST_SKIP;
	t->reason = xstrdup("not on this arch");
}

static char *term_of(const struct scenario_result *s, bool verbose);

/* Each subtest a result of its own in the terminal, JUnit and TAP views. */
static void test_subtest_views(void **state)
{
	struct run_result r;
	FILE *f = tmpfile(), *g = tmpfile();
	char *xml, *tap, *term;

	(void)state;
	subtests_fill(&r);
	term = term_of(&r.scenarios[0], false);
	assert_non_null(strstr(term,
			       "        step 2 fail: ktap: console (scenarios/kunit-boot.yaml:7)"
			       " 1.2s\n        1 of 2 tests failed: list.add\n"
			       "          fail list\n          fail list.add\n"
			       "            EXPECTATION FAILED at lib/list-test.c:30\n"
			       "            Expected a < b & c\n"
			       "          skip example (not on this arch)\n"));
	assert_null(strstr(term, "list.init"));
	free(term);
	r.scenarios[0].status = ST_PASS;
	term = term_of(&r.scenarios[0], true);
	assert_non_null(strstr(term, "          pass list.init 1.5s\n"));
	free(term);
	r.scenarios[0].status = ST_FAIL;

	assert_int_equal(report_junit(&r, f), 0);
	xml = slurp(f);
	assert_true(xml_wellformed(xml));
	xmllint_check(xml);
	assert_non_null(strstr(xml, "<testsuites name=\"ktestbed\" tests=\"5\" failures=\"3\" "
				    "errors=\"0\" skipped=\"1\""));
	assert_non_null(strstr(xml, "<testcase classname=\"ktb.kunit-boot\" name=\"list.init\" "
				    "time=\"1.500\">\n    </testcase>"));
	assert_non_null(strstr(xml,
			       "<testcase classname=\"ktb.kunit-boot\" name=\"list.add\">\n"
			       "      <failure message=\"EXPECTATION FAILED at "
			       "lib/list-test.c:30&#10;Expected a &lt; b &amp; c\" type=\"fail\">"
			       "EXPECTATION FAILED at lib/list-test.c:30\nExpected a &lt; b &amp; "
			       "c</failure>"));
	assert_non_null(strstr(xml, "<testcase classname=\"ktb.kunit-boot\" name=\"example\">\n"
				    "      <skipped message=\"not on this arch\"/>"));
	free(xml);

	assert_int_equal(report_tap(&r, g), 0);
	tap = slurp(g);
	assert_non_null(strstr(tap,
			       "TAP version 13\n1..1\n    # Subtest: kunit-boot\n    1..4\n"
			       "    not ok 1 - list\n    ok 2 - list.init\n"
			       "    not ok 3 - list.add\n      ---\n"
			       "      diag: \"EXPECTATION FAILED at lib/list-test.c:30\\nExpected "
			       "a < b & c\"\n      ...\n"
			       "    ok 4 - example # SKIP not on this arch\n"
			       "not ok 1 - kunit-boot\n"));
	free(tap);
	run_result_free(&r);
}

static char *term_of(const struct scenario_result *s, bool verbose)
{
	FILE *f = tmpfile();

	report_term_scenario(s, f, verbose);
	return slurp(f);
}

static void test_term_pass(void **state)
{
	struct run_result r;
	char *out;

	(void)state;
	run_fill(&r);
	out = term_of(&r.scenarios[0], false);
	assert_string_equal(out, "PASS    smoke                     4.2s  boot 3.1s\n");
	free(out);
	out = term_of(&r.scenarios[0], true);
	assert_string_equal(out, "PASS    smoke                     4.2s  boot 3.1s\n"
				 "        step 1 pass: boot 1.2s\n");
	free(out);
	out = term_of(&r.scenarios[4], false);
	assert_string_equal(
	    out, "SKIP    s4                        0.0s  boot 3.1s  (no S4 on this machine)\n");
	free(out);
	run_result_free(&r);
}

static void test_term_fail(void **state)
{
	struct run_result r;
	struct scenario_result *s;
	char *out, *tail = xstrdup("");

	(void)state;
	run_fill(&r);
	s = &r.scenarios[1];
	out = term_of(s, false);
	assert_non_null(strstr(
	    out, "FAIL    disk-4kn                 12.3s  boot 3.1s\n"
		 "        step 2 fail: run: ktb-probe disk data (scenarios/disk-4kn.yaml:14) 1.2s\n"
		 "        json logical_block_size: expected 4096, got 512 <&>\n"
		 "        stderr:\n          warning: something\n"
		 "        stdout:\n          red <b>&amp; \"q\" 'a' ]]>  bad"));
	assert_non_null(strstr(out, "        console:\n          red <b>"));
	assert_non_null(strstr(
	    out, "\n          line2\tx\n        artifacts: artifacts/20250131-120000/disk-4kn\n"));
	/* guest escape sequences never reach our terminal */
	assert_null(strchr(out, '\033'));
	assert_null(strchr(out, '\r'));
	free(out);
	/* only the last 30 console lines */
	for (int i = 1; i <= 50; i++) {
		char *n = xasprintf("%sconsole line %d\n", tail, i);

		free(tail);
		tail = n;
	}
	free(s->console_tail);
	s->console_tail = tail;
	out = term_of(s, false);
	assert_non_null(strstr(out, "        console (last lines):\n          console line 21\n"));
	assert_null(strstr(out, "console line 20\n"));
	assert_non_null(strstr(out, "console line 50\n        artifacts:"));
	free(out);
	/* the dump, after the console: where and how big, or why none */
	s->dump = json_pack("{s:s, s:s, s:s, s:i, s:i, s:n}", "trigger", "hang", "file", "a/vmcore",
			    "format", "kdump-zlib", "bytes", 31500000, "ms", 1400, "note");
	out = term_of(s, false);
	assert_non_null(strstr(out, "console line 50\n        dump (hang): a/vmcore, 31.5 MB in "
				    "1.4 s; drgn -c a/vmcore -s VMLINUX (docs/debugging.md)\n"
				    "        artifacts:"));
	free(out);
	json_decref(s->dump);
	s->dump =
	    json_pack("{s:s, s:n, s:s, s:i, s:i, s:s}", "trigger", "panic", "file", "format",
		      "kdump-zlib", "bytes", 0, "ms", 0, "note", "no dump: QEMU had already ended");
	out = term_of(s, false);
	assert_non_null(strstr(out, "        dump (panic): no dump: QEMU had already ended\n"));
	free(out);
	/* an error without a failing step still says why */
	out = term_of(&r.scenarios[2], false);
	assert_string_equal(out, "ERROR   no-boot                  60.0s  boot 3.1s\n"
				 "        VM never booted: kernel panic\n"
				 "        console:\n          Kernel panic - not syncing\n");
	free(out);
	run_result_free(&r);
}

static void test_term_summary(void **state)
{
	struct run_result r;
	regex_t re;
	FILE *f = tmpfile();
	char *out, *nl;

	(void)state;
	run_fill(&r);
	report_term_summary(&r, f);
	report_term_progress(f, 2, 6, "smoke", "booting"); /* not a TTY: nothing */
	out = slurp(f);
	assert_string_equal(out, "summary: 1 passed, 3 failed, 1 skipped\n"
				 "of which: 1 timed out, 1 errored\n"
				 "time: 41.3s\n");
	/* the regex CI parsers use */
	assert_int_equal(
	    regcomp(&re, "^([[:alnum:]_]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$",
		    REG_EXTENDED | REG_NOSUB),
	    0);
	nl = strchr(out, '\n');
	*nl = '\0';
	assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
	regfree(&re);
	free(out);
	run_result_free(&r);
	/* all passed: nothing else on the line */
	memset(&r, 0, sizeof(r));
	f = tmpfile();
	report_term_summary(&r, f);
	out = slurp(f);
	assert_string_equal(out, "summary: 0 passed, 0 failed\ntime: 0.0s\n");
	free(out);
}

/* A pseudo-terminal: *f writes to its slave side, the returned fd reads
 * what arrived (raw mode, so newlines stay newlines). */
static int pty_open(FILE **f)
{
	struct termios t;
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;

	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	assert_true(s >= 0);
	tcgetattr(s, &t);
	cfmakeraw(&t);
	tcsetattr(s, TCSANOW, &t);
	*f = fdopen(s, "w");
	fcntl(m, F_SETFL, O_NONBLOCK);
	return m;
}

static char *pty_drain(int m)
{
	static char buf[4096];
	ssize_t n = read(m, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_term_tty(void **state)
{
	struct run_result r;
	FILE *f;
	int m = pty_open(&f);

	(void)state;
	run_fill(&r);
	unsetenv("NO_COLOR");
	report_term_progress(f, 2, 6, "smoke", "booting");
	assert_string_equal(pty_drain(m), "\r\033[K[2/6] smoke: booting");
	report_term_progress(f, 0, 0, NULL, NULL);
	assert_string_equal(pty_drain(m), "\r\033[K");
	report_term_scenario(&r.scenarios[0], f, false);
	assert_string_equal(pty_drain(m),
			    "\r\033[K\033[32mPASS\033[0m    smoke                     "
			    "4.2s  boot 3.1s\n");
	setenv("NO_COLOR", "1", 1);
	report_term_scenario(&r.scenarios[0], f, false);
	assert_string_equal(pty_drain(m),
			    "\r\033[KPASS    smoke                     4.2s  boot 3.1s\n");
	unsetenv("NO_COLOR");
	fclose(f);
	close(m);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_xml_checker),
		cmocka_unit_test(test_junit),
		cmocka_unit_test(test_junit_empty),
		cmocka_unit_test(test_subtest_views),
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_interrupted_views),
		cmocka_unit_test(test_term_pass),
		cmocka_unit_test(test_term_fail),
		cmocka_unit_test(test_term_summary),
		cmocka_unit_test(test_term_tty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
