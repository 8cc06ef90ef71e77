#include "report_junit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "util.h"

/* JUnit XML as CI servers read it: one testsuite "ktestbed", one testcase per
 * scenario, the failing step and console tail in <failure>/<error>, the step
 * list in <system-out>; then one testcase per subtest a step reported (KTAP),
 * in class "ktb.SCENARIO", its diagnostics in <failure> or <system-out>. The kernel reports
 * (findings) that failed the scenario go into its <failure>/<error> body, with their stacks;
 * the expected and tolerated ones, and any when there is no such element, into <system-out>.
 * Guest output may hold any bytes, so every text goes through xml_text, which writes only
 * characters XML 1.0 allows. */

static void xml_text(FILE *f, const char *s, bool attr)
{
	if (s)
		markup_escape(f, attr ? MARKUP_XML_ATTR : MARKUP_XML, s, strlen(s));
}

static void xml_attr(FILE *f, const char *name, const char *val)
{
	fprintf(f, " %s=\"", name);
	xml_text(f, val, true);
	fputc('"', f);
}

/* Title, kind, verdict, step, signature, then the stack, one frame a line. */
static void junit_finding(FILE *f, const struct scenario_result *s, const struct finding *fd)
{
	const struct step_result *st = finding_step(s, fd);

	fputs("kernel report: ", f);
	xml_text(f, fd->title, false);
	fputs("\n  kind: ", f);
	xml_text(f, fd->kind, false);
	fprintf(f, "\n  verdict: %s", finding_verdict_name(fd->verdict));
	if (fd->reason) {
		fputs(" (", f);
		xml_text(f, fd->reason, false);
		fputc(')', f);
	}
	fputs("\n  step: ", f);
	if (st)
		xml_text(f, st->name, false);
	else
		fputs(fd->from_dmesg ? "none (only in dmesg)" : "before the first step", f);
	if (fd->from_dmesg)
		fprintf(f, "\n  console line: none%s\n  signature: ",
			fd->panicked ? " (a panic followed)" : "");
	else
		fprintf(f, "\n  console line: %ld%s\n  signature: ", fd->console_line,
			fd->panicked ? " (a panic followed)" : "");
	xml_text(f, fd->signature, false);
	fputc('\n', f);
	for (size_t k = 0; k < fd->frames_count; k++) {
		char *fr = finding_frame_str(&fd->frames[k]);

		fputs(fd->frames[k].reliable ? "    " : "    ? ", f);
		xml_text(f, fr, false);
		fputc('\n', f);
		free(fr);
	}
}

/* Whether the scenario's testcase gets a <failure> or <error> element. */
static bool junit_has_problem(const struct scenario_result *s)
{
	return s->status != ST_PASS && s->status != ST_SKIP;
}

/* The findings that belong in the problem body (failing ones, when there is
 * one), or those that do not. */
static void junit_findings(FILE *f, const struct scenario_result *s, bool in_problem)
{
	for (size_t i = 0; i < s->findings_count; i++) {
		const struct finding *fd = &s->findings[i];

		if ((fd->verdict == FINDING_FAILS && junit_has_problem(s)) == in_problem)
			junit_finding(f, s, fd);
	}
}

static void junit_steps(FILE *f, const struct scenario_result *s)
{
	fputs("      <system-out>", f);
	for (size_t i = 0; i < s->steps_count; i++) {
		const struct step_result *st = &s->steps[i];

		fprintf(f, "%-7s %7.1fs  ", status_name(st->status), st->duration_ms / 1000.0);
		xml_text(f, st->name, false);
		if (st->message) {
			fputs(": ", f);
			xml_text(f, st->message, false);
		}
		fputc('\n', f);
	}
	if (s->artifacts) {
		fputs("artifacts: ", f);
		xml_text(f, s->artifacts, false);
		fputc('\n', f);
	}
	junit_findings(f, s, false);
	fputs("</system-out>\n", f);
}

/* The body says which step broke, where, why, and what the console showed. */
static void junit_problem_body(FILE *f, const struct scenario_result *s,
			       const struct step_result *st)
{
	if (st) {
		fputs("step: ", f);
		xml_text(f, st->name, false);
		if (st->line > 0) {
			fputs(" (", f);
			xml_text(f, s->file, false);
			fprintf(f, ":%d)", st->line);
		}
		fputc('\n', f);
	}
	xml_text(f, s->message ? s->message : st ? st->message : NULL, false);
	if (scenario_result_failing_findings(s)) {
		fputs("\n--- kernel reports ---\n", f);
		junit_findings(f, s, true);
	}
	if (s->console_tail) {
		fputs("\n--- console tail ---\n", f);
		xml_text(f, s->console_tail, false);
	}
}

