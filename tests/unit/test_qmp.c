/* QMP client against a scripted peer on a socketpair: handshake, replies
 * matched by id, events queued between replies, framing at every byte,
 * garbage, hang-up, deadlines, error replies, the qmp.jsonl transcript. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_peer.h"
#include "loop.h"
#include "qmp.h"
#include "util.h"

#define GREETING                                                                                   \
	"{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 2, \"major\": 7}, "          \
	"\"package\": \"Debian 1:7.2+dfsg-7\"}, \"capabilities\": [\"oob\"]}}\r\n"
#define CAPS_OK "{\"return\": {}, \"id\": $ID}\r\n"
#define EV_STOP                                                                                    \
	"{\"timestamp\": {\"seconds\": 1700000000, \"microseconds\": 1}, \"event\": \"STOP\"}\r\n"
#define EV_RESUME                                                                                  \
	"{\"timestamp\": {\"seconds\": 1700000000, \"microseconds\": 2}, \"event\": "              \
	"\"RESUME\"}\r\n"
#define EV_BALLOON                                                                                 \
	"{\"timestamp\": {\"seconds\": 1700000001, \"microseconds\": 3}, "                         \
	"\"event\": \"BALLOON_CHANGE\", \"data\": {\"actual\": 536870912}}\r\n"
#define STATUS_OK "{\"return\": {\"status\": \"running\", \"running\": true}, \"id\": $ID}\r\n"
/* The script's side of a plain handshake. */
#define HANDSHAKE ">" GREETING, "<qmp_capabilities", ">" CAPS_OK

struct fixture {
	struct fake_peer_fixture pf;
	struct qmp *q;
};

static void start(struct fixture *f, const char *const *script)
{
	int fd = fake_peer_fixture_start(&f->pf, script);

	assert_true(fd >= 0);
	f->q = qmp_new(f->pf.loop, fd, f->pf.log);
	assert_non_null(f->q);
}

static void finish(struct fixture *f)
{
	qmp_free(f->q);
	assert_string_equal(fake_peer_fixture_end(&f->pf), "");
}

static int64_t in_ms(struct fixture *f, int64_t ms)
{
	return loop_now(f->pf.loop) + ms;
}

/* For the tests about what comes after the handshake. */
static void start_ready(struct fixture *f, const char *const *script)
{
	start(f, script);
	assert_int_equal(qmp_handshake(f->q, in_ms(f, 5000)), 0);
}

static void test_qmp_handshake(void **state)
{
	const char *const script[] = { ">" GREETING, "<{\"execute\":\"qmp_capabilities\",\"id\":1}",
				       ">" CAPS_OK, NULL };
	struct fixture f;
	json_t *first;

	(void)state;
	start(&f, script);
	assert_int_equal(qmp_handshake(f.q, in_ms(&f, 5000)), 0);
	fflush(f.pf.log);
	/* qmp.jsonl: greeting in, capabilities out, reply in. */
	first = json_loads(f.pf.log_buf, JSON_DISABLE_EOF_CHECK, NULL);
	assert_non_null(first);
	assert_string_equal(json_string_value(json_object_get(first, "dir")), "in");
	assert_non_null(json_object_get(json_object_get(first, "msg"), "QMP"));
	assert_true(json_is_integer(json_object_get(first, "t_ms")));
	assert_non_null(
	    strstr(f.pf.log_buf, "\"dir\":\"out\",\"msg\":{\"execute\":\"qmp_capabilities\""));
	json_decref(first);
	finish(&f);
}

static void test_qmp_execute_reply(void **state)
{
	const char *const script[] = {
		HANDSHAKE,
		"<{\"execute\":\"balloon\",\"id\":2,\"arguments\":{\"value\":1024}}",
		">{\"return\": {}, \"id\": $ID}\n",
		"<query-status",
		">" STATUS_OK,
		NULL
	};
	json_t *args = json_pack("{s:i}", "value", 1024);
	struct fixture f;
	json_t *ret = NULL;
	char *err = NULL;

	(void)state;
	start_ready(&f, script);
	assert_int_equal(qmp_execute(f.q, "balloon", args, NULL, NULL, in_ms(&f, 5000)), 0);
	assert_int_equal(args->refcount, 1); /* borrowed, not stolen */
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, &ret, &err, in_ms(&f, 5000)), 0);
	assert_null(err);
	assert_string_equal(json_string_value(json_object_get(ret, "status")), "running");
	json_decref(ret);
	json_decref(args);
	finish(&f);
}

