#include "qmp.h"

#include "jsonclient.h"
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Events nobody waits for (BALLOON_CHANGE, RTC_CHANGE...) must not grow
 * without bound: past this many the oldest is dropped. */
#define QMP_MAX_EVENTS 4096

enum qmp_kind { QMP_GREETING, QMP_EVENT, QMP_REPLY, QMP_UNKNOWN };

struct qmp {
	struct jsonclient c; /* c.reply: the outstanding command's reply */
	bool greeted;
	bool waiting; /* a call is waiting: garbage fails it */
	json_int_t next_id;
	json_int_t want_id; /* id of the outstanding command; 0: none */
	struct qmp_event **events;
	size_t nevents, cap;
	void (*on_event)(void *ctx, const struct qmp_event *ev);
	void *on_event_ctx;
};

/* What a wait is for; the loop's cond and the result check share it. */
struct qmp_wait {
	struct qmp *q;
	const char *event; /* qmp_wait_event: the name, NULL for any */
	loop_cond_fn have; /* called with the qmp_wait */
};

void qmp_event_free(struct qmp_event *ev)
{
	if (!ev)
		return;
	free(ev->name);
	json_decref(ev->data);
	free(ev);
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
	ev->host_ms = loop_now(q->c.loop);
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
	if (q->on_event)
		q->on_event(q->on_event_ctx, ev);
	return note;
}

/* Our commands always carry an id: anything else is a reply to a command
 * that timed out, or to one we never sent. */
static const char *qmp_on_reply(struct qmp *q, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");

	if (!q->want_id || !json_is_integer(id) || json_integer_value(id) != q->want_id)
		return "dropped: no command waits for this id";
	json_decref(q->c.reply);
	q->c.reply = json_incref(msg);
	return NULL;
}

static const char *qmp_on_garbage(void *ctx)
{
	struct qmp *q = ctx;

	/* Skipping it could leave a waiting call to time out on a reply that
	 * was mangled; failing fast says what really happened. */
	if (!q->waiting)
		return "not JSON: ignored";
	q->c.proto_err = -EPROTO;
	return "not JSON: fails the waiting call";
}

static const char *qmp_on_msg(void *ctx, json_t *msg)
{
	struct qmp *q = ctx;

	switch (qmp_classify(msg)) {
	case QMP_GREETING:
		return qmp_on_greeting(q, msg);
	case QMP_EVENT:
		return qmp_on_event(q, msg);
	case QMP_REPLY:
		return qmp_on_reply(q, msg);
	default:
		return "dropped: not a QMP message";
	}
}

static const struct jsonclient_ops qmp_ops = {
	.on_msg = qmp_on_msg,
	.on_garbage = qmp_on_garbage,
};

struct qmp *qmp_new(struct loop *l, int fd, FILE *log)
{
	struct qmp *q = xcalloc(1, sizeof(*q));

	if (jsonclient_init(&q->c, l, fd, log, false, &qmp_ops, q) < 0) {
		free(q);
		return NULL;
	}
	return q;
}

void qmp_free(struct qmp *q)
{
	if (!q)
		return;
	jsonclient_release(&q->c);
	for (size_t i = 0; i < q->nevents; i++)
		qmp_event_free(q->events[i]);
	free(q->events);
	free(q);
}

/* Every QMP wait, unlike the guest agent's sync, fails on garbage. */
static int qmp_wait(struct qmp_wait *w, int64_t deadline)
{
	int rc;

	w->q->waiting = true;
	rc = jsonclient_wait(&w->q->c, w->have, w, deadline);
	w->q->waiting = false;
	return rc;
}

static bool qmp_have_greeting(void *ctx)
{
	struct qmp_wait *w = ctx;

	return w->q->greeted;
}

int qmp_handshake(struct qmp *q, int64_t deadline)
{
	struct qmp_wait w = { .q = q, .have = qmp_have_greeting };
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

static bool qmp_have_reply(void *ctx)
{
	struct qmp_wait *w = ctx;

	return w->q->c.reply != NULL;
}

int qmp_execute(struct qmp *q, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		int64_t deadline)
{
	struct qmp_wait w = { .q = q, .have = qmp_have_reply };
	json_int_t id = ++q->next_id;
	json_t *msg;
	int rc;

	rc = jsonclient_begin(&q->c, ret, errmsg);
	if (rc < 0)
		return rc;
	msg = json_pack("{s:s, s:I}", "execute", cmd, "id", id);
	if (!msg)
		return -EINVAL;
	if (args)
		json_object_set(msg, "arguments", args);
	json_decref(q->c.reply); /* left over from an aborted wait */
	q->c.reply = NULL;
	rc = jsonclient_send(&q->c, NULL, msg, deadline);
	if (rc < 0)
		goto out;
	q->want_id = id;
	rc = qmp_wait(&w, deadline);
	q->want_id = 0;
	if (rc == 0)
		rc = jsonclient_take_reply(&q->c, ret, errmsg);
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

static bool qmp_have_event(void *ctx)
{
	struct qmp_wait *w = ctx;

	return qmp_find_event(w->q, w->event) >= 0;
}

void qmp_on_events(struct qmp *q, void (*fn)(void *ctx, const struct qmp_event *ev), void *ctx)
{
	q->on_event = fn;
	q->on_event_ctx = ctx;
}

bool qmp_has_event(struct qmp *q, const char *name)
{
	return qmp_find_event(q, name) >= 0;
}

int qmp_wait_event(struct qmp *q, const char *name, struct qmp_event **ev, int64_t deadline)
{
	struct qmp_wait w = { .q = q, .event = name, .have = qmp_have_event };
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