static void junit_problem(FILE *f, const struct scenario_result *s)
{
	const struct step_result *st = scenario_result_failed_step(s);
	const char *tag = s->status == ST_ERROR ? "error" : "failure";
	const char *msg = s->message ? s->message : st && st->message ? st->message : "";

	fprintf(f, "      <%s", tag);
	xml_attr(f, "message", msg);
	xml_attr(f, "type", status_name(s->status));
	fputc('>', f);
	junit_problem_body(f, s, st);
	fprintf(f, "</%s>\n", tag);
}

static void junit_case(FILE *f, const struct scenario_result *s)
{
	/* CI tools group test cases by class: the first tag is the closest
	 * thing a scenario has to a suite */
	char *cls = xasprintf("ktb.%s", s->tags_count ? s->tags[0] : "scenario");

	fputs("    <testcase", f);
	xml_attr(f, "classname", cls);
	xml_attr(f, "name", s->name);
	fprintf(f, " time=\"%.3f\"", s->duration_ms / 1000.0);
	if (s->file)
		xml_attr(f, "file", s->file);
	fputs(">\n", f);
	free(cls);
	if (s->status == ST_SKIP) {
		fputs("      <skipped", f);
		if (s->message)
			xml_attr(f, "message", s->message);
		fputs("/>\n", f);
	} else if (junit_has_problem(s)) {
		junit_problem(f, s);
	}
	junit_steps(f, s);
	fputs("    </testcase>\n", f);
}

static void junit_subtest(FILE *f, const struct scenario_result *s, const struct subtest *t)
{
	char *cls = xasprintf("ktb.%s", s->name ? s->name : "scenario");

	fputs("    <testcase", f);
	xml_attr(f, "classname", cls);
	xml_attr(f, "name", t->name);
	if (t->duration_ms >= 0)
		fprintf(f, " time=\"%.3f\"", t->duration_ms / 1000.0);
	fputs(">\n", f);
	free(cls);
	if (t->status == ST_SKIP) {
		fputs("      <skipped", f);
		if (t->reason)
			xml_attr(f, "message", t->reason);
		fputs("/>\n", f);
	} else if (t->status != ST_PASS) {
		fputs("      <failure", f);
		xml_attr(f, "message", t->diag ? t->diag : status_name(t->status));
		xml_attr(f, "type", status_name(t->status));
		fputc('>', f);
		xml_text(f, t->diag, false);
		fputs("</failure>\n", f);
	}
	if (t->diag && t->status == ST_PASS) {
		fputs("      <system-out>", f);
		xml_text(f, t->diag, false);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static void junit_subtests(FILE *f, const struct scenario_result *s)
{
	for (size_t i = 0; i < s->steps_count; i++)
		for (size_t k = 0; k < s->steps[i].subtests_count; k++)
			junit_subtest(f, s, &s->steps[i].subtests[k]);
}

/* The scenarios and, each a test case of its own, their subtests. */
static void junit_counts(FILE *f, const struct run_result *r)
{
	size_t n[ST_COUNT], tests = r->count;

	run_result_count(r, n);
	for (size_t i = 0; i < r->count; i++)
		for (size_t j = 0; j < r->scenarios[i].steps_count; j++) {
			const struct step_result *st = &r->scenarios[i].steps[j];

			tests += st->subtests_count;
			for (size_t k = 0; k < st->subtests_count; k++)
				n[st->subtests[k].status]++;
		}
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"",
		tests, n[ST_FAIL] + n[ST_TIMEOUT], n[ST_ERROR], n[ST_SKIP],
		r->duration_ms / 1000.0);
}

int report_junit(const struct run_result *r, FILE *f)
{
	char started[32];

	result_format_utc(r->started_unix_ms, started, sizeof(started));
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ktestbed\"", f);
	junit_counts(f, r);
	fputs(">\n  <testsuite name=\"ktestbed\"", f);
	junit_counts(f, r);
	xml_attr(f, "timestamp", started);
	if (r->run_id)
		xml_attr(f, "id", r->run_id);
	fputs(">\n", f);
	if (r->interrupted)
		fprintf(f,
			"    <properties>\n      <property name=\"interrupted\" "
			"value=\"signal %d\"/>\n    </properties>\n",
			r->interrupted);
	for (size_t i = 0; i < r->count; i++) {
		junit_case(f, &r->scenarios[i]);
		junit_subtests(f, &r->scenarios[i]);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -EIO : 0;
}
