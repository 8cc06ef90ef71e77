#include "qga.h"

#include "jsonclient.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nettle/base64.h>

/* After a failed request the stream is out of step (a late reply is still
 * coming); the next request resyncs first, resending this often. */
#define QGA_RESYNC_RETRY_MS 500
#define QGA_SYNC_BACKOFF_MAX 8
/* guest-exec-status polling: quick for short commands, then backing off. */
#define QGA_POLL_FIRST_MS 20
#define QGA_POLL_MAX_MS 200

struct qga {
	struct jsonclient c;
	bool synced;	   /* replies now come in the order of our requests */
	bool waiting;	   /* a request is outstanding */
	bool held;	   /* ...and its caller stopped waiting (qga_finish collects it) */
	loop_cond_fn stop; /* qga_execute_until: stop waiting when this holds */
	void *stop_ctx;
	json_int_t sync_id; /* the id of our latest guest-sync-delimited */
};

static const char *qga_on_garbage(void *ctx)
{
	struct qga *g = ctx;

	/* Before sync, stale bytes from an earlier client are expected. */
	if (!g->synced)
		return "not JSON: dropped while syncing";
	if (!g->waiting)
		return "not JSON: ignored";
	g->c.proto_err = -EPROTO;
	g->synced = false;
	return "not JSON: fails the waiting request";
}

static const char *qga_on_sync_reply(struct qga *g, json_t *msg)
{
	json_t *ret = json_object_get(msg, "return");

	if (!json_is_integer(ret) || json_integer_value(ret) != g->sync_id)
		return "dropped: stale reply while syncing";
	g->synced = true;
	return NULL;
}

static const char *qga_on_reply(struct qga *g, json_t *msg)
{
	if (!g->synced)
		return qga_on_sync_reply(g, msg);
	if (!g->waiting || g->c.reply)
		return "dropped: no request outstanding";
	g->c.reply = json_incref(msg);
	return NULL;
}

static const char *qga_on_msg(void *ctx, json_t *msg)
{
	if (json_object_get(msg, "return") || json_object_get(msg, "error"))
		return qga_on_reply(ctx, msg);
	return "dropped: not a reply";
}

static const struct jsonclient_ops qga_ops = {
	.on_msg = qga_on_msg,
	.on_garbage = qga_on_garbage,
};

struct qga *qga_new(struct loop *l, int fd, FILE *log)
{
	struct qga *g = xcalloc(1, sizeof(*g));

	/* reset_on_ff: 0xFF ends whatever partial reply an earlier client left. */
	if (jsonclient_init(&g->c, l, fd, log, true, &qga_ops, g) < 0) {
		free(g);
		return NULL;
	}
	/* Ids unlikely to match what an earlier client left in the channel. */
	g->sync_id = (json_int_t)(getpid() % 100000) * 1000000 + now_ms() % 1000000;
	return g;
}

void qga_free(struct qga *g)
{
	if (!g)
		return;
	jsonclient_release(&g->c);
	free(g);
}

static bool qga_done_sync(void *ctx)
{
	struct qga *g = ctx;

	return g->synced;
}

static bool qga_done_or_stop(void *ctx)
{
	struct qga *g = ctx;

	return g->c.reply || (g->stop && g->stop(g->stop_ctx));
}

/* One guest-sync-delimited, led by 0xFF so that the agent, too, drops
 * whatever partial request an earlier client left in its parser. */
static int qga_send_sync(struct qga *g, int64_t deadline)
{
	json_t *msg;
	int rc;

	g->sync_id++;
	msg = json_pack("{s:s, s:{s:I}}", "execute", "guest-sync-delimited", "arguments", "id",
			g->sync_id);
	if (!msg)
		return -ENOMEM;
	rc = jsonclient_send(&g->c, "\xff", msg, deadline);
	json_decref(msg);
	return rc;
}

/* Only the reply to the latest sync counts, so an agent slower than
 * retry_ms would never catch up: the interval doubles after each miss, up
 * to QGA_SYNC_BACKOFF_MAX times retry_ms. */
