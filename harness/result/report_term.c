#include "report_term.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "findings.h"
#include "util.h"

/* The terminal view: quiet on success (one line per scenario), loud on
 * failure (the failing step, its output, the console tail, the artifacts).
 * Colour and live progress only on a TTY, and never with NO_COLOR set. */

#define INDENT "        "
#define OUTPUT_LINES 20
#define CONSOLE_LINES 30
#define DIAG_LINES 10
#define FINDING_LINES 10

static const char *const term_colors[ST_COUNT] = {
	[ST_PASS] = "\033[32m",	   [ST_FAIL] = "\033[31m", [ST_ERROR] = "\033[1;31m",
	[ST_TIMEOUT] = "\033[35m", [ST_SKIP] = "\033[33m",
};

/* Metrics worth a glance on the scenario line, in this order. */
static const struct {
	const char *key, *label;
} term_metrics[] = {
	{ "boot_ms", "boot" },		 { "suspend_ms", "suspend" }, { "resume_ms", "resume" },
	{ "hibernate_ms", "hibernate" }, { "restore_ms", "restore" },
};

static bool term_is_tty(FILE *f)
{
	return isatty(fileno(f));
}

static bool term_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return term_is_tty(f) && !(nc && *nc);
}

static void term_word(FILE *f, enum status st)
{
	const char *w = status_word(st);

	if (term_color(f))
		fprintf(f, "%s%s\033[0m", term_colors[st], w);
	else
		fputs(w, f);
	fprintf(f, "%*s", (int)(8 - strlen(w)), "");
}

static void term_metrics_print(FILE *f, const json_t *metrics)
{
	for (size_t i = 0; i < sizeof(term_metrics) / sizeof(term_metrics[0]); i++) {
		json_t *v = json_object_get(metrics, term_metrics[i].key);

		double ms = json_number_value(v);

		if (!json_is_number(v))
			continue;
		/* a resume takes tens of milliseconds: seconds would show 0.0s */
		if (ms < 1000)
			fprintf(f, "  %s %.0fms", term_metrics[i].label, ms);
		else
			fprintf(f, "  %s %.1fs", term_metrics[i].label, ms / 1000.0);
	}
}

/* A guest line must not move our cursor or recolour our terminal: escape
 * sequences and control characters (C1 included: 0x9b is a CSI too) are
 * dropped, bytes that are not UTF-8 become U+FFFD. */
static void term_clean_line(FILE *f, const char *s, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		long cp = utf8_decode((const unsigned char *)s + i, n - i, &len);

		if (cp == '\033') {
			i += ansi_escape_len(s + i, n - i);
			continue;
		}
		if (cp < 0)
			fputs("\xef\xbf\xbd", f);
		else if (cp == '\t' || (cp >= 0x20 && cp < 0x7f) || cp > 0x9f)
			fwrite(s + i, 1, len, f);
		i += len;
	}
}

/* Print the last max lines of text, indented; says how many were left out. */
static void term_tail(FILE *f, const char *label, const char *text, int max)
{
	size_t n = str_trim_len(text, strlen(text), "\r\n");
	const char *start = text, *p;
	int lines = 0;

	if (!n)
		return;
	for (p = text + n; p > text; p--) {
		if (p[-1] == '\n' && ++lines == max) {
			start = p;
			break;
		}
	}
	fprintf(f, INDENT "%s%s:\n", label, start != text ? " (last lines)" : "");
	while (start < text + n) {
		const char *nl = memchr(start, '\n', (size_t)(text + n - start));
		const char *end = nl ? nl : text + n;

		fputs(INDENT "  ", f);
		term_clean_line(f, start, (size_t)(end - start));
		fputc('\n', f);
		start = end + 1;
	}
}

/* The number the terminal gives step st of s (term_step): the scenario's
 * own steps count, the machine checks between them do not. */
static size_t term_step_number(const struct scenario_result *s, const struct step_result *st)
{
	size_t idx = 0;

	for (const struct step_result *p = s->steps; p <= st; p++)
		idx += !p->name || strcmp(p->name, MACHINE_STEP_NAME);
	return idx;
}

static void term_step(FILE *f, const struct scenario_result *s, const struct step_result *st)
{
	size_t idx = term_step_number(s, st);

	/* the scenario's steps keep their numbers in the file; the machine
	 * checks the runner adds between them are named, not numbered */
	if (st->name && !strcmp(st->name, MACHINE_STEP_NAME))
		fprintf(f, INDENT "step machine %s: ", status_name(st->status));
	else
		fprintf(f, INDENT "step %zu %s: ", idx, status_name(st->status));
	term_clean_line(f, st->name, strlen(st->name ? st->name : ""));
	if (st->line > 0)
		fprintf(f, " (%s:%d)", s->file ? s->file : "?", st->line);
	fprintf(f, " %.1fs\n", st->duration_ms / 1000.0);
}

