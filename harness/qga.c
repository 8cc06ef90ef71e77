#include "qga.h"

#include "jsonstream.h"
#include "loop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* After a failed request the stream is out of step (a late reply is still
 * coming); the next request resyncs first, resending this often. */
#define QGA_RESYNC_RETRY_MS 500
#define QGA_SYNC_BACKOFF_MAX 8
/* guest-exec-status polling: quick for short commands, then backing off. */
#define QGA_POLL_FIRST_MS 20
#define QGA_POLL_MAX_MS 200

struct qga {
	struct loop *loop;
	int fd;
	FILE *log;
	struct jsonstream js;
	bool synced;	    /* replies now come in the order of our requests */
	bool waiting;	    /* a request is outstanding */
	int err;	    /* sticky: -EPIPE once the peer hung up */
	int proto_err;	    /* -EPROTO for the waiting request */
	json_int_t sync_id; /* the id of our latest guest-sync-delimited */
	json_t *reply;
};

static void qga_log(struct qga *g, const char *dir, const json_t *msg, const char *note)
{
	jsonstream_log(g->log, loop_now(g->loop), dir, msg, NULL, note);
}

static void qga_on_garbage(struct qga *g, const char *line)
{
	const char *note = "not JSON: ignored";

	/* Before sync, stale bytes from an earlier client are expected. */
	if (!g->synced) {
		note = "not JSON: dropped while syncing";
	} else if (g->waiting) {
		g->proto_err = -EPROTO;
		g->synced = false;
		note = "not JSON: fails the waiting request";
	}
	jsonstream_log(g->log, loop_now(g->loop), "in", NULL, line ? line : "(over-long line)",
		       note);
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
	if (!g->waiting || g->reply)
		return "dropped: no request outstanding";
	g->reply = json_incref(msg);
	return NULL;
}

static void qga_on_line(void *ctx, char *line, size_t len)
{
	struct qga *g = ctx;
	const char *note;
	bool empty = false;
	json_t *msg = line ? jsonstream_parse(line, len, &empty) : NULL;

	if (!msg) {
		if (!empty)
			qga_on_garbage(g, line);
		return;
	}
	if (json_object_get(msg, "return") || json_object_get(msg, "error"))
		note = qga_on_reply(g, msg);
	else
		note = "dropped: not a reply";
	qga_log(g, "in", msg, note);
	json_decref(msg);
}

static int qga_on_read(void *ctx, int fd)
{
	struct qga *g = ctx;
	int ret = jsonstream_read(&g->js, fd, qga_on_line, g);

	if (ret < 0)
		g->err = ret;
	return ret;
}

struct qga *qga_new(struct loop *l, int fd, FILE *log)
{
	struct qga *g;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		goto err_close;
	g = xcalloc(1, sizeof(*g));
	g->loop = l;
	g->fd = fd;
	g->log = log;
	/* Ids unlikely to match what an earlier client left in the channel. */
	g->sync_id = (json_int_t)(getpid() % 100000) * 1000000 + now_ms() % 1000000;
	jsonstream_init(&g->js, true);
	if (loop_add(l, fd, qga_on_read, g) < 0)
		goto err_free;
	return g;

err_free:
	free(g);
err_close:
	close(fd);
	return NULL;
}

void qga_free(struct qga *g)
{
	if (!g)
		return;
	loop_del(g->loop, g->fd);
	close(g->fd);
	jsonstream_release(&g->js);
	json_decref(g->reply);
	free(g);
}

static bool qga_synced(void *ctx)
{
	struct qga *g = ctx;

	return g->synced || g->err;
}

static bool qga_replied(void *ctx)
{
	struct qga *g = ctx;

	return g->reply || g->err || g->proto_err;
}

/* Like loop_run_until, but a hang-up or garbage ends the wait with its own
 * error; done() says whether what we waited for arrived. */
static int qga_wait(struct qga *g, loop_cond_fn cond, bool (*done)(struct qga *g), int64_t deadline)
{
	int rc;

	g->proto_err = 0;
	rc = loop_run_until(g->loop, cond, g, deadline);
	if (rc == -ECANCELED)
		return rc;
	if (done(g))
		return 0;
	if (g->proto_err) {
		rc = g->proto_err;
		g->proto_err = 0;
		return rc;
	}
	return g->err ? g->err : rc;
}

static bool qga_done_sync(struct qga *g)
{
	return g->synced;
}

static bool qga_done_reply(struct qga *g)
{
	return g->reply != NULL;
}

