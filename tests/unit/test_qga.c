/* Guest agent client against a scripted agent: sync through stale replies
 * and garbage, resync after a timeout, guest-exec with base64 output,
 * status polling, signals, errors, hang-up and deadlines. */
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
#include "qga.h"
#include "util.h"

#define SYNC_REQ "<{\"execute\":\"guest-sync-delimited\",\"arguments\":{\"id\":"
#define SYNC_OK ">\xff{\"return\": $ID}\n"
#define EXEC_PID ">{\"return\": {\"pid\": 1234}}\n"
#define STATUS_REQ "<{\"execute\":\"guest-exec-status\",\"arguments\":{\"pid\":1234}}"
#define RUNNING ">{\"return\": {\"exited\": false}}\n"

struct fixture {
	struct fake_peer_fixture pf;
	struct qga *g;
};

static void start(struct fixture *f, const char *const *script)
{
	int fd = fake_peer_fixture_start(&f->pf, script);

	assert_true(fd >= 0);
	f->g = qga_new(f->pf.loop, fd, f->pf.log);
	assert_non_null(f->g);
}

static void finish(struct fixture *f)
{
	qga_free(f->g);
	assert_string_equal(fake_peer_fixture_end(&f->pf), "");
}

static int64_t in_ms(struct fixture *f, int64_t ms)
{
	return loop_now(f->pf.loop) + ms;
}

/* For the tests about what comes after the first sync (script: SYNC_REQ,
 * SYNC_OK first). */
static void start_synced(struct fixture *f, const char *const *script)
{
	start(f, script);
	assert_int_equal(qga_sync(f->g, 1000, in_ms(f, 5000)), 0);
}

static void test_qga_sync_through_stale_and_garbage(void **state)
{
	const char *const script[] = { SYNC_REQ,
				       ">{\"return\": 4242}\n",		  /* an old client's */
				       ">junk from an earlier session\n", /* a whole line */
				       ">{\"return\": {\"pid\"",	  /* half a reply */
				       SYNC_OK,
				       NULL };
	struct fixture f;

	(void)state;
	start(&f, script);
	assert_int_equal(qga_sync(f.g, 1000, in_ms(&f, 5000)), 0);
	fflush(f.pf.log);
	assert_non_null(strstr(f.pf.log_buf, "{\"return\":4242},\"note\":\"dropped: stale"));
	assert_non_null(strstr(f.pf.log_buf, "\"raw\":\"junk from an earlier session\""));
	/* The half reply went with the 0xFF: nothing else was logged as in. */
	assert_null(strstr(f.pf.log_buf, "pid"));
	finish(&f);
}

static void test_qga_sync_retries(void **state)
{
	/* Should the answer to the second come late too (a loaded host), the
	 * peer answers every further sync at once. */
	const char *const script[] = { SYNC_REQ,
				       SYNC_REQ,
				       ">\xff{\"return\": $0}\n",
				       ">\xff{\"return\": $1}\n",
				       "*\xff{\"return\": $ID}\n",
				       NULL };
	struct fixture f;
	int64_t t0 = now_ms();

	(void)state;
	start(&f, script);
	/* The first sync is not answered in time: a second one goes out. */
	assert_int_equal(qga_sync(f.g, 30, in_ms(&f, 5000)), 0);
	assert_true(now_ms() - t0 >= 30);
	finish(&f); /* the peer's counts are read once it has ended */
	assert_true(f.pf.peer.nreq >= 2);
	assert_true(f.pf.peer.ids[1] > f.pf.peer.ids[0]);
}

static void test_qga_sync_timeout(void **state)
{
	const char *const script[] = { "*{\"return\": 1}\n", NULL };
	struct fixture f;
	int64_t t0 = now_ms();

	(void)state;
	start(&f, script);
	assert_int_equal(qga_sync(f.g, 20, in_ms(&f, 100)), -ETIMEDOUT);
	assert_true(now_ms() - t0 >= 100 && now_ms() - t0 < 1000);
	finish(&f);
	assert_true(f.pf.peer.nreq >= 2); /* at 0, 20 and 60 ms unless loaded */
}

