#include "qmp.h"

#include "jsonstream.h"
#include "loop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Events nobody waits for (BALLOON_CHANGE, RTC_CHANGE...) must not grow
 * without bound: past this many the oldest is dropped. */
#define QMP_MAX_EVENTS 4096

enum qmp_kind { QMP_GREETING, QMP_EVENT, QMP_REPLY, QMP_UNKNOWN };

struct qmp {
	struct loop *loop;
	int fd;
	FILE *log;
	struct jsonstream js;
	bool greeted;
	bool waiting;  /* a call is waiting: garbage fails it */
	int err;       /* sticky: -EPIPE once the peer hung up */
	int proto_err; /* -EPROTO for the waiting call */
	json_int_t next_id;
	json_int_t want_id; /* id of the outstanding command; 0: none */
	json_t *reply;	    /* its reply, once it is here */
	struct qmp_event **events;
	size_t nevents, cap;
};

/* What a wait is for; the loop's cond and the result check share it. */
struct qmp_wait {
	struct qmp *q;
	const char *event; /* qmp_wait_event: the name, NULL for any */
	bool (*have)(struct qmp_wait *w);
};

void qmp_event_free(struct qmp_event *ev)
{
	if (!ev)
		return;
	free(ev->name);
	json_decref(ev->data);
	free(ev);
}

static void qmp_log(struct qmp *q, const char *dir, const json_t *msg, const char *note)
{
	jsonstream_log(q->log, loop_now(q->loop), dir, msg, NULL, note);
}

static enum qmp_kind qmp_classify(const json_t *msg)
{
	if (json_object_get(msg, "QMP"))
		return QMP_GREETING;
	if (json_is_string(json_object_get(msg, "event")))
		return QMP_EVENT;
	if (json_object_get(msg, "return") || json_object_get(msg, "error"))
		return QMP_REPLY;
	return QMP_UNKNOWN;
}

static const char *qmp_on_greeting(struct qmp *q, json_t *msg)
{
	(void)msg;
	if (q->greeted)
		return "dropped: second greeting";
	q->greeted = true;
	return NULL;
}

static const char *qmp_on_event(struct qmp *q, json_t *msg)
{
	struct qmp_event *ev = xcalloc(1, sizeof(*ev));
	const char *note = NULL;

	ev->name = xstrdup(json_string_value(json_object_get(msg, "event")));
	ev->data = json_incref(json_object_get(msg, "data"));
	ev->host_ms = loop_now(q->loop);
	if (q->nevents == QMP_MAX_EVENTS) {
		qmp_event_free(q->events[0]);
		memmove(q->events, q->events + 1, --q->nevents * sizeof(*q->events));
		note = "queue full: oldest event dropped";
	}
	if (q->nevents == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 16;
		q->events = xrealloc(q->events, q->cap * sizeof(*q->events));
	}
	q->events[q->nevents++] = ev;
	return note;
}

/* Our commands always carry an id: anything else is a reply to a command
 * that timed out, or to one we never sent. */
static const char *qmp_on_reply(struct qmp *q, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");

	if (!q->want_id || !json_is_integer(id) || json_integer_value(id) != q->want_id)
		return "dropped: no command waits for this id";
	json_decref(q->reply);
	q->reply = json_incref(msg);
	return NULL;
}

static void qmp_on_garbage(struct qmp *q, const char *line)
{
	const char *note = "not JSON: ignored";

	/* Skipping it could leave a waiting call to time out on a reply that
	 * was mangled; failing fast says what really happened. */
	if (q->waiting) {
		q->proto_err = -EPROTO;
		note = "not JSON: fails the waiting call";
	}
	jsonstream_log(q->log, loop_now(q->loop), "in", NULL, line ? line : "(over-long line)",
		       note);
}

static void qmp_on_line(void *ctx, char *line, size_t len)
{
	struct qmp *q = ctx;
	const char *note;
	bool empty = false;
	json_t *msg = line ? jsonstream_parse(line, len, &empty) : NULL;

	if (!msg) {
		if (!empty)
			qmp_on_garbage(q, line);
		return;
	}
	switch (qmp_classify(msg)) {
	case QMP_GREETING:
		note = qmp_on_greeting(q, msg);
		break;
	case QMP_EVENT:
		note = qmp_on_event(q, msg);
		break;
	case QMP_REPLY:
		note = qmp_on_reply(q, msg);
		break;
	default:
		note = "dropped: not a QMP message";
	}
	qmp_log(q, "in", msg, note);
	json_decref(msg);
}

static int qmp_on_read(void *ctx, int fd)
{
	struct qmp *q = ctx;
	int ret = jsonstream_read(&q->js, fd, qmp_on_line, q);

	if (ret < 0)
		q->err = ret;
	return ret;
}

