#include "jsonclient.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct jsonclient_waiter {
	struct jsonclient *c;
	loop_cond_fn done;
	void *ctx;
};

void jsonclient_log(struct jsonclient *c, const char *dir, const json_t *msg, const char *note)
{
	jsonstream_log(c->log, loop_now(c->loop), dir, msg, NULL, note);
}

static void jsonclient_on_line(void *ctx, char *line, size_t len)
{
	struct jsonclient *c = ctx;
	bool empty = false;
	json_t *msg = line ? jsonstream_parse(line, len, &empty) : NULL;
	const char *note;

	if (msg) {
		note = c->ops->on_msg(c->ctx, msg);
		jsonclient_log(c, "in", msg, note);
		json_decref(msg);
	} else if (!empty) {
		note = c->ops->on_garbage(c->ctx);
		jsonstream_log(c->log, loop_now(c->loop), "in", NULL,
			       line ? line : "(over-long line)", note);
	}
}

static int jsonclient_on_read(void *ctx, int fd)
{
	struct jsonclient *c = ctx;
	int ret = jsonstream_read(&c->js, fd, jsonclient_on_line, c);

	if (ret < 0)
		c->err = ret;
	return ret;
}

int jsonclient_init(struct jsonclient *c, struct loop *l, int fd, FILE *log, bool reset_on_ff,
		    const struct jsonclient_ops *ops, void *ctx)
{
	int flags = fcntl(fd, F_GETFL);
	int rc;

	*c = (struct jsonclient){ .loop = l, .fd = fd, .log = log, .ops = ops, .ctx = ctx };
	jsonstream_init(&c->js, reset_on_ff);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		rc = -errno;
		goto err_close;
	}
	rc = loop_add(l, fd, jsonclient_on_read, c);
	if (rc < 0)
		goto err_close;
	return 0;

err_close:
	close(fd);
	c->fd = -1;
	return rc;
}

void jsonclient_release(struct jsonclient *c)
{
	loop_del(c->loop, c->fd);
	close(c->fd);
	jsonstream_release(&c->js);
	json_decref(c->reply);
	c->reply = NULL;
}

int jsonclient_send(struct jsonclient *c, const char *prefix, const json_t *msg, int64_t deadline)
{
	jsonclient_log(c, "out", msg, NULL);
	return jsonstream_send(c->fd, prefix, msg, deadline - loop_now(c->loop));
}

int jsonclient_begin(struct jsonclient *c, json_t **ret, char **errmsg)
{
	if (ret)
		*ret = NULL;
	if (errmsg)
		*errmsg = NULL;
	return c->err;
}

static bool jsonclient_wait_over(void *ctx)
{
	struct jsonclient_waiter *w = ctx;

	return w->done(w->ctx) || w->c->err || w->c->proto_err;
}

int jsonclient_wait(struct jsonclient *c, loop_cond_fn done, void *ctx, int64_t deadline)
{
	struct jsonclient_waiter w = { .c = c, .done = done, .ctx = ctx };
	int rc;

	c->proto_err = 0;
	rc = loop_run_until(c->loop, jsonclient_wait_over, &w, deadline);
	if (rc == -ECANCELED)
		return rc;
	if (done(ctx))
		return 0;
	if (c->proto_err) {
		rc = c->proto_err;
		c->proto_err = 0;
		return rc;
	}
	return c->err ? c->err : rc;
}

int jsonclient_take_reply(struct jsonclient *c, json_t **ret, char **errmsg)
{
	json_t *r = c->reply;
	json_t *e = json_object_get(r, "error");
	int rc = 0;

	c->reply = NULL;
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