/* qmp_on_events: the hook sees each event as it arrives, in order, and the
 * event is still queued for whoever waits for it. */
static void count_event(void *ctx, const struct qmp_event *ev)
{
	char *seen = ctx;

	strcat(seen, ev->name);
	strcat(seen, " ");
}

static void test_qmp_event_hook(void **state)
{
	const char *const script[] = { HANDSHAKE, "<query-status", ">" EV_STOP EV_RESUME STATUS_OK,
				       NULL };
	char seen[64] = "";
	struct qmp_event *ev = NULL;
	struct fixture f;

	(void)state;
	start_ready(&f, script);
	qmp_on_events(f.q, count_event, seen);
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, NULL, NULL, in_ms(&f, 5000)), 0);
	assert_string_equal(seen, "STOP RESUME ");
	assert_int_equal(qmp_wait_event(f.q, "STOP", &ev, in_ms(&f, 10)), 0);
	qmp_event_free(ev);
	assert_true(qmp_has_event(f.q, "RESUME"));
	finish(&f);
}

static int64_t fake_now;

static int64_t fake_clock(void)
{
	return ++fake_now;
}

static void test_qmp_events_between_replies(void **state)
{
	const char *const script[] = { ">" GREETING EV_BALLOON,
				       "<qmp_capabilities",
				       ">" CAPS_OK,
				       "<query-status",
				       ">" EV_STOP EV_RESUME STATUS_OK,
				       NULL };
	struct qmp_event *ev[3];
	struct fixture f;

	(void)state;
	start(&f, script);
	fake_now = 0;
	loop_set_clock(f.pf.loop, fake_clock);
	assert_int_equal(qmp_handshake(f.q, in_ms(&f, 100000)), 0);
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, NULL, NULL, in_ms(&f, 100000)), 0);
	/* By name, out of arrival order; then the oldest of the rest. */
	assert_int_equal(qmp_wait_event(f.q, "RESUME", &ev[1], in_ms(&f, 10)), 0);
	assert_int_equal(qmp_wait_event(f.q, NULL, &ev[0], in_ms(&f, 10)), 0);
	assert_int_equal(qmp_wait_event(f.q, "STOP", &ev[2], in_ms(&f, 10)), 0);
	assert_string_equal(ev[0]->name, "BALLOON_CHANGE");
	assert_int_equal(json_integer_value(json_object_get(ev[0]->data, "actual")), 536870912);
	assert_string_equal(ev[1]->name, "RESUME");
	assert_null(ev[1]->data);
	assert_string_equal(ev[2]->name, "STOP");
	assert_true(ev[0]->host_ms < ev[2]->host_ms);
	assert_true(ev[2]->host_ms < ev[1]->host_ms);
	for (int i = 0; i < 3; i++)
		qmp_event_free(ev[i]);
	/* Nothing left: the wait ends at its deadline. */
	assert_int_equal(qmp_wait_event(f.q, NULL, &ev[0], in_ms(&f, 20)), -ETIMEDOUT);
	assert_null(ev[0]);
	finish(&f);
}

static void test_qmp_event_wait_real_time(void **state)
{
	const char *const script[] = { HANDSHAKE, "s30", ">" EV_STOP, NULL };
	struct qmp_event *ev;
	struct fixture f;
	int64_t t0;

	(void)state;
	start_ready(&f, script);
	t0 = loop_now(f.pf.loop);
	assert_int_equal(qmp_wait_event(f.q, "STOP", &ev, in_ms(&f, 5000)), 0);
	assert_true(ev->host_ms >= t0 && ev->host_ms <= loop_now(f.pf.loop));
	qmp_event_free(ev);
	finish(&f);
}

