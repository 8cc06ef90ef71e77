/* QMP client: greeting and capabilities handshake, commands with ids matched
 * to their replies, asynchronous events queued with host timestamps. Framing
 * is done over the loop's fd; every wait has an absolute deadline. Every
 * message sent and received can be logged as JSON lines (qmp.jsonl). */
#ifndef KTB_QMP_H
#define KTB_QMP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct loop;
struct qmp;

struct qmp_event {
	char *name;
	json_t *data;	 /* may be NULL */
	int64_t host_ms; /* loop clock when it arrived */
};

/* Takes ownership of fd (a connected stream socket). log may be NULL. */
struct qmp *qmp_new(struct loop *l, int fd, FILE *log);
void qmp_free(struct qmp *q);

/* Wait for the greeting and send qmp_capabilities. 0, -ETIMEDOUT, -EPROTO,
 * -EPIPE (peer hung up), -ECANCELED (loop aborted). */
int qmp_handshake(struct qmp *q, int64_t deadline);

/* Run a command. *ret gets the "return" value (new reference) on success.
 * A QMP error reply gives -EREMOTEIO with *errmsg (malloc'd) set to its desc.
 * args (may be NULL) is borrowed: the caller still owns its reference. */
int qmp_execute(struct qmp *q, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		int64_t deadline);

/* Take the oldest queued event named name (any name when NULL), waiting until
 * the deadline. The caller frees it with qmp_event_free. */
int qmp_wait_event(struct qmp *q, const char *name, struct qmp_event **ev, int64_t deadline);
void qmp_event_free(struct qmp_event *ev);
/* Whether an event named name is queued (nothing is taken, nothing waits). */
bool qmp_has_event(struct qmp *q, const char *name);
/* Called with each event as it arrives, after it is queued (NULL: none):
 * for events that must act at once, not when someone waits for them. */
void qmp_on_events(struct qmp *q, void (*fn)(void *ctx, const struct qmp_event *ev), void *ctx);

#endif