static int qga_send(struct qga *g, const char *prefix, const json_t *msg, int64_t deadline)
{
	qga_log(g, "out", msg, NULL);
	return jsonstream_send(g->fd, prefix, msg, deadline - loop_now(g->loop));
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
	rc = qga_send(g, "\xff", msg, deadline);
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
	json_decref(g->reply);
	g->reply = NULL;
	do {
		int64_t until = loop_now(g->loop) + wait;

		if (g->err)
			return g->err;
		rc = qga_send_sync(g, deadline);
		if (rc < 0)
			return rc;
		rc = qga_wait(g, qga_synced, qga_done_sync, until < deadline ? until : deadline);
		wait = 2 * wait < max_wait ? 2 * wait : max_wait;
	} while (rc == -ETIMEDOUT && loop_now(g->loop) < deadline);
	return rc;
}

static int qga_take_reply(struct qga *g, json_t **ret, char **errmsg)
{
	json_t *r = g->reply;
	json_t *e = json_object_get(r, "error");
	int rc = 0;

	g->reply = NULL;
	if (e) {
		const char *desc = json_string_value(json_object_get(e, "desc"));
		const char *cls = json_string_value(json_object_get(e, "class"));

		if (errmsg)
			*errmsg = xstrdup(desc ? desc : cls ? cls : "error without desc");
		rc = -EREMOTEIO;
	} else if (ret) {
		*ret = json_incref(json_object_get(r, "return"));
	}
	json_decref(r);
	return rc;
}

int qga_execute(struct qga *g, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		int64_t deadline)
{
	json_t *msg = NULL;
	int rc;

	if (ret)
		*ret = NULL;
	if (errmsg)
		*errmsg = NULL;
	if (g->err)
		return g->err;
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
	rc = qga_send(g, NULL, msg, deadline);
	if (rc < 0)
		goto out;
	g->waiting = true;
	rc = qga_wait(g, qga_replied, qga_done_reply, deadline);
	g->waiting = false;
	if (rc == 0)
		rc = qga_take_reply(g, ret, errmsg);
	else
		g->synced = false; /* its reply may still come: resync next time */
out:
	json_decref(msg);
	return rc;
}

static int qga_base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Decode in (NULL: empty) into a malloc'd, NUL-terminated buffer. Padding
 * ends the data; whitespace is skipped. 0 or -EPROTO. */
static int qga_base64_decode(const char *in, char **out, size_t *out_len)
{
	size_t n = in ? strlen(in) : 0, len = 0;
	char *buf = xcalloc(1, n / 4 * 3 + 4);
	unsigned int acc = 0, bits = 0;

	for (size_t i = 0; i < n && in[i] != '='; i++) {
		int v = qga_base64_value((unsigned char)in[i]);

		if (in[i] == '\n' || in[i] == '\r' || in[i] == ' ')
			continue;
		if (v < 0) {
			free(buf);
			return -EPROTO;
		}
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[len++] = (char)((acc >> bits) & 0xff);
			acc &= (1u << bits) - 1;
		}
	}
	buf[len] = '\0';
	*out = buf;
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
		next = loop_now(g->loop) + delay;
		rc = loop_run_until(g->loop, NULL, NULL, next < deadline ? next : deadline);
		if (rc == 0 && loop_now(g->loop) >= deadline)
			rc = -ETIMEDOUT;
		if (rc < 0)
			break;
		delay = delay * 3 / 2 < QGA_POLL_MAX_MS ? delay * 3 / 2 : QGA_POLL_MAX_MS;
	}
	json_decref(args);
	return rc;
}

int qga_exec(struct qga *g, const char *cmd, const char *const *env, struct qga_exec_result *res,
	     int64_t deadline)
{
	json_t *args = qga_exec_args(cmd, env);
	json_t *ret = NULL;
	json_t *pid;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!args)
		return -EINVAL;
	rc = qga_execute(g, "guest-exec", args, &ret, &res->err, deadline);
	if (rc < 0)
		goto out;
	pid = json_object_get(ret, "pid");
	rc = -EPROTO;
	if (json_is_integer(pid))
		rc = qga_exec_poll(g, json_integer_value(pid), res, deadline);
out:
	if (rc == -EREMOTEIO && res->err)
		res->err_len = strlen(res->err);
	else if (rc < 0)
		qga_exec_result_free(res);
	json_decref(ret);
	json_decref(args);
	return rc;
}

void qga_exec_result_free(struct qga_exec_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}