int qga_sync(struct qga *g, int retry_ms, int64_t deadline)
{
	int64_t wait = retry_ms > 0 ? retry_ms : 1;
	int64_t max_wait = wait * QGA_SYNC_BACKOFF_MAX;
	int rc;

	g->synced = false;
	json_decref(g->c.reply);
	g->c.reply = NULL;
	do {
		int64_t until = loop_now(g->c.loop) + wait;

		if (g->c.err)
			return g->c.err;
		rc = qga_send_sync(g, deadline);
		if (rc < 0)
			return rc;
		rc = jsonclient_wait(&g->c, qga_done_sync, g, until < deadline ? until : deadline);
		wait = 2 * wait < max_wait ? 2 * wait : max_wait;
	} while (rc == -ETIMEDOUT && loop_now(g->c.loop) < deadline);
	return rc;
}

/* Wait for the reply to the outstanding request; a stop (g->stop) leaves it
 * held for qga_finish. */
static int qga_wait_reply(struct qga *g, json_t **ret, char **errmsg, int64_t deadline)
{
	int rc;

	g->held = false;
	rc = jsonclient_wait(&g->c, qga_done_or_stop, g, deadline);
	if (rc == 0 && !g->c.reply) {
		g->held = true; /* stopped first: the reply is still to come */
		return -EINPROGRESS;
	}
	g->waiting = false;
	if (rc == 0)
		rc = jsonclient_take_reply(&g->c, ret, errmsg);
	else
		g->synced = false; /* its reply may still come: resync next time */
	return rc;
}

int qga_execute_until(struct qga *g, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		      int64_t deadline, loop_cond_fn stop, void *stop_ctx)
{
	json_t *msg = NULL;
	int rc;

	if (g->held)
		return -EBUSY;
	rc = jsonclient_begin(&g->c, ret, errmsg);
	if (rc < 0)
		return rc;
	if (!g->synced) {
		rc = qga_sync(g, QGA_RESYNC_RETRY_MS, deadline);
		if (rc < 0)
			return rc;
	}
	msg = json_pack("{s:s}", "execute", cmd);
	if (!msg)
		return -EINVAL;
	if (args)
		json_object_set(msg, "arguments", args);
	rc = jsonclient_send(&g->c, NULL, msg, deadline);
	if (rc < 0)
		goto out;
	g->waiting = true;
	g->stop = stop;
	g->stop_ctx = stop_ctx;
	rc = qga_wait_reply(g, ret, errmsg, deadline);
	g->stop = NULL;
out:
	json_decref(msg);
	return rc;
}

int qga_execute(struct qga *g, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		int64_t deadline)
{
	return qga_execute_until(g, cmd, args, ret, errmsg, deadline, NULL, NULL);
}

int qga_finish(struct qga *g, json_t **ret, char **errmsg, int64_t deadline)
{
	int rc = jsonclient_begin(&g->c, ret, errmsg);

	if (rc < 0)
		return rc;
	if (!g->held)
		return -EINVAL;
	rc = qga_wait_reply(g, ret, errmsg, deadline);
	g->held = false;
	return rc;
}

/* Decode in (NULL: empty) into a malloc'd, NUL-terminated buffer, with
 * nettle's decoder: whitespace is skipped, the padding checked. 0 or
 * -EPROTO. */
static int qga_base64_decode(const char *in, char **out, size_t *out_len)
{
	size_t n = in ? strlen(in) : 0, len = BASE64_DECODE_LENGTH(n);
	struct base64_decode_ctx ctx;
	uint8_t *buf = xcalloc(1, len + 1);

	base64_decode_init(&ctx);
	if (!base64_decode_update(&ctx, &len, buf, n, in ? in : "") || !base64_decode_final(&ctx)) {
		free(buf);
		return -EPROTO;
	}
	buf[len] = '\0';
	*out = (char *)buf;
	*out_len = len;
	return 0;
}

static json_t *qga_exec_args(const char *cmd, const char *const *env)
{
	json_t *args = json_pack("{s:s, s:[s, s], s:b}", "path", "/bin/sh", "arg", "-c", cmd,
				 "capture-output", 1);
	json_t *arr;

	/* The agent passes env as the whole environment, not additions. */
	if (!args || !env)
		return args;
	arr = json_array();
	for (; *env; env++)
		json_array_append_new(arr, json_string(*env));
	json_object_set_new(args, "env", arr);
	return args;
}

