/* A scripted peer for the JSON protocol tests: a thread on the far end of a
 * socketpair that reads requests and answers them as the script says, so
 * the clients run against the same byte streams QEMU and qemu-ga produce.
 * A fake_peer_fixture adds what every client under test needs around it:
 * its loop and an in-memory transcript. */
#ifndef KTB_TEST_FAKE_PEER_H
#define KTB_TEST_FAKE_PEER_H

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

/*
 * Script steps, one string each, NULL-terminated:
 *   "<TEXT"  read one request line (0xFF bytes skipped); it must contain TEXT
 *   ">TEXT"  write TEXT; "$ID" is the id of the last request, "$0".."$9" the
 *            id of the Nth request ("id", or "arguments"."id" for syncs)
 *   "bTEXT"  like '>' but one byte at a time, with a pause between bytes
 *   "sN"     sleep N ms
 *   "*TEXT"  answer every further request with TEXT until the client closes
 *   "x"      close the socket (hang up)
 */
struct fake_peer {
	int fd;
	const char *const *script;
	pthread_t thread;
	long long ids[10]; /* of the first ten requests */
	long long last_id;
	int nreq;
	char error[256]; /* set when the client did not do what the script says */
};

#define FAKE_PEER_TIMEOUT_MS 5000

static inline void fake_peer_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* One line from the client, without "\n"; NULL on EOF or after 5 s. */
static inline char *fake_peer_read_line(struct fake_peer *p)
{
	size_t len = 0, cap = 256;
	char *line = malloc(cap);

	for (;;) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		char ch;

		if (poll(&pfd, 1, FAKE_PEER_TIMEOUT_MS) <= 0 || read(p->fd, &ch, 1) != 1) {
			free(line);
			return NULL;
		}
		if ((unsigned char)ch == 0xff)
			continue;
		if (ch == '\n')
			break;
		if (len + 2 > cap)
			line = realloc(line, cap *= 2);
		line[len++] = ch;
	}
	line[len] = '\0';
	return line;
}

static inline void fake_peer_note_id(struct fake_peer *p, const char *line)
{
	json_t *msg = json_loads(line, 0, NULL);
	json_t *id = json_object_get(msg, "id");

	if (!id)
		id = json_object_get(json_object_get(msg, "arguments"), "id");
	p->last_id = json_integer_value(id);
	if (p->nreq < 10)
		p->ids[p->nreq] = p->last_id;
	p->nreq++;
	json_decref(msg);
}

/* TEXT with $ID and $N replaced. */
static inline char *fake_peer_expand(const struct fake_peer *p, const char *text)
{
	char *out = malloc(strlen(text) * 4 + 64), *o = out;

	while (*text) {
		if (!strncmp(text, "$ID", 3)) {
			o += sprintf(o, "%lld", p->last_id);
			text += 3;
		} else if (text[0] == '$' && text[1] >= '0' && text[1] <= '9') {
			o += sprintf(o, "%lld", p->ids[text[1] - '0']);
			text += 2;
		} else {
			*o++ = *text++;
		}
	}
	*o = '\0';
	return out;
}

static inline void fake_peer_write(struct fake_peer *p, const char *text, bool bytewise)
{
	char *s = fake_peer_expand(p, text);
	size_t len = strlen(s);

	for (size_t off = 0; off < len;) {
		size_t n = bytewise ? 1 : len - off;
		ssize_t w = send(p->fd, s + off, n, MSG_NOSIGNAL);

		if (w <= 0)
			break;
		off += (size_t)w;
		if (bytewise)
			fake_peer_sleep_ms(1);
	}
	free(s);
}

static inline bool fake_peer_expect(struct fake_peer *p, const char *want)
{
	char *line = fake_peer_read_line(p);

	if (!line) {
		snprintf(p->error, sizeof(p->error), "expected a request with '%s', got none",
			 want);
		return false;
	}
	fake_peer_note_id(p, line);
	if (!strstr(line, want))
		snprintf(p->error, sizeof(p->error), "expected '%s' in '%.180s'", want, line);
	free(line);
	return !p->error[0];
}

static inline void fake_peer_answer_all(struct fake_peer *p, const char *text)
{
	char *line;

	while ((line = fake_peer_read_line(p))) {
		fake_peer_note_id(p, line);
		fake_peer_write(p, text, false);
		free(line);
	}
}

static inline void *fake_peer_main(void *arg)
{
	struct fake_peer *p = arg;

	for (const char *const *s = p->script; *s && !p->error[0]; s++) {
		const char *text = *s + 1;

		switch (**s) {
		case '<':
			fake_peer_expect(p, text);
			break;
		case '>':
		case 'b':
			fake_peer_write(p, text, **s == 'b');
			break;
		case 's':
			fake_peer_sleep_ms(atol(text));
			break;
		case '*':
			fake_peer_answer_all(p, text);
			break;
		case 'x':
			close(p->fd);
			p->fd = -1;
			break;
		}
	}
	return NULL;
}

/* Returns the client's end of a new socketpair; the peer runs the script on
 * the other end. */
static inline int fake_peer_start(struct fake_peer *p, const char *const *script)
{
	int sv[2];

	memset(p, 0, sizeof(*p));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	p->fd = sv[1];
	p->script = script;
	if (pthread_create(&p->thread, NULL, fake_peer_main, p) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -EAGAIN;
	}
	return sv[0];
}

/* Wait for the script to end; its error ("" when the client behaved). */
static inline const char *fake_peer_join(struct fake_peer *p)
{
	pthread_join(p->thread, NULL);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	return p->error;
}

struct fake_peer_fixture {
	struct loop *loop;
	struct fake_peer peer;
	char *log_buf; /* the transcript; fflush(log) before reading it */
	size_t log_size;
	FILE *log;
};

/* Starts the peer on script, a loop and a transcript. Returns the client's
 * fd (or -errno) for the test to hand to its client. */
static inline int fake_peer_fixture_start(struct fake_peer_fixture *f, const char *const *script)
{
	int fd = fake_peer_start(&f->peer, script);

	f->loop = loop_new();
	f->log = open_memstream(&f->log_buf, &f->log_size);
	return fd;
}

/* Call once the client is freed: a peer answering "*" runs until the
 * hang-up. Returns the peer's error ("" when the client behaved). */
static inline const char *fake_peer_fixture_end(struct fake_peer_fixture *f)
{
	const char *error = fake_peer_join(&f->peer);

	loop_free(f->loop);
	fclose(f->log);
	free(f->log_buf);
	return error;
}

#endif
