/* Findings (the kernel reports a scenario's console carried) in every
 * view: JUnit (a failing one in the <failure> body with its stack, the
 * others in <system-out>, the XML still well-formed with hostile titles),
 * TAP (a findings: list in the YAML block), HTML (a table, the stack and
 * text folded, everything escaped), the terminal (one line each under a
 * scenario that did not pass, nothing more under one that passed), and the
 * grouping by signature that `ktb findings` prints and writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_tap.h"
#include "report_term.h"
#include "util.h"
#include "xml_check.h"

#define SIG_WARN "9f2c1a"
#define SIG_OOPS "04bd77"

static struct step_result *add_step(struct scenario_result *s, const char *name, enum status st)
{
	struct step_result *step = scenario_result_add_step(s);

	step->name = xstrdup(name);
	step->status = st;
	step->duration_ms = 800;
	step->exit_code = -1;
	return step;
}

static void add_frame(struct finding *f, const char *func, const char *off, const char *module,
		      bool reliable)
{
	struct finding_frame *fr;

	f->frames = xrealloc(f->frames, (f->frames_count + 1) * sizeof(*f->frames));
	fr = &f->frames[f->frames_count++];
	memset(fr, 0, sizeof(*fr));
	fr->func = xstrdup(func);
	fr->off = xstrdup(off);
	fr->module = xstrdup(module);
	fr->reliable = reliable;
}

static struct finding *add_finding(struct scenario_result *s, const char *kind, const char *title,
				   const char *sig, enum finding_verdict v, int step)
{
	struct finding *f = scenario_result_add_finding(s);

	f->kind = xstrdup(kind);
	f->title = xstrdup(title);
	f->signature = xstrdup(sig);
	f->verdict = v;
	f->step = step;
	f->console_line = 412;
	f->text = xasprintf("%s\nCall Trace:\n", title);
	return f;
}

static void scenario(struct scenario_result *s, const char *name, enum status st,
		     const char *kernel)
{
	s->name = xstrdup(name);
	s->file = xasprintf("scenarios/%s.yaml", name);
	s->status = st;
	s->duration_ms = 9000;
	s->kernel = xstrdup(kernel);
	s->metrics = json_object();
}

/* disk-nvme failed on a WARNING in its second step, with an OOM kill it
 * tolerated before the first; smoke passed, a WARNING expected. The
 * failing one's title is hostile. */
static void run_make(struct run_result *r)
{
	struct scenario_result *s;
	struct finding *f;

	memset(r, 0, sizeof(*r));
	r->run_id = xstrdup("r1");
	r->count = 2;
	r->scenarios = xcalloc(r->count, sizeof(*r->scenarios));
	s = &r->scenarios[0];
	scenario(s, "disk-nvme", ST_FAIL, "6.1.0-57-amd64");
	add_step(s, "machine", ST_PASS);
	add_step(s, "run: ktb-probe disk data", ST_FAIL)->message =
	    xstrdup("kernel report: WARNING in nvme_setup_io_queues");
	s->message = xstrdup("step 1 (run: ktb-probe disk data, line 9): kernel report: WARNING in "
			     "nvme_setup_io_queues");
	f = add_finding(s, "warning", "WARNING in nvme_setup_io_queues <&\"]]>\033[31m\x01",
			SIG_WARN, FINDING_FAILS, 1);
	add_frame(f, "nvme_setup_io_queues.cold", "0x1a/0x2b", "nvme", true);
	add_frame(f, "nvme_reset_work", "0x3c/0x100", NULL, false);
	add_frame(f, "process_one_work", NULL, NULL, true);
	f = add_finding(s, "oom kill", "OOM kill: stress", SIG_OOPS, FINDING_TOLERATED, -1);
	f->reason = xstrdup("the balloon squeezes on purpose");
	s = &r->scenarios[1];
	scenario(s, "smoke", ST_PASS, "6.1.0-57-amd64");
	add_step(s, "run: true", ST_PASS);
	f = add_finding(s, "warning", "WARNING in nvme_setup_io_queues", SIG_WARN, FINDING_EXPECTED,
			0);
	f->reason = xstrdup("WARNING in nvme");
}

