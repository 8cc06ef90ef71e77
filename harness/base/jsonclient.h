/* What the QMP and guest agent clients share under their protocols: the fd
 * on the loop, a sticky hang-up error, one reply slot, the transcript, and
 * waits that end early on a hang-up or on garbage. The protocol sees only
 * whole JSON objects (and garbage) through its ops. */
#ifndef KTB_JSONCLIENT_H
#define KTB_JSONCLIENT_H

#include "jsonstream.h"
#include "loop.h"

/* Each returns the note for the transcript (NULL: none). on_garbage is told
 * of a line that was not a JSON object; it decides whether that fails the
 * waiting call (by setting proto_err). */
struct jsonclient_ops {
	const char *(*on_msg)(void *ctx, json_t *msg);
	const char *(*on_garbage)(void *ctx);
};

struct jsonclient {
	struct loop *loop;
	int fd;
	FILE *log;
	struct jsonstream js;
	const struct jsonclient_ops *ops;
	void *ctx;     /* the protocol's state, handed to ops */
	int err;       /* sticky: -EPIPE once the peer hung up */
	int proto_err; /* -EPROTO for the waiting call */
	json_t *reply; /* the reply a call waits for, once it is here */
};

/* Takes ownership of fd, closing it on failure too. 0 or -errno. */
int jsonclient_init(struct jsonclient *c, struct loop *l, int fd, FILE *log, bool reset_on_ff,
		    const struct jsonclient_ops *ops, void *ctx);
void jsonclient_release(struct jsonclient *c);

void jsonclient_log(struct jsonclient *c, const char *dir, const json_t *msg, const char *note);
/* Logs msg as "out", then writes it (prefix may be NULL) by the deadline. */
int jsonclient_send(struct jsonclient *c, const char *prefix, const json_t *msg, int64_t deadline);

/* Clears a call's out-parameters; then the sticky error, so that nothing is
 * sent to a peer that hung up. */
int jsonclient_begin(struct jsonclient *c, json_t **ret, char **errmsg);
/* 0 once done(ctx) holds; else why not: -ECANCELED, -EPROTO, -EPIPE or
 * -ETIMEDOUT, in that order of precedence. */
int jsonclient_wait(struct jsonclient *c, loop_cond_fn done, void *ctx, int64_t deadline);
/* Consumes c->reply: *ret gets "return" (new reference), or an "error"
 * gives -EREMOTEIO with *errmsg (malloc'd) from its desc. */
int jsonclient_take_reply(struct jsonclient *c, json_t **ret, char **errmsg);

#endif