/* A failed subtest's diagnostics under it: the first DIAG_LINES lines,
 * where KUnit and kselftest say what broke. */
static void term_diag(FILE *f, const char *diag)
{
	const char *p = diag;

	for (int n = 0; *p && n < DIAG_LINES; n++) {
		size_t len = strcspn(p, "\n");

		fputs(INDENT "    ", f);
		term_clean_line(f, p, len);
		fputc('\n', f);
		p += len + (p[len] == '\n');
	}
	if (*p)
		fputs(INDENT "    ...\n", f);
}

/* A step's subtests, each a result of its own under it: all of them, or
 * (all false) those that failed or were skipped; a failure with the end of
 * its diagnostics. */
static void term_subtests(FILE *f, const struct step_result *st, bool all)
{
	for (size_t i = 0; i < st->subtests_count; i++) {
		const struct subtest *t = &st->subtests[i];

		if (!all && t->status == ST_PASS)
			continue;
		fprintf(f, INDENT "  %s ", status_name(t->status));
		term_clean_line(f, t->name, strlen(t->name ? t->name : ""));
		if (t->reason) {
			fputs(" (", f);
			term_clean_line(f, t->reason, strlen(t->reason));
			fputc(')', f);
		}
		if (t->duration_ms >= 0)
			fprintf(f, " %.1fs", t->duration_ms / 1000.0);
		fputc('\n', f);
		if (t->status == ST_FAIL && t->diag)
			term_diag(f, t->diag);
	}
}

static void term_message(FILE *f, const char *msg)
{
	if (!msg)
		return;
	fputs(INDENT, f);
	term_clean_line(f, msg, strlen(msg));
	fputc('\n', f);
}

/* "finding: KIND: TITLE (step N, console line L) [verdict]" for each
 * kernel report the console carried, the first FINDING_LINES of them. */
static void term_findings(FILE *f, const struct scenario_result *s)
{
	for (size_t i = 0; i < s->findings_count && i < FINDING_LINES; i++) {
		const struct finding *fd = &s->findings[i];
		const struct step_result *st = finding_step(s, fd);

		fputs(INDENT "finding: ", f);
		term_clean_line(f, fd->kind, strlen(fd->kind ? fd->kind : ""));
		fputs(": ", f);
		term_clean_line(f, fd->title, strlen(fd->title ? fd->title : ""));
		if (fd->from_dmesg) {
			fprintf(f, " (only in dmesg) [%s]\n", finding_verdict_name(fd->verdict));
			continue;
		}
		if (!st)
			fputs(" (before the first step", f);
		else if (st->name && !strcmp(st->name, MACHINE_STEP_NAME))
			fputs(" (step machine", f);
		else
			fprintf(f, " (step %zu", term_step_number(s, st));
		fprintf(f, ", console line %ld) [%s]\n", fd->console_line,
			finding_verdict_name(fd->verdict));
	}
	if (s->findings_count > FINDING_LINES)
		fprintf(f, INDENT "finding: ... and %zu more (result.json)\n",
			s->findings_count - FINDING_LINES);
}

/* The dump of guest memory (--dump): where, how big, how to open it; or
 * why there is none. */
static void term_dump(FILE *f, const struct scenario_result *s)
{
	const char *file = json_string_value(json_object_get(s->dump, "file"));
	const char *note = json_string_value(json_object_get(s->dump, "note"));

	if (!s->dump)
		return;
	if (file)
		fprintf(f,
			INDENT "dump (%s): %s, %.1f MB in %.1f s; drgn -c %s -s VMLINUX "
			       "(docs/debugging.md)\n",
			json_string_value(json_object_get(s->dump, "trigger")), file,
			(double)json_integer_value(json_object_get(s->dump, "bytes")) / 1e6,
			(double)json_integer_value(json_object_get(s->dump, "ms")) / 1000.0, file);
	else if (note)
		fprintf(f, INDENT "dump (%s): %s\n",
			json_string_value(json_object_get(s->dump, "trigger")), note);
}

static void term_failure(FILE *f, const struct scenario_result *s)
{
	const struct step_result *st = scenario_result_failed_step(s);

	if (st) {
		term_step(f, s, st);
		term_message(f, st->message);
		term_subtests(f, st, false);
		if (st->err && *st->err)
			term_tail(f, "stderr", st->err, OUTPUT_LINES);
		if (st->out && *st->out)
			term_tail(f, "stdout", st->out, OUTPUT_LINES);
	}
	/* the scenario's message adds something when no step explains it */
	if (s->message && (!st || !st->message || strcmp(s->message, st->message)))
		term_message(f, s->message);
	term_findings(f, s);
	if (s->console_tail)
		term_tail(f, "console", s->console_tail, CONSOLE_LINES);
	term_dump(f, s);
	if (s->artifacts)
		fprintf(f, INDENT "artifacts: %s\n", s->artifacts);
}