static void test_qga_exec_output(void **state)
{
	const char *const script[] = {
		SYNC_REQ,
		SYNC_OK,
		"<{\"execute\":\"guest-exec\",\"arguments\":{\"path\":\"/bin/sh\",\"arg\":[\"-c\","
		"\"echo hello; echo oops >&2; exit 3\"],\"capture-output\":true,"
		"\"env\":[\"PATH=/bin\",\"KTB=1\"]}}",
		EXEC_PID,
		STATUS_REQ,
		RUNNING,
		STATUS_REQ,
		RUNNING,
		STATUS_REQ,
		">{\"return\": {\"exitcode\": 3, \"out-data\": \"aGVsbG8K\", \"err-data\": "
		"\"b29wcwo=\", \"exited\": true}}\n",
		NULL
	};
	const char *const env[] = { "PATH=/bin", "KTB=1", NULL };
	struct qga_exec_result res;
	struct fixture f;

	(void)state;
	start_synced(&f, script);
	assert_int_equal(
	    qga_exec(f.g, "echo hello; echo oops >&2; exit 3", env, &res, in_ms(&f, 5000)), 0);
	assert_int_equal(res.exit_code, 3);
	assert_int_equal(res.signal, 0);
	assert_int_equal(res.out_len, 6);
	assert_string_equal(res.out, "hello\n");
	assert_string_equal(res.err, "oops\n");
	assert_false(res.out_truncated || res.err_truncated);
	qga_exec_result_free(&res);
	finish(&f);
}

static void test_qga_exec_signal_binary_truncated(void **state)
{
	const char *const script[] = {
		SYNC_REQ,
		SYNC_OK,
		"<guest-exec",
		EXEC_PID,
		STATUS_REQ,
		">{\"return\": {\"signal\": 9, \"out-data\": \"AGI=\", \"out-truncated\": true, "
		"\"exited\": true}}\n",
		NULL
	};
	struct qga_exec_result res;
	struct fixture f;

	(void)state;
	start(&f, script);
	/* Not synced yet: qga_exec syncs first. */
	assert_int_equal(qga_exec(f.g, "kill -9 $$", NULL, &res, in_ms(&f, 5000)), 0);
	assert_int_equal(res.exit_code, -1);
	assert_int_equal(res.signal, 9);
	assert_int_equal(res.out_len, 2);
	assert_memory_equal(res.out, "\0b", 3);
	assert_true(res.out_truncated);
	assert_int_equal(res.err_len, 0);
	assert_string_equal(res.err, "");
	qga_exec_result_free(&res);
	finish(&f);
}

/* The output's base64 (nettle's decoder): line breaks are skipped, a
 * character outside the alphabet or data after the padding is the agent
 * speaking nonsense. */
static void exec_out_data(const char *data, int want, const char *out)
{
	char status[256];
	const char *const script[] = { SYNC_REQ,   SYNC_OK, "<guest-exec", EXEC_PID,
				       STATUS_REQ, status,  NULL };
	struct qga_exec_result res;
	struct fixture f;

	snprintf(status, sizeof(status),
		 ">{\"return\": {\"exitcode\": 0, \"out-data\": \"%s\", \"exited\": true}}\n",
		 data);
	start(&f, script);
	assert_int_equal(qga_exec(f.g, "echo hello", NULL, &res, in_ms(&f, 5000)), want);
	if (out)
		assert_string_equal(res.out, out);
	qga_exec_result_free(&res);
	finish(&f);
}

static void test_qga_exec_base64(void **state)
{
	(void)state;
	exec_out_data("aGVs\\nbG8K", 0, "hello\n");
	exec_out_data("aGVs!G8K", -EPROTO, NULL);
	exec_out_data("AGI=AGI=", -EPROTO, NULL);
}

static void test_qga_exec_timeout(void **state)
{
	const char *const script[] = {
		SYNC_REQ, SYNC_OK, "<guest-exec", EXEC_PID, "*{\"return\": {\"exited\": false}}\n",
		NULL
	};
	struct qga_exec_result res;
	struct fixture f;
	int64_t t0;

	(void)state;
	start_synced(&f, script);
	t0 = now_ms();
	assert_int_equal(qga_exec(f.g, "sleep 100", NULL, &res, in_ms(&f, 300)), -ETIMEDOUT);
	assert_true(now_ms() - t0 >= 300 && now_ms() - t0 < 1500);
	assert_null(res.out);
	qga_exec_result_free(&res);
	finish(&f);
	/* Backing off from 20 ms: a handful of status polls, not 15. */
	assert_true(f.pf.peer.nreq - 2 >= 2 && f.pf.peer.nreq - 2 <= 10);
}

