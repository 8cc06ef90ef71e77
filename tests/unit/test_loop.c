/* The event loop: dispatch, deadlines (real and fake clocks), abort,
 * removal of fds by their callbacks, EINTR. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"
#include "util.h"

struct probe {
	struct loop *loop;
	int calls;
	int ret;    /* what the callback returns */
	bool drain; /* read what is there */
	const char *abort_with;
	int del_fd; /* loop_del this fd from the callback; -1: none */
	char got[64];
};

static int probe_read(void *ctx, int fd)
{
	struct probe *p = ctx;

	p->calls++;
	if (p->drain) {
		ssize_t n = read(fd, p->got, sizeof(p->got) - 1);

		p->got[n > 0 ? n : 0] = '\0';
	}
	if (p->abort_with)
		loop_abort(p->loop, p->abort_with);
	if (p->del_fd >= 0)
		loop_del(p->loop, p->del_fd);
	return p->ret;
}

static bool probe_called(void *ctx)
{
	return ((struct probe *)ctx)->calls > 0;
}

static bool never(void *ctx)
{
	(void)ctx;
	return false;
}

static bool always(void *ctx)
{
	(void)ctx;
	return true;
}

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void test_loop_cond_already_true(void **state)
{
	struct loop *l = loop_new();

	(void)state;
	/* The cond is checked before anything else: even a past deadline. */
	assert_int_equal(loop_run_until(l, always, NULL, loop_now(l) - 10), 0);
	loop_free(l);
}

static void test_loop_dispatch(void **state)
{
	struct loop *l = loop_new();
	struct probe p = { .loop = l, .drain = true, .del_fd = -1 };
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(loop_add(l, sv[0], probe_read, &p), 0);
	assert_int_equal(loop_add(l, sv[0], probe_read, &p), -EEXIST);
	assert_int_equal(write(sv[1], "hi", 2), 2);
	assert_int_equal(loop_run_until(l, probe_called, &p, loop_now(l) + 2000), 0);
	assert_string_equal(p.got, "hi");
	loop_free(l);
	close(sv[0]);
	close(sv[1]);
}

static void test_loop_deadline(void **state)
{
	struct loop *l = loop_new();
	int64_t t0 = now_ms();

	(void)state;
	assert_int_equal(loop_run_until(l, never, NULL, t0 + 50), -ETIMEDOUT);
	assert_true(now_ms() - t0 >= 50);
	assert_true(now_ms() - t0 < 1000);
	/* Without a cond, reaching the deadline is the goal. */
	assert_int_equal(loop_run_until(l, NULL, NULL, now_ms() + 20), 0);
	loop_free(l);
}

static int64_t fake_clock_now;

static int64_t fake_clock(void)
{
	return fake_clock_now += 5;
}

static void test_loop_fake_clock(void **state)
{
	struct loop *l = loop_new();
	int64_t t0 = now_ms();

	(void)state;
	fake_clock_now = 1000;
	loop_set_clock(l, fake_clock);
	assert_true(loop_now(l) > 1000);
	/* 100 fake ms at 5 per read: a handful of short real polls. */
	assert_int_equal(loop_run_until(l, never, NULL, 1100), -ETIMEDOUT);
	assert_true(fake_clock_now >= 1100);
	assert_true(now_ms() - t0 < 2000);
	loop_set_clock(l, NULL);
	assert_true(loop_now(l) - now_ms() <= 1);
	loop_free(l);
}

static void test_loop_abort_from_callback(void **state)
{
	struct loop *l = loop_new();
	struct probe p = { .loop = l, .drain = true, .abort_with = "Kernel panic", .del_fd = -1 };
	int64_t t0 = now_ms();
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(loop_add(l, sv[0], probe_read, &p), 0);
	assert_int_equal(write(sv[1], "x", 1), 1);
	assert_null(loop_abort_reason(l));
	assert_int_equal(loop_run_until(l, never, NULL, t0 + 5000), -ECANCELED);
	assert_true(now_ms() - t0 < 1000);
	assert_string_equal(loop_abort_reason(l), "Kernel panic");
	/* Sticky, even for a cond that holds; the first reason stays. */
	loop_abort(l, "QEMU exited");
	assert_int_equal(loop_run_until(l, always, NULL, t0 + 5000), -ECANCELED);
	assert_string_equal(loop_abort_reason(l), "Kernel panic");
	loop_clear_abort(l);
	assert_null(loop_abort_reason(l));
	assert_int_equal(loop_run_until(l, always, NULL, t0 + 5000), 0);
	loop_free(l);
	close(sv[0]);
	close(sv[1]);
}

static void test_loop_callback_error_removes_fd(void **state)
{
	struct loop *l = loop_new();
	struct probe p = { .loop = l, .ret = -EIO, .del_fd = -1 };
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(loop_add(l, sv[0], probe_read, &p), 0);
	/* Never read: the fd stays readable, yet the callback runs once. */
	assert_int_equal(write(sv[1], "x", 1), 1);
	assert_int_equal(loop_run_until(l, NULL, NULL, now_ms() + 60), 0);
	assert_int_equal(p.calls, 1);
	/* Gone from the loop: it can be added again. */
	assert_int_equal(loop_add(l, sv[0], probe_read, &p), 0);
	loop_free(l);
	close(sv[0]);
	close(sv[1]);
}

static void test_loop_del_from_callback(void **state)
{
	struct loop *l = loop_new();
	struct probe a = { .loop = l, .drain = true }, b = { .loop = l, .drain = true };
	int sa[2], sb[2];

	(void)state;
	pair(sa);
	pair(sb);
	a.del_fd = sb[0];
	b.del_fd = sa[0];
	assert_int_equal(loop_add(l, sa[0], probe_read, &a), 0);
	assert_int_equal(loop_add(l, sb[0], probe_read, &b), 0);
	assert_int_equal(write(sa[1], "x", 1), 1);
	assert_int_equal(write(sb[1], "y", 1), 1);
	/* Both are ready in the same poll; the first one deletes the other. */
	assert_int_equal(loop_run_until(l, NULL, NULL, now_ms() + 60), 0);
	assert_int_equal(a.calls + b.calls, 1);
	loop_free(l);
	close(sa[0]);
	close(sa[1]);
	close(sb[0]);
	close(sb[1]);
}

static void test_loop_hangup_dispatched(void **state)
{
	struct loop *l = loop_new();
	struct probe p = { .loop = l, .drain = true, .ret = -EPIPE, .del_fd = -1 };
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(loop_add(l, sv[0], probe_read, &p), 0);
	close(sv[1]);
	assert_int_equal(loop_run_until(l, probe_called, &p, now_ms() + 2000), 0);
	assert_string_equal(p.got, "");
	loop_free(l);
	close(sv[0]);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_loop_eintr(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	struct itimerval it = { .it_interval = { 0, 10000 }, .it_value = { 0, 10000 } };
	struct itimerval off = { 0 };
	struct loop *l = loop_new();

	(void)state;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	assert_int_equal(loop_run_until(l, never, NULL, now_ms() + 100), -ETIMEDOUT);
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_cond_already_true),
		cmocka_unit_test(test_loop_dispatch),
		cmocka_unit_test(test_loop_deadline),
		cmocka_unit_test(test_loop_fake_clock),
		cmocka_unit_test(test_loop_abort_from_callback),
		cmocka_unit_test(test_loop_callback_error_removes_fd),
		cmocka_unit_test(test_loop_del_from_callback),
		cmocka_unit_test(test_loop_hangup_dispatched),
		cmocka_unit_test(test_loop_eintr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
