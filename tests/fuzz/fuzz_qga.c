/* libFuzzer target: any bytes as what the guest agent (qemu-guest-agent in
 * a guest that may run a broken or hostile kernel) sends, played back by
 * fuzz_peer.h in turns while the client does what vm.c does: sync, run a
 * command and collect its output, a plain command, a command started
 * before the guest sleeps and collected after. Each call must end with one
 * of its documented results, output decoded into bounded buffers, an error
 * reply with its message, and nothing leaked. */
#include <errno.h>
#include <stdint.h>

#include "fuzz_peer.h"
#include "qga.h"

#define SYNC_RETRY_MS 500 /* vm.c's */

static FILE *transcript;

static int64_t deadline(struct fuzz_peer *p)
{
	return loop_now(p->loop) + FUZZ_PEER_DEADLINE_MS;
}

static bool call_result(int rc)
{
	return rc == 0 || rc == -ETIMEDOUT || rc == -EPROTO || rc == -EPIPE || rc == -EREMOTEIO;
}

static void check_exec(int rc, struct qga_exec_result *res)
{
	FUZZ_TRACE("exec: %d exit %d signal %d out %zu err %zu\n", rc, res->exit_code, res->signal,
		   res->out_len, res->err_len);
	FUZZ_CHECK(call_result(rc));
	if (rc == 0) {
		FUZZ_CHECK(res->out && res->err);
		FUZZ_CHECK(res->out[res->out_len] == '\0' && res->err[res->err_len] == '\0');
		FUZZ_CHECK(res->exit_code == -1 || !res->signal);
	}
	if (rc == -EREMOTEIO)
		FUZZ_CHECK(res->err && res->err_len == strlen(res->err));
	qga_exec_result_free(res);
}

/* The guest went to sleep: stop waiting on the third look. */
static bool asleep(void *ctx)
{
	return ++*(int *)ctx >= 3;
}

static void start_and_wait(struct qga *g, struct fuzz_peer *p)
{
	struct qga_exec_result res;
	long long pid = -1;
	char *errmsg = NULL;
	int looks = 0;
	int rc = qga_exec_start_until(g, "echo mem > /sys/power/state", NULL, &pid, &errmsg,
				      deadline(p), asleep, &looks);

	if (rc == -EINPROGRESS) {
		FUZZ_CHECK(!errmsg);
		/* nothing else may be asked meanwhile */
		FUZZ_CHECK(qga_execute(g, "guest-ping", NULL, NULL, NULL, deadline(p)) == -EBUSY);
		rc = qga_exec_start_finish(g, &pid, &errmsg, deadline(p));
		FUZZ_TRACE("asleep; then ");
	}
	FUZZ_TRACE("start: %d pid %lld\n", rc, pid);
	FUZZ_CHECK(call_result(rc));
	FUZZ_CHECK((rc == -EREMOTEIO) == (errmsg != NULL));
	free(errmsg);
	if (rc)
		return;
	rc = qga_exec_wait(g, pid, &res, deadline(p));
	check_exec(rc, &res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct fuzz_peer p;
	struct qga_exec_result res;
	json_t *ret = NULL;
	char *errmsg = NULL;
	struct qga *g;
	int rc;

	if (!transcript)
		transcript = fopen("/dev/null", "w");
	rc = fuzz_peer_start(&p, data, size);
	g = qga_new(p.loop, rc, transcript);
	FUZZ_CHECK(g);
	rc = qga_sync(g, SYNC_RETRY_MS, deadline(&p));
	FUZZ_TRACE("sync: %d\n", rc);
	FUZZ_CHECK(rc == 0 || rc == -ETIMEDOUT || rc == -EPIPE);
	rc = qga_exec(g, "ktb-probe machine", env, &res, deadline(&p));
	check_exec(rc, &res);
	rc = qga_execute(g, "guest-ping", NULL, &ret, &errmsg, deadline(&p));
	FUZZ_TRACE("guest-ping: %d\n", rc);
	FUZZ_CHECK(call_result(rc) && (rc == -EREMOTEIO) == (errmsg != NULL));
	FUZZ_CHECK(rc == 0 || !ret);
	free(errmsg);
	json_decref(ret);
	start_and_wait(g, &p);
	qga_free(g);
	fuzz_peer_end(&p);
	return 0;
}