static void test_qmp_bytewise(void **state)
{
	const char *const script[] = { "b" GREETING,	"<qmp_capabilities",   "b" CAPS_OK,
				       "<query-status", "b" EV_STOP STATUS_OK, NULL };
	struct qmp_event *ev;
	struct fixture f;
	json_t *ret;

	(void)state;
	start(&f, script);
	assert_int_equal(qmp_handshake(f.q, in_ms(&f, 10000)), 0);
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, &ret, NULL, in_ms(&f, 10000)), 0);
	assert_true(json_is_true(json_object_get(ret, "running")));
	assert_int_equal(qmp_wait_event(f.q, "STOP", &ev, in_ms(&f, 10)), 0);
	qmp_event_free(ev);
	json_decref(ret);
	finish(&f);
}

static void split_handshake(const char *before, const char *stream, size_t i, const char *after)
{
	char *a = xasprintf(">%.*s", (int)i, stream);
	char *b = xasprintf(">%s", stream + i);
	const char *const with_before[] = { before, "<qmp_capabilities", a, "s1", b, NULL };
	const char *const with_after[] = { a, "s1", b, "<qmp_capabilities", after, NULL };
	struct qmp_event *ev;
	struct fixture f;

	start(&f, before ? with_before : with_after);
	assert_int_equal(qmp_handshake(f.q, in_ms(&f, 5000)), 0);
	assert_int_equal(qmp_wait_event(f.q, "STOP", &ev, in_ms(&f, 5000)), 0);
	qmp_event_free(ev);
	finish(&f);
	free(a);
	free(b);
}

/* Two messages cut in two at each byte, with a pause between the pieces so
 * that the client reads them apart: the greeting and an event, then the
 * capabilities reply and an event. */
static void test_qmp_split_every_byte(void **state)
{
	const char greeting[] = GREETING EV_STOP;
	const char reply[] = "{\"return\": {}, \"id\": 1}\r\n" EV_STOP;

	(void)state;
	for (size_t i = 1; i < strlen(greeting); i++)
		split_handshake(NULL, greeting, i, ">" CAPS_OK);
	for (size_t i = 1; i < strlen(reply); i++)
		split_handshake(">" GREETING, reply, i, NULL);
}

static void test_qmp_two_messages_one_read(void **state)
{
	const char *const script[] = { "<qmp_capabilities", ">" CAPS_OK, NULL };
	const char both[] = GREETING EV_STOP;
	struct qmp_event *ev;
	struct fixture f;

	(void)state;
	start(&f, script);
	/* Written before the client reads: both lines come in one read. */
	assert_int_equal(write(f.pf.peer.fd, both, strlen(both)), (ssize_t)strlen(both));
	assert_int_equal(qmp_handshake(f.q, in_ms(&f, 5000)), 0);
	assert_int_equal(qmp_wait_event(f.q, "STOP", &ev, in_ms(&f, 10)), 0);
	qmp_event_free(ev);
	finish(&f);
}

static void test_qmp_garbage(void **state)
{
	const char *const script[] = { HANDSHAKE,	"<query-status", ">this is not JSON\r\n",
				       "<query-status", ">" STATUS_OK,	 NULL };
	struct fixture f;

	(void)state;
	start_ready(&f, script);
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, NULL, NULL, in_ms(&f, 5000)),
			 -EPROTO);
	/* The stream goes on: the next command is answered. */
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, NULL, NULL, in_ms(&f, 5000)), 0);
	fflush(f.pf.log);
	assert_non_null(strstr(f.pf.log_buf, "\"raw\":\"this is not JSON\""));
	finish(&f);
}

static void test_qmp_garbage_in_handshake(void **state)
{
	const char *const script[] = { ">Welcome to telnet\n", NULL };
	struct fixture f;

	(void)state;
	start(&f, script);
	assert_int_equal(qmp_handshake(f.q, in_ms(&f, 5000)), -EPROTO);
	finish(&f);
}

