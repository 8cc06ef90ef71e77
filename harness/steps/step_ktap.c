#include "step_ktap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "util.h"

/* How many failed tests, and skipped ones, the step's message names. */
#define KTAP_FAILS_NAMED 3
#define KTAP_SKIPS_NAMED 5

/* A failed test none of whose own subtests failed: where the fault is. */
static bool failed_leaf(const struct ktap_doc *d, size_t i)
{
	size_t n = strlen(d->tests[i].name);

	if (d->tests[i].status != ST_FAIL)
		return false;
	for (size_t j = i + 1; j < d->count && !strncmp(d->tests[j].name, d->tests[i].name, n) &&
			       d->tests[j].name[n] == '.';
	     j++)
		if (d->tests[j].status == ST_FAIL)
			return false;
	return true;
}

static char *fail_message(const struct ktap_doc *d)
{
	size_t leaves = 0, named = 0;
	char *msg = xasprintf("%zu of %zu tests failed:", d->top_failed, d->top_count);

	for (size_t i = 0; i < d->count; i++) {
		char *m;

		if (!failed_leaf(d, i))
			continue;
		if (named++ < KTAP_FAILS_NAMED) {
			m = xasprintf("%s%s %s", msg, leaves ? "," : "", d->tests[i].name);
			free(msg);
			msg = m;
		}
		leaves++;
	}
	if (leaves > KTAP_FAILS_NAMED) {
		char *m = xasprintf("%s (and %zu more)", msg, leaves - KTAP_FAILS_NAMED);

		free(msg);
		msg = m;
	}
	return msg;
}

/* The skipped test points, each with its reason, as the message of a step
 * where nothing ran: "all 2 tests skipped: a (needs root), b (no reason
 * given)". */
static char *skip_message(const struct ktap_doc *d)
{
	size_t named = 0;
	char *msg;

	if (d->skip_all && !d->count)
		return xasprintf("all tests skipped: %s",
				 *d->skip_all ? d->skip_all : "no reason given");
	msg = xasprintf("all %zu tests skipped:", d->points_skipped);
	for (size_t i = 0; i < d->count; i++) {
		const struct subtest *t = &d->tests[i];
		size_t n = strlen(t->name);
		char *m;

		/* a point: nothing nested below it */
		if (t->status != ST_SKIP ||
		    (i + 1 < d->count && !strncmp(d->tests[i + 1].name, t->name, n) &&
		     d->tests[i + 1].name[n] == '.'))
			continue;
		if (named++ >= KTAP_SKIPS_NAMED)
			continue;
		m = xasprintf("%s%s %s (%s)", msg, named > 1 ? "," : "", t->name,
			      t->reason && *t->reason ? t->reason : "no reason given");
		free(msg);
		msg = m;
	}
	if (named > KTAP_SKIPS_NAMED) {
		char *m = xasprintf("%s (and %zu more)", msg, named - KTAP_SKIPS_NAMED);

		free(msg);
		msg = m;
	}
	return msg;
}

/* The verdict on a document that parsed: a failure wins; then a document
 * whose tests all skipped is a skip, and one where no test ran at all (a
 * plan of 1..0, suites with no cases) a failure, since a check that passes
 * on nothing tests nothing. */
static void doc_verdict(struct step_result *sr, const struct ktap_doc *d, const char *none)
{
	if (d->top_failed) {
		sr->status = ST_FAIL;
		sr->message = fail_message(d);
	} else if (d->points_run) {
		sr->status = ST_PASS;
	} else if (d->points_skipped || (d->skip_all && !d->count)) {
		sr->status = ST_SKIP;
		sr->message = skip_message(d);
	} else {
		sr->status = ST_FAIL;
		sr->message =
		    xstrdup(none       ? none
			    : d->count ? "no test ran: every suite reported holds no test "
					 "case (its nested plan is 1..0)"
				       : "no test ran: the KTAP plan is 1..0");
	}
}

void suite_judge(struct step_result *sr, struct ktap_doc *d, const char *none)
{
	doc_verdict(sr, d, none);
	for (size_t i = 0; i < d->count; i++) {
		*step_result_add_subtest(sr) = d->tests[i];
		memset(&d->tests[i], 0, sizeof(d->tests[i]));
	}
	ktap_doc_free(d);
}

void ktap_judge(struct step_result *sr, const char *text, size_t len, bool console)
{
	struct ktap_doc d;
	struct ktap_error e;
	int ret = ktap_parse(text, len, &d, &e);

	if (ret == -ENOENT && console) {
		sr->status = ST_FAIL;
		sr->message = xstrdup(
		    "no test ran: the kernel log since boot holds no KTAP, so no KUnit suite "
		    "ran at boot; require CONFIG_KUNIT=y and each suite's option as =y in "
		    "kernel.requires (a suite built as a module runs only when loaded)");
		return;
	}
	if (ret) {
		sr->status = ST_ERROR;
		sr->message = e.line ? xasprintf("malformed KTAP, line %d: %s", e.line, e.msg)
				     : xasprintf("malformed KTAP: %s", e.msg);
		return;
	}
	suite_judge(sr, &d, NULL);
}

/* The kernel's log since boot, not the console's copy of it: the harness
 * boots with loglevel=5, so the console leaves out KUnit's KERN_INFO lines,
 * while the log buffer (log_buf_len=8M) holds every level. */
#define KTAP_KERNEL_LOG_CMD "dmesg"

static void step_ktap(struct run_ctx *c, const struct step *st, struct step_result *sr,
		      int64_t deadline)
{
	const char *cmd = st->ktap_console ? KTAP_KERNEL_LOG_CMD : st->ktap;
	char *why;

	if (step_guest_exec(c, cmd, st, sr, deadline))
		return;
	ktap_judge(sr, sr->out ? sr->out : "", sr->out ? strlen(sr->out) : 0, st->ktap_console);
	if (sr->status == ST_ERROR && sr->exit_code) {
		/* no KTAP at all is most often a command that did not run */
		why = xasprintf("%s (the command exited %d)", sr->message, sr->exit_code);
		free(sr->message);
		sr->message = why;
	}
	if (st->ktap_console) {
		/* the whole boot log is dmesg.txt in the artifacts already */
		free(sr->out);
		sr->out = NULL;
	}
}

const struct step_ops step_ktap_ops = { STEP_KTAP, step_ktap };
