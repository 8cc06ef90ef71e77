/* The steps that need no device of their own: run (a guest command),
 * wait (a pause or a console line) and qmp (a monitor command), and the
 * table of every step kind. */
#include "steps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "loop.h"
#include "util.h"

void step_run(struct run_ctx *c, const struct step *st, struct step_result *sr,
		     int64_t deadline)
{
	if (!step_guest_exec(c, st->run, st, sr, deadline))
		step_judge(sr, st->expect);
}

static bool console_watch_done(void *ctx)
{
	return console_matched(ctx);
}

void step_wait(struct run_ctx *c, const struct step *st, struct step_result *sr,
		      int64_t deadline)
{
	int64_t until = loop_now(c->vm.loop) + st->wait_ms;
	int ret;

	if (!st->wait_for) {
		/* a plain pause that still notices a panic */
		ret = loop_run_until(c->vm.loop, NULL, NULL, until < deadline ? until : deadline);
		if (!ret && until > deadline)
			ret = -ETIMEDOUT;
	} else {
		console_watch(c->vm.console, st->wait_for);
		ret = loop_run_until(c->vm.loop, console_watch_done, c->vm.console,
				     until < deadline ? until : deadline);
		if (ret == -ETIMEDOUT && until <= deadline) {
			sr->status = ST_FAIL;
			sr->message = xasprintf("the console did not show /%s/ within %s",
						st->wait_for, st->wait);
			return;
		}
	}
	if (ret)
		step_wait_failed(c, sr, ret, st);
	else
		sr->status = ST_PASS;
}

static int qmp_split(const struct step *st, char **cmd, json_t **args)
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

void step_qmp(struct run_ctx *c, const struct step *st, struct step_result *sr,
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
	sr->exit_code = ret == -EREMOTEIO ? 1 : 0;
	if (ret && ret != -EREMOTEIO) {
		step_wait_failed(c, sr, ret, st);
		goto out;
	}
	sr->data = ret_val;
	sr->out = ret_val ? json_dumps(ret_val, JSON_COMPACT) : xstrdup("");
	sr->err = errmsg;
	errmsg = NULL;
	step_judge(sr, st->expect);
out:
	free(cmd);
	free(errmsg);
	json_decref(args);
}

static const struct {
	enum step_kind kind;
	step_fn run;
} step_table[] = {
	{STEP_RUN, step_run},
	{STEP_WAIT, step_wait},
	{STEP_QMP, step_qmp},
	{STEP_SUSPEND, step_suspend},
	{STEP_FAIL_PATH, step_fail_path},
	{STEP_RESTORE_PATH, step_restore_path},
	{STEP_BALLOON, step_balloon},
	{STEP_MEASURE, step_measure},
	{STEP_POWER_LOSS, step_power_loss},
	{STEP_HYBRID_STATS, step_hybrid_stats},
};

step_fn step_lookup(enum step_kind k)
{
	for (size_t i = 0; i < sizeof(step_table) / sizeof(step_table[0]); i++)
		if (step_table[i].kind == k)
			return step_table[i].run;
	return NULL;
}

