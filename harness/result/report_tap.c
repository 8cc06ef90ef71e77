#include "report_tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"

/* TAP version 13: one test point per scenario, a YAML diagnostics block for
 * each that did not pass; the subtests its steps reported (KTAP) nested
 * before it, indented four spaces as TAP 14 nests (a TAP 13 reader skips
 * them), each by its path. The kernel reports the console carried are a
 * `findings:` list in the block (a passing scenario with expected or
 * tolerated ones gets a block for them). Values are always YAML
 * double-quoted strings so any guest output stays one valid line. */

static void tap_yaml_char(FILE *f, long cp, const char *raw, size_t len)
{
	if (cp < 0)
		fputs("\\uFFFD", f);
	else if (cp == '"' || cp == '\\')
		fprintf(f, "\\%c", (int)cp);
	else if (cp == '\n')
		fputs("\\n", f);
	else if (cp == '\t')
		fputs("\\t", f);
	else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xfeff || cp >= 0xfffe)
		/* YAML wants printable characters only; U+FFFE and up are rare
		 * enough to escape all of them */
		fprintf(f, "\\u%04lX", cp > 0xffff ? 0xfffdL : cp);
	else
		fwrite(raw, 1, len, f);
}

static void tap_yaml_string(FILE *f, const char *s)
{
	size_t n = strlen(s), i = 0, len;

	fputc('"', f);
	while (i < n) {
		long cp = utf8_decode((const unsigned char *)s + i, n - i, &len);

		tap_yaml_char(f, cp, s + i, len);
		i += len;
	}
	fputc('"', f);
}

static void tap_field(FILE *f, const char *key, const char *val)
{
	if (!val)
		return;
	fprintf(f, "  %s: ", key);
	tap_yaml_string(f, val);
	fputc('\n', f);
}

/* "  KEY: VALUE" at the indent given; nothing when val is NULL. */
static void tap_field_at(FILE *f, const char *indent, const char *key, const char *val)
{
	if (!val)
		return;
	fprintf(f, "%s%s: ", indent, key);
	tap_yaml_string(f, val);
	fputc('\n', f);
}

static void tap_finding(FILE *f, const struct scenario_result *s, const struct finding *fd)
{
	const struct step_result *st = finding_step(s, fd);

	tap_field_at(f, "    - ", "kind", fd->kind ? fd->kind : "");
	tap_field_at(f, "      ", "title", fd->title ? fd->title : "");
	tap_field_at(f, "      ", "signature", fd->signature ? fd->signature : "");
	fprintf(f, "      verdict: %s\n", finding_verdict_name(fd->verdict));
	tap_field_at(f, "      ", "reason", fd->reason);
	tap_field_at(f, "      ", "step", st ? (st->name ? st->name : "") : NULL);
	fprintf(f, "      console_line: %ld\n      source: %s\n      panicked: %s\n",
		fd->console_line, fd->from_dmesg ? "dmesg" : "console",
		fd->panicked ? "true" : "false");
	fputs(fd->frames_count ? "      frames:\n" : "      frames: []\n", f);
	for (size_t k = 0; k < fd->frames_count; k++) {
		char *fr = finding_frame_str(&fd->frames[k]);

		fputs("        - ", f);
		tap_yaml_string(f, fr);
		fputc('\n', f);
		free(fr);
	}
}

static void tap_findings(FILE *f, const struct scenario_result *s)
{
	if (!s->findings_count)
		return;
	fputs("  findings:\n", f);
	for (size_t i = 0; i < s->findings_count; i++)
		tap_finding(f, s, &s->findings[i]);
}

/* A description must stay on its line and must not start a directive. */
static void tap_description(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '#' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
}

static void tap_diagnostics(FILE *f, const struct scenario_result *s)
{
	const struct step_result *st = scenario_result_failed_step(s);

	fputs("  ---\n", f);
	fprintf(f, "  status: %s\n", status_name(s->status));
	tap_field(f, "message", s->message ? s->message : st ? st->message : NULL);
	if (st) {
		tap_field(f, "step", st->name);
		if (st->line > 0)
			fprintf(f, "  line: %d\n", st->line);
	}
	tap_field(f, "file", s->file);
	fprintf(f, "  duration_ms: %lld\n", (long long)s->duration_ms);
	tap_field(f, "artifacts", s->artifacts);
	tap_field(f, "console_tail", s->console_tail);
	tap_findings(f, s);
	fputs("  ...\n", f);
}

static size_t tap_subtest_count(const struct scenario_result *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->steps_count; i++)
		n += s->steps[i].subtests_count;
	return n;
}

static void tap_subtest(FILE *f, size_t n, const struct subtest *t)
{
	fprintf(f, "    %s %zu - ", t->status == ST_FAIL ? "not ok" : "ok", n);
	tap_description(f, t->name);
	if (t->status == ST_SKIP) {
		fputs(" # SKIP", f);
		if (t->reason) {
			fputc(' ', f);
			tap_description(f, t->reason);
		}
	}
	fputc('\n', f);
	if (t->status == ST_FAIL && t->diag) {
		fputs("      ---\n    ", f);
		tap_field(f, "diag", t->diag);
		fputs("      ...\n", f);
	}
}

static void tap_subtests(FILE *f, const struct scenario_result *s)
{
	size_t n = 0;

	if (!tap_subtest_count(s))
		return;
	fputs("    # Subtest: ", f);
	tap_description(f, s->name);
	fprintf(f, "\n    1..%zu\n", tap_subtest_count(s));
	for (size_t i = 0; i < s->steps_count; i++)
		for (size_t k = 0; k < s->steps[i].subtests_count; k++)
			tap_subtest(f, ++n, &s->steps[i].subtests[k]);
}

static void tap_point(FILE *f, size_t n, const struct scenario_result *s)
{
	bool ok = s->status == ST_PASS || s->status == ST_SKIP;

	tap_subtests(f, s);
	fprintf(f, "%s %zu - ", ok ? "ok" : "not ok", n);
	tap_description(f, s->name);
	if (s->status == ST_SKIP) {
		fputs(" # SKIP", f);
		if (s->message) {
			fputc(' ', f);
			tap_description(f, s->message);
		}
	}
	fputc('\n', f);
	if (!ok) {
		tap_diagnostics(f, s);
	} else if (s->findings_count) {
		fprintf(f, "  ---\n  status: %s\n", status_name(s->status));
		tap_findings(f, s);
		fputs("  ...\n", f);
	}
}

int report_tap(const struct run_result *r, FILE *f)
{
	fprintf(f, "TAP version 13\n1..%zu\n", r->count);
	for (size_t i = 0; i < r->count; i++)
		tap_point(f, i + 1, &r->scenarios[i]);
	/* TAP's own word for a run stopped from outside */
	if (r->interrupted)
		fprintf(f, "Bail out! interrupted by signal %d\n", r->interrupted);
	return ferror(f) ? -EIO : 0;
}
