/* libFuzzer target: any bytes as what QEMU's monitor sends (QMP), played
 * back by fuzz_peer.h in turns while the client does what the runner and
 * the steps do: the handshake, commands, waits for events. Whatever
 * arrives (garbage, replies to other ids, floods of events, a hang-up at
 * any byte), each call must end with one of its documented results, an
 * error reply with its message, and nothing leaked. */
#include <errno.h>
#include <stdint.h>

#include "fuzz_peer.h"
#include "qmp.h"

static FILE *transcript;

static int64_t deadline(struct fuzz_peer *p)
{
	return loop_now(p->loop) + FUZZ_PEER_DEADLINE_MS;
}

static bool wait_result(int rc)
{
	return rc == 0 || rc == -ETIMEDOUT || rc == -EPROTO || rc == -EPIPE;
}

static void execute(struct qmp *q, struct fuzz_peer *p, const char *cmd, json_t *args)
{
	json_t *ret = NULL;
	char *errmsg = NULL;
	int rc = qmp_execute(q, cmd, args, &ret, &errmsg, deadline(p));

	FUZZ_TRACE("%s: %d%s%s\n", cmd, rc, errmsg ? " " : "", errmsg ? errmsg : "");
	FUZZ_CHECK(wait_result(rc) || rc == -EREMOTEIO);
	FUZZ_CHECK((rc == -EREMOTEIO) == (errmsg != NULL));
	FUZZ_CHECK(rc == 0 || !ret);
	free(errmsg);
	json_decref(ret);
}

static void wait_event(struct qmp *q, struct fuzz_peer *p, const char *name)
{
	struct qmp_event *ev = NULL;
	int rc = qmp_wait_event(q, name, &ev, deadline(p));

	FUZZ_TRACE("wait %s: %d %s\n", name ? name : "(any)", rc, ev ? ev->name : "");
	FUZZ_CHECK(wait_result(rc));
	FUZZ_CHECK((rc == 0) == (ev != NULL));
	if (ev) {
		FUZZ_CHECK(ev->name && (!name || !strcmp(ev->name, name)));
		qmp_event_free(ev);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_peer p;
	json_t *args = json_pack("{s:s}", "filename", "screen.ppm");
	struct qmp *q;
	int rc;

	if (!transcript)
		transcript = fopen("/dev/null", "w");
	rc = fuzz_peer_start(&p, data, size);
	q = qmp_new(p.loop, rc, transcript);
	FUZZ_CHECK(q);
	rc = qmp_handshake(q, deadline(&p));
	FUZZ_TRACE("handshake: %d\n", rc);
	FUZZ_CHECK(wait_result(rc));
	execute(q, &p, "query-status", NULL);
	wait_event(q, &p, "STOP");
	execute(q, &p, "screendump", args);
	qmp_has_event(q, "RESUME");
	wait_event(q, &p, NULL);
	execute(q, &p, "system_wakeup", NULL);
	wait_event(q, &p, "SHUTDOWN");
	qmp_free(q);
	fuzz_peer_end(&p);
	json_decref(args);
	return 0;
}