static char *slurp(FILE *f)
{
	long n = ftell(f);
	char *buf = xcalloc((size_t)n + 1, 1);

	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_frame_str(void **state)
{
	struct finding_frame fr = { .func = "f", .off = "0x1/0x2", .module = "m" };
	char *s;

	(void)state;
	s = finding_frame_str(&fr);
	assert_string_equal(s, "f+0x1/0x2 [m]");
	free(s);
	fr.module = NULL;
	s = finding_frame_str(&fr);
	assert_string_equal(s, "f+0x1/0x2");
	free(s);
	fr.off = NULL;
	fr.func = NULL;
	s = finding_frame_str(&fr);
	assert_string_equal(s, "?");
	free(s);
}

static void test_junit(void **state)
{
	struct run_result r;
	FILE *f = tmpfile();
	char *xml, *fail, *out;

	(void)state;
	run_make(&r);
	assert_int_equal(report_junit(&r, f), 0);
	xml = slurp(f);
	assert_true(xml_wellformed(xml));
	/* the failing one in the failure body: title, kind, step, signature, stack */
	fail = strstr(xml, "<failure ");
	assert_non_null(fail);
	assert_non_null(strstr(
	    fail,
	    "\n--- kernel reports ---\nkernel report: WARNING in nvme_setup_io_queues "
	    "&lt;&amp;&quot;]]&gt;\n  kind: warning\n  verdict: fail\n"
	    "  step: run: ktb-probe disk data\n  console line: 412\n  signature: 9f2c1a\n"
	    "    nvme_setup_io_queues.cold+0x1a/0x2b [nvme]\n    ? nvme_reset_work+0x3c/0x100\n"
	    "    process_one_work\n</failure>"));
	/* the tolerated one in system-out, not in the failure */
	out = strstr(fail, "<system-out>");
	assert_non_null(out);
	assert_true(strstr(fail, "OOM kill") > out);
	assert_non_null(strstr(out, "kernel report: OOM kill: stress\n  kind: oom kill\n"
				    "  verdict: tolerated (the balloon squeezes on purpose)\n"
				    "  step: before the first step\n"));
	/* the passing scenario: no failure, its expected one in system-out */
	out = strstr(xml, "name=\"smoke\"");
	assert_non_null(out);
	assert_null(strstr(out, "<failure"));
	assert_non_null(strstr(out, "verdict: expected (WARNING in nvme)\n  step: run: true\n"));
	free(xml);
	run_result_free(&r);
}

static void test_tap(void **state)
{
	struct run_result r;
	FILE *f = tmpfile();
	char *tap;

	(void)state;
	run_make(&r);
	assert_int_equal(report_tap(&r, f), 0);
	tap = slurp(f);
	assert_non_null(strstr(
	    tap, "  findings:\n"
		 "    - kind: \"warning\"\n"
		 "      title: \"WARNING in nvme_setup_io_queues <&\\\"]]>\\u001B[31m\\u0001\"\n"
		 "      signature: \"9f2c1a\"\n"
		 "      verdict: fail\n"
		 "      step: \"run: ktb-probe disk data\"\n"
		 "      console_line: 412\n"
		 "      source: console\n"
		 "      panicked: false\n"
		 "      frames:\n"
		 "        - \"nvme_setup_io_queues.cold+0x1a/0x2b [nvme]\"\n"
		 "        - \"nvme_reset_work+0x3c/0x100\"\n"
		 "        - \"process_one_work\"\n"
		 "    - kind: \"oom kill\"\n"
		 "      title: \"OOM kill: stress\"\n"
		 "      signature: \"04bd77\"\n"
		 "      verdict: tolerated\n"
		 "      reason: \"the balloon squeezes on purpose\"\n"
		 "      console_line: 412\n"
		 "      source: console\n"
		 "      panicked: false\n"
		 "      frames: []\n"
		 "  ...\nok 2 - smoke\n"));
	/* a passing scenario's expected one: a block of its own */
	assert_non_null(strstr(tap, "ok 2 - smoke\n  ---\n  status: pass\n  findings:\n"
				    "    - kind: \"warning\"\n"));
	free(tap);
	run_result_free(&r);
}

static void test_html(void **state)
{
	struct run_result r;
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	(void)state;
	run_make(&r);
	r.scenarios[0].findings_dropped = 3;
	assert_int_equal(report_html(&r, f), 0);
	fclose(f);
	assert_non_null(strstr(page, "<h3>Kernel reports</h3>\n<table id=\"s-1-findings\" "
				     "class=\"findings\">"));
	/* title, kind and verdict in the row; the stack and text folded */
	assert_non_null(strstr(
	    page, "<tr id=\"s-1-finding-1\"><td class=\"num\">1</td><td><span class=\"st "
		  "st-fail\">fail</span></td><td>warning</td><td>WARNING in "
		  "nvme_setup_io_queues &lt;&amp;&quot;]]&gt;</td><td>2: run: ktb-probe disk "
		  "data</td><td class=\"num\">412</td><td><details id=\"s-1-finding-1-details\">"
		  "<summary>stack (3 frames) and text</summary><pre class=\"stack\">"
		  "nvme_setup_io_queues.cold+0x1a/0x2b [nvme]\n? nvme_reset_work+0x3c/0x100\n"
		  "process_one_work\n</pre><p>signature 9f2c1a</p><pre class=\"finding-text\">"
		  "WARNING in nvme_setup_io_queues &lt;&amp;&quot;]]&gt;\nCall Trace:\n"
		  "</pre></details></td></tr>"));
	assert_non_null(strstr(page, "<span class=\"st st-skip\">tolerated</span> (the balloon "
				     "squeezes on purpose)</td><td>oom kill</td><td>OOM kill: "
				     "stress</td><td>before the first</td>"));
	assert_non_null(strstr(page, "<p>and 3 more, past the scan&#39;s limit"));
	assert_non_null(strstr(page, "<tr id=\"s-2-finding-1\">"));
	assert_null(strchr(page, '\033'));
	assert_null(strchr(page, '\x01'));
	free(page);
	run_result_free(&r);
}

static char *term_of(const struct scenario_result *s)
{
	FILE *f = tmpfile();

	report_term_scenario(s, f, false);
	return slurp(f);
}

static void test_term(void **state)
{
	struct run_result r;
	char *out;

	(void)state;
	run_make(&r);
	out = term_of(&r.scenarios[0]);
	/* the machine step is not numbered: the probe is step 1 */
	assert_non_null(
	    strstr(out, "        finding: warning: WARNING in nvme_setup_io_queues <&\"]]> "
			"(step 1, console line 412) [fail]\n"
			"        finding: oom kill: OOM kill: stress (before the first step, "
			"console line 412) [tolerated]\n"));
	assert_null(strchr(out, '\033'));
	free(out);
	/* a pass stays one line */
	out = term_of(&r.scenarios[1]);
	assert_string_equal(out, "PASS    smoke                     9.0s\n");
	free(out);
	run_result_free(&r);
}

/* Past 10 findings, one line says how many more. */
static void test_term_many(void **state)
{
	struct run_result r;
	char *out;

	(void)state;
	run_make(&r);
	for (int i = 0; i < 12; i++)
		add_finding(&r.scenarios[0], "bug", "BUG: x", "11", FINDING_FAILS, 1);
	out = term_of(&r.scenarios[0]);
	assert_non_null(strstr(out, "        finding: ... and 4 more (result.json)\n"));
	free(out);
	run_result_free(&r);
}

/* Two runs: the WARNING four times (failing in disk-nvme, expected in
 * smoke), the second time on another kernel in attempt 2 of disk-nvme,
 * where the OOM kill failed; a BUG twice in the second run's smoke. */
static void groups_make(struct finding_groups *g, bool failing_only)
{
	struct run_result a, b;
	struct scenario_result *s;

	run_make(&a);
	run_make(&b);
	s = &b.scenarios[0];
	free(s->name);
	s->name = xstrdup("disk-nvme#2");
	s->attempt = 2;
	free(s->kernel);
	s->kernel = xstrdup("6.1.0-47-amd64");
	s->findings_dropped = 5;
	s->findings[1].verdict = FINDING_FAILS;
	add_finding(&b.scenarios[1], "bug", "BUG: aaa", "55", FINDING_FAILS, 0);
	add_finding(&b.scenarios[1], "bug", "BUG: aaa", "55", FINDING_FAILS, 0);
	memset(g, 0, sizeof(*g));
	finding_groups_add(g, &a, failing_only);
	finding_groups_add(g, &b, failing_only);
	finding_groups_sort(g);
	run_result_free(&a);
	run_result_free(&b);
}

static void test_groups(void **state)
{
	struct finding_groups g;
	const struct finding_group *w;

	(void)state;
	groups_make(&g, false);
	assert_int_equal(g.runs, 2);
	assert_int_equal(g.findings, 8);
	assert_int_equal(g.dropped, 5);
	assert_int_equal(g.count, 3);
	/* most frequent first; one signature is one group whatever the title */
	w = &g.v[0];
	assert_int_equal(w->count, 4);
	assert_string_equal(w->signature, SIG_WARN);
	assert_string_equal(w->kind, "warning");
	assert_int_equal(w->verdicts[FINDING_FAILS], 2);
	assert_int_equal(w->verdicts[FINDING_EXPECTED], 2);
	assert_int_equal(w->runs, 2);
	/* names without the attempt, kernels in the order seen */
	assert_int_equal(w->scenarios_count, 2);
	assert_string_equal(w->scenarios[0], "disk-nvme");
	assert_string_equal(w->scenarios[1], "smoke");
	assert_int_equal(w->kernels_count, 2);
	assert_string_equal(w->kernels[0], "6.1.0-57-amd64");
	assert_string_equal(w->kernels[1], "6.1.0-47-amd64");
	assert_int_equal(w->frames_count, 3);
	assert_string_equal(w->frames[0], "nvme_setup_io_queues.cold+0x1a/0x2b [nvme]");
	/* equal counts: by title */
	assert_string_equal(g.v[1].title, "BUG: aaa");
	assert_int_equal(g.v[1].count, 2);
	assert_int_equal(g.v[1].runs, 1);
	assert_string_equal(g.v[2].title, "OOM kill: stress");
	assert_int_equal(g.v[2].verdicts[FINDING_TOLERATED], 1);
	assert_int_equal(g.v[2].verdicts[FINDING_FAILS], 1);
	finding_groups_free(&g);
	/* only the failing ones */
	groups_make(&g, true);
	assert_int_equal(g.findings, 5);
	assert_int_equal(g.v[0].count, 2);
	assert_int_equal(g.v[0].scenarios_count, 1);
	assert_true(g.failing_only);
	finding_groups_free(&g);
}

static void test_groups_json(void **state)
{
	struct finding_groups g;
	json_t *j, *first;
	char *text;

	(void)state;
	groups_make(&g, false);
	j = finding_groups_to_json(&g);
	assert_int_equal(json_integer_value(json_object_get(j, "runs")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "findings")), 8);
	assert_int_equal(json_integer_value(json_object_get(j, "findings_dropped")), 5);
	assert_int_equal(json_array_size(json_object_get(j, "signatures")), 3);
	first = json_array_get(json_object_get(j, "signatures"), 0);
	text = json_dumps(first, JSON_COMPACT | JSON_PRESERVE_ORDER);
	/* the hostile title is sanitised JSON text, ESC kept as an escape */
	assert_string_equal(
	    text, "{\"signature\":\"9f2c1a\",\"kind\":\"warning\",\"title\":\"WARNING in "
		  "nvme_setup_io_queues <&\\\"]]>\\u001B[31m\\u0001\",\"count\":4,\"verdicts\":"
		  "{\"fail\":2,\"expected\":2,\"tolerated\":0},\"runs\":2,\"scenarios\":"
		  "[\"disk-nvme\",\"smoke\"],\"kernels\":[\"6.1.0-57-amd64\",\"6.1.0-47-amd64\"],"
		  "\"frames\":"
		  "[\"nvme_setup_io_queues.cold+0x1a/0x2b [nvme]\",\"nvme_reset_work+0x3c/0x100\","
		  "\"process_one_work\"]}");
	free(text);
	json_decref(j);
	finding_groups_free(&g);
}

