#include "loop.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Longest single poll. The condition and the clock are re-read after each
 * one, so with the real clock this only bounds how stale a cond can get.
 * With a fake clock real time and loop time are unrelated: each poll then
 * waits at most LOOP_FAKE_SLICE_MS of real time before the fake clock is read
 * again, so a fake clock that advances on its own (per call, or from a test
 * thread) reaches any deadline after a bounded number of slices. */
#define LOOP_MAX_SLICE_MS 1000
#define LOOP_FAKE_SLICE_MS 10

struct loop_fd {
	int fd;
	loop_read_fn fn;
	void *ctx;
	bool dead; /* removed during dispatch; compacted before the next poll */
};

struct loop {
	struct loop_fd *fds;
	size_t nfds, cap;
	struct pollfd *pfds; /* scratch, sized like fds */
	loop_clock_fn clock;
	char *abort_reason;
};

struct loop *loop_new(void)
{
	struct loop *l = xcalloc(1, sizeof(*l));

	l->clock = now_ms;
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	free(l->fds);
	free(l->pfds);
	free(l->abort_reason);
	free(l);
}

void loop_set_clock(struct loop *l, loop_clock_fn clock)
{
	l->clock = clock ? clock : now_ms;
}

int64_t loop_now(struct loop *l)
{
	return l->clock();
}

static struct loop_fd *loop_find(struct loop *l, int fd)
{
	for (size_t i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd && !l->fds[i].dead)
			return &l->fds[i];
	return NULL;
}

int loop_add(struct loop *l, int fd, loop_read_fn fn, void *ctx)
{
	if (fd < 0 || !fn)
		return -EINVAL;
	if (loop_find(l, fd))
		return -EEXIST;
	if (l->nfds == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->fds = xrealloc(l->fds, l->cap * sizeof(*l->fds));
		l->pfds = xrealloc(l->pfds, l->cap * sizeof(*l->pfds));
	}
	l->fds[l->nfds++] = (struct loop_fd){ .fd = fd, .fn = fn, .ctx = ctx };
	return 0;
}

/* Only marks the entry: loop_del may be called from inside a callback while
 * loop_dispatch walks the array. */
void loop_del(struct loop *l, int fd)
{
	struct loop_fd *e = loop_find(l, fd);

	if (e)
		e->dead = true;
}

static void loop_compact(struct loop *l)
{
	size_t j = 0;

	for (size_t i = 0; i < l->nfds; i++)
		if (!l->fds[i].dead)
			l->fds[j++] = l->fds[i];
	l->nfds = j;
}

void loop_abort(struct loop *l, const char *reason)
{
	/* The first reason is the interesting one (the panic, not its echo). */
	if (l->abort_reason)
		return;
	l->abort_reason = xstrdup(reason ? reason : "aborted");
}

const char *loop_abort_reason(struct loop *l)
{
	return l->abort_reason;
}

void loop_clear_abort(struct loop *l)
{
	free(l->abort_reason);
	l->abort_reason = NULL;
}

static int loop_timeout(struct loop *l, int64_t now, int64_t deadline)
{
	int64_t left = deadline - now;
	int64_t cap = l->clock == now_ms ? LOOP_MAX_SLICE_MS : LOOP_FAKE_SLICE_MS;

	if (left < 0)
		left = 0;
	return (int)(left < cap ? left : cap);
}

/* Call the callback of every ready fd. pfds was filled from fds before the
 * poll; an entry deleted (or replaced) meanwhile is looked up again by fd. */
static void loop_dispatch(struct loop *l, size_t n)
{
	for (size_t i = 0; i < n && !l->abort_reason; i++) {
		/* Copied out: a callback may loop_add and so move l->pfds. */
		int fd = l->pfds[i].fd;
		short revents = l->pfds[i].revents;
		struct loop_fd *e;
		int ret;

		if (!revents)
			continue;
		e = loop_find(l, fd);
		if (!e)
			continue;
		if (revents & POLLNVAL) {
			e->dead = true;
			continue;
		}
		ret = e->fn(e->ctx, fd);
		e = loop_find(l, fd);
		if (ret < 0 && e)
			e->dead = true;
	}
}

static int loop_poll_once(struct loop *l, int timeout)
{
	size_t n;
	int ret;

	loop_compact(l);
	n = l->nfds;
	for (size_t i = 0; i < n; i++)
		l->pfds[i] = (struct pollfd){ .fd = l->fds[i].fd, .events = POLLIN };
	ret = poll(l->pfds, n, timeout);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret > 0)
		loop_dispatch(l, n);
	return 0;
}

int loop_run_until(struct loop *l, loop_cond_fn cond, void *ctx, int64_t deadline)
{
	for (;;) {
		int64_t now;
		int ret;

		if (l->abort_reason)
			return -ECANCELED;
		if (cond && cond(ctx))
			return 0;
		now = loop_now(l);
		if (now >= deadline)
			return cond ? -ETIMEDOUT : 0;
		ret = loop_poll_once(l, loop_timeout(l, now, deadline));
		if (ret < 0)
			return ret;
	}
}
