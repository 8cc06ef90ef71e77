#include "step_ktap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "util.h"

/* How many failed tests the step's message names. */
#define KTAP_FAILS_NAMED 3

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

void ktap_judge(struct step_result *sr, const char *text, size_t len)
{
	struct ktap_doc d;
	struct ktap_error e;

	if (ktap_parse(text, len, &d, &e)) {
		sr->status = ST_ERROR;
		sr->message = e.line ? xasprintf("malformed KTAP, line %d: %s", e.line, e.msg)
				     : xasprintf("malformed KTAP: %s", e.msg);
		return;
	}
	sr->status = d.top_failed ? ST_FAIL : ST_PASS;
	if (d.top_failed)
		sr->message = fail_message(&d);
	for (size_t i = 0; i < d.count; i++) {
		*step_result_add_subtest(sr) = d.tests[i];
		memset(&d.tests[i], 0, sizeof(d.tests[i]));
	}
	ktap_doc_free(&d);
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
	ktap_judge(sr, sr->out ? sr->out : "", sr->out ? strlen(sr->out) : 0);
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