static void test_qmp_hangup(void **state)
{
	const char *const script[] = { HANDSHAKE, "<query-status", "x", NULL };
	struct qmp_event *ev;
	struct fixture f;

	(void)state;
	start_ready(&f, script);
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, NULL, NULL, in_ms(&f, 5000)),
			 -EPIPE);
	assert_int_equal(qmp_execute(f.q, "cont", NULL, NULL, NULL, in_ms(&f, 5000)), -EPIPE);
	assert_int_equal(qmp_wait_event(f.q, NULL, &ev, in_ms(&f, 5000)), -EPIPE);
	finish(&f);
}

static void test_qmp_deadline_then_stale_reply(void **state)
{
	const char *const script[] = { HANDSHAKE,
				       "<\"id\":2",
				       "<\"id\":3",
				       ">{\"return\": {\"late\": true}, \"id\": 2}\n",
				       ">{\"return\": {}}\n",
				       ">{\"return\": {\"mine\": 1}, \"id\": 3}\n",
				       NULL };
	struct fixture f;
	json_t *ret = NULL;
	int64_t t0;

	(void)state;
	start_ready(&f, script);
	t0 = now_ms();
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, &ret, NULL, in_ms(&f, 50)),
			 -ETIMEDOUT);
	assert_true(now_ms() - t0 >= 50 && now_ms() - t0 < 1000);
	assert_null(ret);
	/* The late reply to id 2 and one without an id are dropped. */
	assert_int_equal(qmp_execute(f.q, "query-kvm", NULL, &ret, NULL, in_ms(&f, 5000)), 0);
	assert_int_equal(json_integer_value(json_object_get(ret, "mine")), 1);
	fflush(f.pf.log);
	assert_non_null(strstr(f.pf.log_buf, "\"late\":true},\"id\":2},\"note\":\"dropped"));
	json_decref(ret);
	finish(&f);
}

static void test_qmp_error_reply(void **state)
{
	const char *const script[] = {
		HANDSHAKE, "<system_wakeup",
		">{\"error\": {\"class\": \"GenericError\", \"desc\": \"Unable to wake up: guest "
		"is not in suspended state\"}, \"id\": $ID}\r\n",
		NULL
	};
	struct fixture f;
	json_t *ret = NULL;
	char *err = NULL;

	(void)state;
	start_ready(&f, script);
	assert_int_equal(qmp_execute(f.q, "system_wakeup", NULL, &ret, &err, in_ms(&f, 5000)),
			 -EREMOTEIO);
	assert_null(ret);
	assert_string_equal(err, "Unable to wake up: guest is not in suspended state");
	free(err);
	finish(&f);
}

static void test_qmp_aborted(void **state)
{
	const char *const script[] = { HANDSHAKE, "<query-status", NULL };
	struct fixture f;

	(void)state;
	start_ready(&f, script);
	loop_abort(f.pf.loop, "Kernel panic - not syncing: sysrq triggered crash");
	assert_int_equal(qmp_execute(f.q, "query-status", NULL, NULL, NULL, in_ms(&f, 5000)),
			 -ECANCELED);
	finish(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qmp_handshake),
		cmocka_unit_test(test_qmp_execute_reply),
		cmocka_unit_test(test_qmp_events_between_replies),
		cmocka_unit_test(test_qmp_event_hook),
		cmocka_unit_test(test_qmp_event_wait_real_time),
		cmocka_unit_test(test_qmp_bytewise),
		cmocka_unit_test(test_qmp_split_every_byte),
		cmocka_unit_test(test_qmp_two_messages_one_read),
		cmocka_unit_test(test_qmp_garbage),
		cmocka_unit_test(test_qmp_garbage_in_handshake),
		cmocka_unit_test(test_qmp_hangup),
		cmocka_unit_test(test_qmp_deadline_then_stale_reply),
		cmocka_unit_test(test_qmp_error_reply),
		cmocka_unit_test(test_qmp_aborted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