static void test_qga_exec_error(void **state)
{
	const char *const script[] = { SYNC_REQ, SYNC_OK, "<guest-exec",
				       ">{\"error\": {\"class\": \"GenericError\", \"desc\": "
				       "\"Guest agent command failed, "
				       "error was 'Failed to execute child process /bin/sh (No "
				       "such file or directory)'\"}}\n",
				       NULL };
	struct qga_exec_result res;
	struct fixture f;

	(void)state;
	start_synced(&f, script);
	assert_int_equal(qga_exec(f.g, "true", NULL, &res, in_ms(&f, 5000)), -EREMOTEIO);
	assert_non_null(strstr(res.err, "Failed to execute child process"));
	assert_int_equal(res.err_len, strlen(res.err));
	qga_exec_result_free(&res);
	finish(&f);
}

static void test_qga_hangup(void **state)
{
	const char *const script[] = { SYNC_REQ, SYNC_OK, "<guest-exec", "x", NULL };
	struct qga_exec_result res;
	struct fixture f;

	(void)state;
	start_synced(&f, script);
	assert_int_equal(qga_exec(f.g, "true", NULL, &res, in_ms(&f, 5000)), -EPIPE);
	assert_int_equal(qga_sync(f.g, 10, in_ms(&f, 5000)), -EPIPE);
	finish(&f);
}

static void test_qga_resync_after_timeout(void **state)
{
	const char *const script[] = { SYNC_REQ,
				       SYNC_OK,
				       "<guest-ping",
				       SYNC_REQ,
				       ">{\"return\": {}}\n", /* the late guest-ping reply */
				       SYNC_OK,
				       "<guest-info",
				       ">{\"return\": {\"version\": \"7.2.0\"}}\n",
				       NULL };
	struct fixture f;
	json_t *ret = NULL;

	(void)state;
	start_synced(&f, script);
	assert_int_equal(qga_execute(f.g, "guest-ping", NULL, &ret, NULL, in_ms(&f, 50)),
			 -ETIMEDOUT);
	assert_int_equal(qga_execute(f.g, "guest-info", NULL, &ret, NULL, in_ms(&f, 5000)), 0);
	assert_string_equal(json_string_value(json_object_get(ret, "version")), "7.2.0");
	json_decref(ret);
	finish(&f);
}

static bool always(void *ctx)
{
	(void)ctx;
	return true;
}

/* The guest slept before the agent answered guest-exec: the caller stops
 * waiting, may not ask anything else, and collects the pid later. */
static void test_qga_exec_start_held(void **state)
{
	const char *const script[] = { SYNC_REQ, SYNC_OK, "<guest-exec", "s200", EXEC_PID, NULL };
	struct fixture f;
	long long pid = 0;
	json_t *ret = NULL;

	(void)state;
	start_synced(&f, script);
	assert_int_equal(qga_exec_start_until(f.g, "echo mem > /sys/power/state", NULL, &pid, NULL,
					      in_ms(&f, 5000), always, NULL),
			 -EINPROGRESS);
	assert_int_equal(qga_execute(f.g, "guest-ping", NULL, &ret, NULL, in_ms(&f, 100)), -EBUSY);
	assert_int_equal(qga_exec_start_finish(f.g, &pid, NULL, in_ms(&f, 5000)), 0);
	assert_int_equal(pid, 1234);
	assert_int_equal(qga_exec_start_finish(f.g, &pid, NULL, in_ms(&f, 100)), -EINVAL);
	finish(&f);
}

static void test_qga_garbage_after_sync(void **state)
{
	const char *const script[] = { SYNC_REQ, SYNC_OK, "<guest-info", ">}}}not json\n", NULL };
	struct fixture f;
	char *err = NULL;

	(void)state;
	start_synced(&f, script);
	assert_int_equal(qga_execute(f.g, "guest-info", NULL, NULL, &err, in_ms(&f, 5000)),
			 -EPROTO);
	assert_null(err);
	finish(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qga_sync_through_stale_and_garbage),
		cmocka_unit_test(test_qga_sync_retries),
		cmocka_unit_test(test_qga_sync_timeout),
		cmocka_unit_test(test_qga_exec_output),
		cmocka_unit_test(test_qga_exec_signal_binary_truncated),
		cmocka_unit_test(test_qga_exec_base64),
		cmocka_unit_test(test_qga_exec_timeout),
		cmocka_unit_test(test_qga_exec_error),
		cmocka_unit_test(test_qga_hangup),
		cmocka_unit_test(test_qga_resync_after_timeout),
		cmocka_unit_test(test_qga_garbage_after_sync),
		cmocka_unit_test(test_qga_exec_start_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