void report_term_scenario(const struct scenario_result *s, FILE *f, bool verbose)
{
	bool bad = s->status != ST_PASS && s->status != ST_SKIP;

	if (term_is_tty(f))
		fputs("\r\033[K", f); /* wipe a progress line */
	term_word(f, s->status);
	fprintf(f, "%-22s %6.1fs", s->name ? s->name : "?", s->duration_ms / 1000.0);
	term_metrics_print(f, s->metrics);
	if (s->status == ST_SKIP && s->message)
		fprintf(f, "  (%s)", s->message);
	fputc('\n', f);
	if (bad) {
		term_failure(f, s);
	} else if (verbose) {
		for (size_t i = 0; i < s->steps_count; i++) {
			term_step(f, s, &s->steps[i]);
			term_subtests(f, &s->steps[i], true);
		}
	}
	fflush(f);
}

/* With --repeat: "pass rate: NAME 2/3 flaky" for each scenario. */
static void term_pass_rates(const struct run_result *r, FILE *f)
{
	json_t *rates = run_result_pass_rates(r), *v;
	const char *name;

	json_object_foreach (rates, name, v)
		fprintf(f, "pass rate: %s %lld/%lld%s\n", name,
			(long long)json_integer_value(json_object_get(v, "pass")),
			(long long)json_integer_value(json_object_get(v, "runs")),
			json_is_true(json_object_get(v, "flaky")) ? " flaky" : "");
	json_decref(rates);
}

void report_term_summary(const struct run_result *r, FILE *f)
{
	size_t n[ST_COUNT];

	run_result_count(r, n);
	/* CI parsers match this line exactly: keep timeouts and errors in
	 * "failed" here and spell them out on the next line */
	fprintf(f, "summary: %zu passed, %zu failed", n[ST_PASS],
		n[ST_FAIL] + n[ST_TIMEOUT] + n[ST_ERROR]);
	if (n[ST_SKIP])
		fprintf(f, ", %zu skipped", n[ST_SKIP]);
	fputc('\n', f);
	if (n[ST_TIMEOUT] || n[ST_ERROR])
		fprintf(f, "of which: %zu timed out, %zu errored\n", n[ST_TIMEOUT], n[ST_ERROR]);
	term_pass_rates(r, f);
	if (r->interrupted)
		fprintf(f, "interrupted by signal %d\n", r->interrupted);
	fprintf(f, "time: %.1fs\n", r->duration_ms / 1000.0);
	fflush(f);
}

void report_term_progress(FILE *f, size_t idx, size_t total, const char *name, const char *what)
{
	if (!term_is_tty(f))
		return;
	fputs("\r\033[K", f);
	if (name)
		fprintf(f, "[%zu/%zu] %s: %s", idx, total, name, what ? what : "");
	fflush(f);
}

static void term_words(FILE *f, const char *label, char *const *v, size_t n)
{
	if (!n)
		return;
	fprintf(f, "   %s: ", label);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		term_clean_line(f, v[i], strlen(v[i]));
	}
	fputc('\n', f);
}

static void term_group(FILE *f, const struct finding_group *grp, size_t runs)
{
	bool first = true;

	fprintf(f, "%zux ", grp->count);
	term_clean_line(f, grp->kind, strlen(grp->kind));
	fputs(": ", f);
	term_clean_line(f, grp->title, strlen(grp->title));
	fputs("\n   signature: ", f);
	term_clean_line(f, grp->signature, strlen(grp->signature));
	fputs("\n   verdicts: ", f);
	for (int k = 0; k < FINDING_VERDICTS; k++) {
		if (!grp->verdicts[k])
			continue;
		fprintf(f, "%s%zu %s", first ? "" : ", ", grp->verdicts[k],
			finding_verdict_name((enum finding_verdict)k));
		first = false;
	}
	fprintf(f, "\n   runs: %zu of %zu\n", grp->runs, runs);
	term_words(f, "scenarios", grp->scenarios, grp->scenarios_count);
	term_words(f, "kernels", grp->kernels, grp->kernels_count);
}

void report_term_findings(const struct finding_groups *g, FILE *f)
{
	const char *what = g->failing_only ? "failing findings" : "findings";

	for (size_t i = 0; i < g->count; i++)
		term_group(f, &g->v[i], g->runs);
	if (!g->findings)
		fprintf(f, "no %s in %zu run%s", what, g->runs, g->runs == 1 ? "" : "s");
	else
		fprintf(f, "%s: %zu with %zu signature%s in %zu run%s", what, g->findings, g->count,
			g->count == 1 ? "" : "s", g->runs, g->runs == 1 ? "" : "s");
	if (g->dropped)
		fprintf(f, " (and %zu reports past the scans' limit, only counted)", g->dropped);
	fputc('\n', f);
	fflush(f);
}
