/* The steps that need no device of their own: run (a guest command),
 * wait (a pause or a console line) and qmp (a monitor command). */
#include "step_basic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "loop.h"
#include "util.h"

static void step_run(struct run_ctx *c, const struct step *st, struct step_result *sr,
		     int64_t deadline)
{
	if (!step_guest_exec(c, st->run, st, sr, deadline)) {
		step_judge(sr, st->expect);
		step_metrics(c, st, sr);
	}
}

static bool console_watch_done(void *ctx)
{
	return console_matched(ctx);
}

int wait_verdict(int ret, bool console, int64_t until, int64_t deadline)
{
	/* the step's own wait ended first: the regex was not seen in time */
	if (console && ret == -ETIMEDOUT && until <= deadline)
		return -ENOMSG;
	/* a pause the step's or scenario's deadline cut short */
	if (!console && !ret && until > deadline)
		return -ETIMEDOUT;
	return ret;
}

static void step_wait(struct run_ctx *c, const struct step *st, struct step_result *sr,
		      int64_t deadline)
{
	int64_t until = loop_now(c->vm.loop) + st->wait_ms;
	int ret;

	if (!st->wait_for) {
		/* a plain pause that still notices a panic */
		ret = loop_run_until(c->vm.loop, NULL, NULL, until < deadline ? until : deadline);
	} else {
		console_watch(c->vm.console, st->wait_for);
		ret = loop_run_until(c->vm.loop, console_watch_done, c->vm.console,
				     until < deadline ? until : deadline);
	}
	ret = wait_verdict(ret, st->wait_for != NULL, until, deadline);
	if (ret == -ENOMSG) {
		sr->status = ST_FAIL;
		sr->message =
		    xasprintf("the console did not show /%s/ within %s", st->wait_for, st->wait);
		return;
	}
	if (ret)
		step_wait_failed(c, sr, ret, st);
	else
		sr->status = ST_PASS;
}

int qmp_split(const struct step *st, char **cmd, json_t **args)
{
	json_t *doc;

	if (st->qmp[0] != '{') {
		*cmd = xstrdup(st->qmp);
		*args = st->arguments ? json_incref(st->arguments) : NULL;
		return 0;
	}
	doc = json_loads(st->qmp, 0, NULL);
	if (!doc || !json_is_string(json_object_get(doc, "execute"))) {
		json_decref(doc);
		return -EINVAL;
	}
	*cmd = xstrdup(json_string_value(json_object_get(doc, "execute")));
	*args = json_incref(json_object_get(doc, "arguments"));
	json_decref(doc);
	return 0;
}

void qmp_reply_judge(struct step_result *sr, int ret, json_t *ret_val, char *errmsg,
		     const struct expect *e)
{
	sr->exit_code = ret == -EREMOTEIO ? 1 : 0;
	sr->data = ret_val;
	sr->out = ret_val ? json_dumps(ret_val, JSON_COMPACT) : xstrdup("");
	sr->err = errmsg;
	step_judge(sr, e);
}

static void step_qmp(struct run_ctx *c, const struct step *st, struct step_result *sr,
		     int64_t deadline)
{
	json_t *args = NULL, *ret_val = NULL;
	char *cmd = NULL, *errmsg = NULL;
	int ret;

	if (qmp_split(st, &cmd, &args)) {
		sr->status = ST_ERROR;
		sr->message = xstrdup("qmp: not a QMP command object");
		return;
	}
	ret = vm_qmp(&c->vm, cmd, args, &ret_val, &errmsg, deadline);
	if (ret && ret != -EREMOTEIO) {
		sr->exit_code = 0;
		step_wait_failed(c, sr, ret, st);
		goto out;
	}
	qmp_reply_judge(sr, ret, ret_val, errmsg, st->expect);
	errmsg = NULL;
out:
	free(cmd);
	free(errmsg);
	json_decref(args);
}

const struct step_ops step_run_ops = { STEP_RUN, step_run };
const struct step_ops step_wait_ops = { STEP_WAIT, step_wait };
const struct step_ops step_qmp_ops = { STEP_QMP, step_qmp };
