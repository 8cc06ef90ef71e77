/* A peer for the JSON protocol targets (QMP, guest agent) that plays the
 * fuzz input back to the client under test over a socketpair, in turns
 * (the parts between 0x1e bytes): the next turn answers each request the
 * client sends, "$ID" in it replaced by that request's id (so that inputs
 * can answer requests whose ids are not known in advance: the agent's sync
 * ids come from the clock), and comes unasked when the client has waited
 * FUZZ_PEER_IDLE passes of its loop for more (events, late replies). A turn
 * goes only once the client has read the one before. After the last turn
 * (at most FUZZ_PEER_TURNS) the peer hangs up, which ends every wait.
 * Everything runs in the one thread: a pipe that is always readable makes
 * the loop call the peer on every pass, and the loop's clock is fake (a
 * tick a reading), so waits take no real time and every run of an input
 * is the same. */
#ifndef KTB_FUZZ_PEER_H
#define KTB_FUZZ_PEER_H

#include <fcntl.h>
#include <jansson.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "fuzz_util.h"
#include "loop.h"

/* The fake clock's tick: each reading of the loop's clock (a pass of the
 * loop reads it once) moves it this far. */
#define FUZZ_PEER_TICK_MS 8
/* Passes that make more than the longest wait of the clients without a
 * condition (the agent's guest-exec-status polling: 200 ms), so that
 * those run out before a turn comes unasked. */
#define FUZZ_PEER_IDLE 32
#define FUZZ_PEER_TURNS 64
/* Longer than FUZZ_PEER_TURNS turns that each come unasked: the hang-up,
 * not the deadline, ends the waits. */
#define FUZZ_PEER_DEADLINE_MS (4 * FUZZ_PEER_IDLE * FUZZ_PEER_TURNS * FUZZ_PEER_TICK_MS)

struct fuzz_peer {
	struct loop *loop;
	int fd;	     /* the peer's end */
	int kick[2]; /* a pipe holding one byte: readable on every pass */
	struct fuzz_parts turns;
	char req[4096]; /* the request line being read */
	size_t req_len;
	char *out; /* the turn being sent, $ID replaced */
	size_t out_len, out_off;
	long long last_id;
	unsigned requests, answered; /* requests read, and when the last turn went */
	unsigned idle;		     /* passes since then */
	unsigned turns_sent;
	bool hung_up;
};

static int64_t fuzz_peer_clock_ms;

static inline int64_t fuzz_peer_clock(void)
{
	return fuzz_peer_clock_ms += FUZZ_PEER_TICK_MS;
}

/* The id of a request line: "id", or the guest agent's sync's
 * "arguments"."id". */
static inline void fuzz_peer_note(struct fuzz_peer *p, const char *line, size_t len)
{
	json_t *msg = json_loadb(line, len, 0, NULL);
	json_t *id = json_object_get(msg, "id");

	if (!id)
		id = json_object_get(json_object_get(msg, "arguments"), "id");
	if (json_is_integer(id))
		p->last_id = json_integer_value(id);
	p->requests++;
	json_decref(msg);
}

/* Whatever the client sent so far: its requests' ids. */
static inline void fuzz_peer_drain(struct fuzz_peer *p)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(p->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)buf[i];

			if (ch == 0xff)
				continue;
			if (ch == '\n') {
				fuzz_peer_note(p, p->req, p->req_len);
				p->req_len = 0;
			} else if (p->req_len < sizeof(p->req)) {
				p->req[p->req_len++] = (char)ch;
			}
		}
	}
}

/* The turn, $ID replaced, as the next thing to send. */
static inline void fuzz_peer_take(struct fuzz_peer *p, const uint8_t *turn, size_t len)
{
	char id[32];
	size_t o = 0, idlen = (size_t)snprintf(id, sizeof(id), "%lld", p->last_id);

	p->out = realloc(p->out, len * 8 + 1);
	FUZZ_CHECK(p->out);
	for (size_t i = 0; i < len; i++) {
		if (i + 3 <= len && !memcmp(turn + i, "$ID", 3)) {
			memcpy(p->out + o, id, idlen);
			o += idlen;
			i += 2;
		} else {
			p->out[o++] = (char)turn[i];
		}
	}
	p->out_len = o;
	p->out_off = 0;
}

/* As much of the turn as the socket takes now (a big one takes passes). */
static inline void fuzz_peer_send(struct fuzz_peer *p)
{
	ssize_t n =
	    send(p->fd, p->out + p->out_off, p->out_len - p->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);

	FUZZ_CHECK(n > 0 || (n < 0 && errno == EAGAIN));
	if (n > 0)
		p->out_off += (size_t)n;
}

/* The loop's callback on the kick pipe: one turn, or the hang-up. */
static inline int fuzz_peer_pass(void *ctx, int fd)
{
	struct fuzz_peer *p = ctx;
	const uint8_t *turn;
	size_t len;
	int unread = 0;

	(void)fd;
	fuzz_peer_drain(p);
	/* the client has yet to read (and act on) what it was sent */
	FUZZ_CHECK(ioctl(p->fd, SIOCOUTQ, &unread) == 0);
	if (p->hung_up || unread)
		return 0;
	if (p->out_off < p->out_len) {
		fuzz_peer_send(p);
		return 0;
	}
	if (p->requests == p->answered && ++p->idle < FUZZ_PEER_IDLE)
		return 0;
	p->answered = p->requests;
	p->idle = 0;
	/* an empty turn would leave the client nothing to read */
	while (p->turns_sent < FUZZ_PEER_TURNS && fuzz_parts_next(&p->turns, &turn, &len)) {
		if (len) {
			p->turns_sent++;
			fuzz_peer_take(p, turn, len);
			fuzz_peer_send(p);
			return 0;
		}
	}
	shutdown(p->fd, SHUT_WR);
	p->hung_up = true;
	return 0;
}

/* The client's end of the socketpair, for its _new. */
static inline int fuzz_peer_start(struct fuzz_peer *p, const uint8_t *data, size_t size)
{
	int sv[2];

	memset(p, 0, sizeof(*p));
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	FUZZ_CHECK(pipe2(p->kick, O_CLOEXEC) == 0 && write(p->kick[1], "k", 1) == 1);
	FUZZ_CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
	p->fd = sv[1];
	fuzz_parts_init(&p->turns, data, size);
	p->loop = loop_new();
	loop_set_clock(p->loop, fuzz_peer_clock);
	FUZZ_CHECK(loop_add(p->loop, p->kick[0], fuzz_peer_pass, p) == 0);
	return sv[0];
}

/* Call once the client is freed. */
static inline void fuzz_peer_end(struct fuzz_peer *p)
{
	loop_del(p->loop, p->kick[0]);
	loop_free(p->loop);
	close(p->kick[0]);
	close(p->kick[1]);
	close(p->fd);
	free(p->out);
}

#endif