static void test_groups_term(void **state)
{
	struct finding_groups g;
	FILE *f = tmpfile();
	char *out;

	(void)state;
	groups_make(&g, false);
	report_term_findings(&g, f);
	out = slurp(f);
	assert_non_null(strstr(out, "4x warning: WARNING in nvme_setup_io_queues <&\"]]>\n"
				    "   signature: 9f2c1a\n"
				    "   verdicts: 2 fail, 2 expected\n"
				    "   runs: 2 of 2\n"
				    "   scenarios: disk-nvme, smoke\n"
				    "   kernels: 6.1.0-57-amd64, 6.1.0-47-amd64\n"
				    "2x bug: BUG: aaa\n"));
	assert_non_null(strstr(out, "2x oom kill: OOM kill: stress\n   signature: 04bd77\n"
				    "   verdicts: 1 fail, 1 tolerated\n   runs: 2 of 2\n"));
	assert_non_null(strstr(out, "\nfindings: 8 with 3 signatures in 2 runs (and 5 reports past "
				    "the scans' limit, only counted)\n"));
	assert_null(strchr(out, '\033'));
	free(out);
	finding_groups_free(&g);
	/* none at all */
	memset(&g, 0, sizeof(g));
	g.runs = 3;
	f = tmpfile();
	report_term_findings(&g, f);
	out = slurp(f);
	assert_string_equal(out, "no findings in 3 runs\n");
	free(out);
}

/* A decoded frame names where it is: its own function's place, then what
 * was inlined there. */
static void test_frame_str_decoded(void **state)
{
	struct finding_frame fr = { .func = "kd_outer", .off = "0x14/0x40" };
	struct finding_loc locs[] = { { "kd_inlined", "a/k.c", 11 }, { "kd_outer", "a/k.c", 16 } };
	char *s;

	(void)state;
	s = finding_frame_str(&fr);
	assert_string_equal(s, "kd_outer+0x14/0x40");
	free(s);
	fr.locs = locs;
	fr.locs_count = 2;
	s = finding_frame_str(&fr);
	assert_string_equal(s, "kd_outer+0x14/0x40 (a/k.c:16; inlined: kd_inlined at a/k.c:11)");
	free(s);
	fr.locs_count = 1;
	fr.locs = &locs[1];
	s = finding_frame_str(&fr);
	assert_string_equal(s, "kd_outer+0x14/0x40 (a/k.c:16)");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_str_decoded),
		cmocka_unit_test(test_frame_str),
		cmocka_unit_test(test_junit),
		cmocka_unit_test(test_tap),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_term),
		cmocka_unit_test(test_term_many),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_groups_json),
		cmocka_unit_test(test_groups_term),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
