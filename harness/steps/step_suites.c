#include "step_suites.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junit.h"
#include "step_ktap.h"
#include "util.h"

/* Between the suite's own output and its results in one guest command's
 * stdout. */
#define SUITE_MARKER "ktb-suite-results-5e0c"

/* s in single quotes for the shell. Caller frees. */
static char *shell_quote(const char *s)
{
	size_t n = 2;
	char *q, *p;

	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	q = p = xcalloc(n + 1, 1);
	*p++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *c;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* cmd in a subshell (an exit in it ends only the suite), then the marker
 * and what reader prints from the folder cmd ended in (a cd in it holds for
 * a relative results path), then cmd's exit status. */
static char *suite_command(const char *cmd, const char *reader)
{
	return xasprintf("ktb_d=$(mktemp -d) || exit 125\n"
			 "( trap 'pwd >\"$ktb_d/cwd\"' EXIT\n%s\n)\nktb_rc=$?\n"
			 "printf '\\n%s\\n'\n"
			 "cd \"$(cat \"$ktb_d/cwd\" 2>/dev/null || pwd)\"; rm -rf \"$ktb_d\"\n"
			 "%s\nexit $ktb_rc",
			 cmd, SUITE_MARKER, reader);
}

/* Splits sr->out at the last marker line: the results (malloc'd) returned,
 * sr->out keeps the suite's own output. NULL when there is no marker. */
static char *suite_results(struct step_result *sr)
{
	const char *m = "\n" SUITE_MARKER "\n", *at = NULL;
	char *res;

	for (const char *p = sr->out; p && (p = strstr(p, m)); p++)
		at = p;
	if (!at)
		return NULL;
	res = xstrdup(at + strlen(m));
	sr->out[at - sr->out] = '\0';
	return res;
}

void suites_judge(struct step_result *sr, const char *format, const char *text, size_t len,
		  const char *check_out, int exit_code)
{
	bool junit = !strcmp(format, "junit");
	struct ktap_doc d;
	struct ktap_error e;
	char *m;
	int ret =
	    junit ? junit_parse(text, len, &d, &e) : blktests_parse(text, len, check_out, &d, &e);

	if (ret) {
		sr->status = ST_ERROR;
		sr->message = e.line ? xasprintf("%s results unreadable, line %d: %s",
						 junit ? "JUnit" : "blktests", e.line, e.msg)
				     : xasprintf("%s results unreadable: %s",
						 junit ? "JUnit" : "blktests", e.msg);
		return;
	}
	suite_judge(sr, &d,
		    junit ? "no test ran: the JUnit XML holds no <testcase>"
			  : "no test ran: the results folder holds no test's results");
	if (exit_code && sr->status != ST_FAIL) {
		m = xasprintf("the command exited %d, yet its results show no failure%s%s",
			      exit_code, sr->message ? " (" : "", sr->message ? sr->message : "");
		if (sr->message) {
			free(sr->message);
			sr->message = xasprintf("%s)", m);
			free(m);
		} else {
			sr->message = m;
		}
		sr->status = ST_FAIL;
	}
}

/* The last line of the command's stderr (the reader's complaint), or
 * "empty" when there is none. Static storage. */
static const char *err_line(const struct step_result *sr)
{
	static char line[256];
	const char *e = sr->err ? sr->err : "", *end = e + strlen(e), *start;

	while (end > e && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > e && start[-1] != '\n')
		start--;
	if (start == end)
		return "empty";
	snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
	return line;
}

static void no_xml(struct step_result *sr, const char *file)
{
	sr->status = ST_ERROR;
	sr->message = xasprintf("no JUnit XML in %s: %s", file, err_line(sr));
}

/* The wrapper's marker never came: the shell itself failed (no mktemp). */
static void no_results(struct step_result *sr, const char *what)
{
	sr->status = ST_ERROR;
	sr->message = xasprintf("%s (the step's shell exited %d before it: %s)", what,
				sr->exit_code, err_line(sr));
}

static void step_junit(struct run_ctx *c, const struct step *st, struct step_result *sr,
		       int64_t deadline)
{
	char *q = st->file ? shell_quote(st->file) : NULL;
	char *reader = q ? xasprintf("cat -- %s", q) : NULL;
	char *cmd = reader ? suite_command(st->junit, reader) : xstrdup(st->junit);
	char *res = NULL;

	if (!step_guest_exec(c, cmd, st, sr, deadline)) {
		if (!st->file)
			suites_judge(sr, "junit", sr->out ? sr->out : "",
				     sr->out ? strlen(sr->out) : 0, NULL, sr->exit_code);
		else if (!(res = suite_results(sr)))
			no_results(sr, "no JUnit XML read");
		else if (!*res)
			no_xml(sr, st->file);
		else
			suites_judge(sr, "junit", res, strlen(res), NULL, sr->exit_code);
	}
	free(res);
	free(cmd);
	free(reader);
	free(q);
}

static void step_blktests(struct run_ctx *c, const struct step *st, struct step_result *sr,
			  int64_t deadline)
{
	char *q = shell_quote(st->results ? st->results : "results");
	char *reader = xasprintf(BLKTESTS_DUMP_CMD, q);
	char *cmd = suite_command(st->blktests, reader);
	char *res = NULL;

	if (!step_guest_exec(c, cmd, st, sr, deadline)) {
		if (!(res = suite_results(sr))) {
			no_results(sr, "no blktests results read");
		} else if (!*res) {
			sr->status = ST_FAIL;
			sr->message =
			    xasprintf("no test ran: no results in %s: %s",
				      st->results ? st->results : "results", err_line(sr));
		} else {
			suites_judge(sr, "blktests", res, strlen(res), sr->out, sr->exit_code);
		}
	}
	free(res);
	free(cmd);
	free(reader);
	free(q);
}

const struct step_ops step_junit_ops = { STEP_JUNIT, step_junit };
const struct step_ops step_blktests_ops = { STEP_BLKTESTS, step_blktests };
