/* What every step kind shares: turning a wait's outcome into a status,
 * judging output against an expect block, running a guest command, and
 * starting the machine again after it powered itself off. */
#include "step.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "loop.h"
#include "util.h"

/* Why a wait ended early, as a step status and message. */
void step_wait_failed(struct run_ctx *c, struct step_result *sr, int ret, const struct step *st)
{
	if (ret == -ECANCELED) {
		sr->status = ST_FAIL;
		sr->message = xstrdup(loop_abort_reason(c->vm.loop));
	} else if (ret == -ETIMEDOUT) {
		bool scenario_limit = loop_now(c->vm.loop) >= c->deadline;

		sr->status = ST_TIMEOUT;
		sr->message = scenario_limit
				  ? xasprintf("scenario timeout (%s) reached during this step",
					      c->s->timeout ? c->s->timeout : "120s")
				  : xasprintf("step did not finish within %s",
					      st && st->timeout ? st->timeout : "its time limit");
	} else {
		sr->status = ST_ERROR;
		sr->message = xasprintf("%s", strerror(-ret));
	}
}

void step_judge(struct step_result *sr, const struct expect *e)
{
	char *why = NULL;

	if (!sr->data && sr->out)
		sr->data = expect_parse_output(sr->out);
	if (expect_verify(e, sr->exit_code, sr->out ? sr->out : "", sr->data, &why)) {
		sr->status = ST_FAIL;
		sr->message = why ? why : xstrdup("expectation not met");
	} else {
		sr->status = ST_PASS;
		free(why);
	}
}

void step_metrics(struct run_ctx *c, const struct step *st, struct step_result *sr)
{
	for (unsigned i = 0; i < st->metrics_count; i++) {
		json_t *v = sr->data ? expect_json_path(sr->data, st->metrics[i]) : NULL;
		char *name = step_metric_name(st->metrics[i]);

		if (json_is_number(v)) {
			json_object_set(c->r->metrics, name, v);
		} else if (sr->status == ST_PASS) {
			char *shown = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

			sr->status = ST_FAIL;
			sr->message =
			    xasprintf("metrics: %s is not a number in the output (got %s)",
				      st->metrics[i], shown ? shown : "nothing");
			free(shown);
		}
		free(name);
	}
}

/* What a guest command that ran out of time was doing: the state, wait
 * channel and kernel stack of it and its children, and the memory counters,
 * so that a step that hangs once in thirty runs leaves evidence behind. */
#define STUCK_PROBE_MS 5000
#define STUCK_SCRIPT                                                                               \
	"kids() { cat /proc/$1/task/*/children 2>/dev/null; }; "                                   \
	"for p in %lld $(kids %lld) $(for k in $(kids %lld); do kids $k; done); do "               \
	"echo \"== pid $p: $(tr '\\0' ' ' < /proc/$p/cmdline)\"; "                                 \
	"grep -E '^(State|VmRSS|VmSwap)' /proc/$p/status; "                                        \
	"echo \"wchan: $(cat /proc/$p/wchan)\"; cat /proc/$p/stack; done; "                        \
	"for f in meminfo vmstat pressure/memory; do echo \"== /proc/$f\"; cat /proc/$f; done"

static void step_record_stuck(struct run_ctx *c, const struct step_result *sr, long long pid)
{
	struct vm_exec_result res = { 0 };
	int64_t dl = loop_now(c->vm.loop) + STUCK_PROBE_MS;
	char *cmd = xasprintf(STUCK_SCRIPT, pid, pid, pid), *path;

	if (dl <= c->deadline && !vm_exec(&c->vm, cmd, NULL, &res, dl) && res.out) {
		path = xasprintf("%s/stuck-line-%d.txt", c->r->artifacts, sr->line);
		write_file(path, res.out, res.out_len);
		free(path);
	}
	vm_exec_result_free(&res);
	free(cmd);
}

int step_guest_exec(struct run_ctx *c, const char *cmd, const struct step *st,
		    struct step_result *sr, int64_t deadline)
{
	struct vm_exec_result res = { 0 };
	long long pid = 0;
	int ret = vm_exec_start(&c->vm, cmd, (const char *const *)c->env, &pid, &res.err, deadline);

	if (!ret)
		ret = vm_exec_wait(&c->vm, pid, &res, deadline);
	if (ret == -ETIMEDOUT && pid)
		step_record_stuck(c, sr, pid);
	if (ret) {
		step_wait_failed(c, sr, ret, st);
	} else {
		sr->exit_code = res.exit_code;
		sr->out = res.out;
		sr->err = res.err;
		res.out = res.err = NULL;
	}
	vm_exec_result_free(&res);
	return ret;
}

int run_restart(struct run_ctx *c, const char *extra, int64_t deadline)
{
	struct vm_config vc = c->vm.cfg;
	int ret;

	vm_stop(&c->vm);
	free(c->restart_append);
	c->restart_append = xasprintf("%s %s", c->append, extra);
	vc.append = c->restart_append;
	vc.restart = true;
	vc.gdb_wait = false; /* the debugger let the first start go; gdb may attach again */
	ret = vm_start(&c->vm, &vc, deadline);
	if (!ret)
		ret = vm_wait_agent(&c->vm, deadline);
	c->boots += !ret;
	return ret;
}