static int qga_exec_decode(const json_t *st, struct qga_exec_result *res)
{
	json_t *sig = json_object_get(st, "signal");
	int rc;

	res->exit_code = (int)json_integer_value(json_object_get(st, "exitcode"));
	if (json_is_integer(sig)) {
		res->signal = (int)json_integer_value(sig);
		res->exit_code = -1;
	}
	res->out_truncated = json_is_true(json_object_get(st, "out-truncated"));
	res->err_truncated = json_is_true(json_object_get(st, "err-truncated"));
	rc = qga_base64_decode(json_string_value(json_object_get(st, "out-data")), &res->out,
			       &res->out_len);
	if (rc < 0)
		return rc;
	return qga_base64_decode(json_string_value(json_object_get(st, "err-data")), &res->err,
				 &res->err_len);
}

/* Ask guest-exec-status until the process exited. Between polls the loop
 * keeps dispatching, so the console is read while the command runs. */
static int qga_exec_poll(struct qga *g, json_int_t pid, struct qga_exec_result *res,
			 int64_t deadline)
{
	json_t *args = json_pack("{s:I}", "pid", pid);
	int delay = QGA_POLL_FIRST_MS;
	int rc;

	for (;;) {
		json_t *st = NULL;
		int64_t next;

		rc = qga_execute(g, "guest-exec-status", args, &st, &res->err, deadline);
		if (rc == 0 && json_is_true(json_object_get(st, "exited")))
			rc = qga_exec_decode(st, res);
		else if (rc == 0)
			rc = 1;
		json_decref(st);
		if (rc <= 0)
			break;
		next = loop_now(g->c.loop) + delay;
		rc = loop_run_until(g->c.loop, NULL, NULL, next < deadline ? next : deadline);
		if (rc == 0 && loop_now(g->c.loop) >= deadline)
			rc = -ETIMEDOUT;
		if (rc < 0)
			break;
		delay = delay * 3 / 2 < QGA_POLL_MAX_MS ? delay * 3 / 2 : QGA_POLL_MAX_MS;
	}
	json_decref(args);
	return rc;
}

static int qga_exec_pid(json_t *ret, int rc, long long *pid)
{
	json_t *p = json_object_get(ret, "pid");

	if (!rc && !json_is_integer(p))
		rc = -EPROTO;
	if (!rc)
		*pid = json_integer_value(p);
	json_decref(ret);
	return rc;
}

int qga_exec_start_until(struct qga *g, const char *cmd, const char *const *env, long long *pid,
			 char **errmsg, int64_t deadline, loop_cond_fn stop, void *stop_ctx)
{
	json_t *args = qga_exec_args(cmd, env);
	json_t *ret = NULL;
	int rc;

	if (!args)
		return -EINVAL;
	rc = qga_execute_until(g, "guest-exec", args, &ret, errmsg, deadline, stop, stop_ctx);
	json_decref(args);
	return rc == -EINPROGRESS ? rc : qga_exec_pid(ret, rc, pid);
}

int qga_exec_start(struct qga *g, const char *cmd, const char *const *env, long long *pid,
		   char **errmsg, int64_t deadline)
{
	return qga_exec_start_until(g, cmd, env, pid, errmsg, deadline, NULL, NULL);
}

int qga_exec_start_finish(struct qga *g, long long *pid, char **errmsg, int64_t deadline)
{
	json_t *ret = NULL;
	int rc = qga_finish(g, &ret, errmsg, deadline);

	return qga_exec_pid(ret, rc, pid);
}

int qga_exec_wait(struct qga *g, long long pid, struct qga_exec_result *res, int64_t deadline)
{
	int rc;

	memset(res, 0, sizeof(*res));
	rc = qga_exec_poll(g, pid, res, deadline);
	if (rc == -EREMOTEIO && res->err)
		res->err_len = strlen(res->err);
	else if (rc < 0)
		qga_exec_result_free(res);
	return rc;
}

int qga_exec(struct qga *g, const char *cmd, const char *const *env, struct qga_exec_result *res,
	     int64_t deadline)
{
	long long pid;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = qga_exec_start(g, cmd, env, &pid, &res->err, deadline);
	if (rc == -EREMOTEIO && res->err)
		res->err_len = strlen(res->err);
	if (rc)
		return rc;
	return qga_exec_wait(g, pid, res, deadline);
}

void qga_exec_result_free(struct qga_exec_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}