struct qmp *qmp_new(struct loop *l, int fd, FILE *log)
{
	struct qmp *q;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		goto err_close;
	q = xcalloc(1, sizeof(*q));
	q->loop = l;
	q->fd = fd;
	q->log = log;
	jsonstream_init(&q->js, false);
	if (loop_add(l, fd, qmp_on_read, q) < 0)
		goto err_free;
	return q;

err_free:
	free(q);
err_close:
	close(fd);
	return NULL;
}

void qmp_free(struct qmp *q)
{
	if (!q)
		return;
	loop_del(q->loop, q->fd);
	close(q->fd);
	jsonstream_release(&q->js);
	json_decref(q->reply);
	for (size_t i = 0; i < q->nevents; i++)
		qmp_event_free(q->events[i]);
	free(q->events);
	free(q);
}

static bool qmp_wait_done(void *ctx)
{
	struct qmp_wait *w = ctx;

	return w->have(w) || w->q->err || w->q->proto_err;
}

/* 0 once w->have() holds; else why not: -ECANCELED, -EPROTO, -EPIPE or
 * -ETIMEDOUT, in that order of precedence. */
static int qmp_wait(struct qmp_wait *w, int64_t deadline)
{
	struct qmp *q = w->q;
	int rc;

	q->waiting = true;
	q->proto_err = 0;
	rc = loop_run_until(q->loop, qmp_wait_done, w, deadline);
	q->waiting = false;
	if (rc == -ECANCELED)
		return rc;
	if (w->have(w))
		return 0;
	if (q->proto_err) {
		rc = q->proto_err;
		q->proto_err = 0;
		return rc;
	}
	return q->err ? q->err : rc;
}

static int qmp_send(struct qmp *q, const json_t *msg, int64_t deadline)
{
	qmp_log(q, "out", msg, NULL);
	return jsonstream_send(q->fd, NULL, msg, deadline - loop_now(q->loop));
}

static bool qmp_have_greeting(struct qmp_wait *w)
{
	return w->q->greeted;
}

int qmp_handshake(struct qmp *q, int64_t deadline)
{
	struct qmp_wait w = {.q = q, .have = qmp_have_greeting};
	char *errmsg = NULL;
	int rc;

	rc = qmp_wait(&w, deadline);
	if (rc < 0)
		return rc;
	rc = qmp_execute(q, "qmp_capabilities", NULL, NULL, &errmsg, deadline);
	/* Refused capabilities: the peer is not the QMP we speak. */
	if (rc == -EREMOTEIO)
		rc = -EPROTO;
	free(errmsg);
	return rc;
}

static bool qmp_have_reply(struct qmp_wait *w)
{
	return w->q->reply != NULL;
}

static int qmp_take_reply(struct qmp *q, json_t **ret, char **errmsg)
{
	json_t *r = q->reply;
	json_t *e = json_object_get(r, "error");
	int rc = 0;

	q->reply = NULL;
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

int qmp_execute(struct qmp *q, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		int64_t deadline)
{
	struct qmp_wait w = {.q = q, .have = qmp_have_reply};
	json_int_t id = ++q->next_id;
	json_t *msg;
	int rc;

	if (ret)
		*ret = NULL;
	if (errmsg)
		*errmsg = NULL;
	if (q->err)
		return q->err;
	msg = json_pack("{s:s, s:I}", "execute", cmd, "id", id);
	if (!msg)
		return -EINVAL;
	if (args)
		json_object_set(msg, "arguments", args);
	json_decref(q->reply); /* left over from an aborted wait */
	q->reply = NULL;
	rc = qmp_send(q, msg, deadline);
	if (rc < 0)
		goto out;
	q->want_id = id;
	rc = qmp_wait(&w, deadline);
	q->want_id = 0;
	if (rc == 0)
		rc = qmp_take_reply(q, ret, errmsg);
out:
	json_decref(msg);
	return rc;
}

static ssize_t qmp_find_event(struct qmp *q, const char *name)
{
	for (size_t i = 0; i < q->nevents; i++)
		if (!name || !strcmp(q->events[i]->name, name))
			return (ssize_t)i;
	return -1;
}

static bool qmp_have_event(struct qmp_wait *w)
{
	return qmp_find_event(w->q, w->event) >= 0;
}

int qmp_wait_event(struct qmp *q, const char *name, struct qmp_event **ev, int64_t deadline)
{
	struct qmp_wait w = {.q = q, .event = name, .have = qmp_have_event};
	ssize_t i;
	int rc;

	*ev = NULL;
	/* Queued events are delivered even after the peer hung up: QEMU's
	 * last words (SHUTDOWN) come just before it closes the socket. */
	if (qmp_find_event(q, name) < 0) {
		rc = qmp_wait(&w, deadline);
		if (rc < 0)
			return rc;
	}
	i = qmp_find_event(q, name);
	*ev = q->events[i];
	memmove(q->events + i, q->events + i + 1, (q->nevents - (size_t)i - 1) * sizeof(*ev));
	q->nevents--;
	return 0;
}
