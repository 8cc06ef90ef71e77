/* Memory steps driven from the host. balloon: ask QEMU for a new guest
 * size, then wait for the effect twice over: QEMU's balloon reaching the
 * target, and the guest's MemTotal moving by as much. measure: read a host
 * metric of this VM (QEMU's resident set), save it in the metrics for later
 * steps, report its change since an earlier reading, and with within:
 * sample until the step's expect holds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "step_mem.h"
#include "util.h"

#define MEM_POLL_MS 250
#define MEM_SAMPLE_MS 500
#define MEM_CMD_MS 10000
#define MIB (1024 * 1024)
/* The balloon's accounting unit: QEMU's "actual" is its RAM size minus the
 * driver's page count times 4 KiB, whatever the guest's page size. */
#define BALLOON_PAGE 4096

static void mem_fail(struct step_result *sr, enum status st, char *msg)
{
	sr->status = st;
	free(sr->message);
	sr->message = msg;
}

static int64_t llabs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* Pause until ms from now (or the deadline), still watching for a panic. */
static int mem_sleep(struct run_ctx *c, int64_t ms, int64_t deadline)
{
	int64_t until = loop_now(c->vm.loop) + ms;

	if (until > deadline)
		return -ETIMEDOUT;
	return loop_run_until(c->vm.loop, NULL, NULL, until);
}

/* The guest's MemTotal in bytes, read through the agent. */
static int guest_memtotal(struct run_ctx *c, int64_t *bytes, int64_t deadline)
{
	struct vm_exec_result res = { 0 };
	int64_t dl = loop_now(c->vm.loop) + MEM_CMD_MS;
	const char *p;
	int ret;

	ret = vm_exec(&c->vm, "cat /proc/meminfo", (const char *const *)c->env, &res,
		      dl < deadline ? dl : deadline);
	if (!ret && (!res.out || !(p = strstr(res.out, "MemTotal:"))))
		ret = -EPROTO;
	if (!ret)
		*bytes = strtoll(p + 9, NULL, 10) * 1024;
	vm_exec_result_free(&res);
	return ret;
}

/* QEMU's view: the guest memory size the balloon leaves ("actual"). */
static int balloon_actual(struct run_ctx *c, int64_t *bytes, int64_t deadline)
{
	json_t *ret_val = NULL;
	json_int_t actual = 0;
	char *errmsg = NULL;
	int ret = vm_qmp(&c->vm, "query-balloon", NULL, &ret_val, &errmsg, deadline);

	if (ret == -EREMOTEIO)
		snprintf(c->vm.err, sizeof(c->vm.err), "query-balloon: %s", errmsg ? errmsg : "?");
	if (!ret && json_unpack(ret_val, "{s:I}", "actual", &actual))
		ret = -EPROTO;
	if (!ret)
		*bytes = actual;
	json_decref(ret_val);
	free(errmsg);
	return ret;
}

/* "Reached" has no slack: the guest's driver (virtio_balloon.c, 6.1) moves
 * its page count towards the count QEMU asked for in batches of up to 256
 * pages, takes each page off MemTotal (adjust_managed_page_count) before it
 * tells QEMU of the batch, and only then writes the count QEMU's actual is
 * computed from. When an allocation fails (__GFP_NORETRY: one reclaim try,
 * never the OOM killer) it reports the part batch and tries again 200 ms
 * later, for as long as it is short: it never settles short of the target.
 * So an actual within a batch of the target is a balloon still moving, and
 * once actual is the target, MemTotal has moved by exactly as much. The
 * only tolerance is time: the step's timeout (docs/memory.md#balloon). */
bool balloon_reached(int64_t actual, int64_t target)
{
	return actual == target;
}

int64_t balloon_memtotal_expected(const struct balloon_run *b)
{
	return b->memtotal0 - (b->actual0 - b->actual);
}

bool balloon_memtotal_reached(int64_t memtotal, int64_t expected)
{
	return memtotal == expected;
}

char *balloon_miss(const char *size, const struct balloon_run *b)
{
	if (!b->target_ms)
		return xasprintf("QEMU's balloon did not reach %s: actual %lld kB, %lld pages of "
				 "4 kB short",
				 size, (long long)(b->actual / 1024),
				 (long long)(llabs64(b->actual - b->target) / BALLOON_PAGE));
	return xasprintf("the balloon reached %s but the guest's MemTotal is %lld kB, not %lld kB "
			 "(%lld pages of 4 kB off)",
			 size, (long long)(b->memtotal / 1024), (long long)(b->expected / 1024),
			 (long long)(llabs64(b->memtotal - b->expected) / BALLOON_PAGE));
}

json_t *balloon_json(const struct balloon_run *b)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "target_mb",
			 (json_int_t)(b->target / MIB), "actual_mb", (json_int_t)(b->actual / MIB),
			 "memtotal_before_mb", (json_int_t)(b->memtotal0 / MIB), "memtotal_mb",
			 (json_int_t)(b->memtotal / MIB), "memtotal_expected_mb",
			 (json_int_t)(b->expected / MIB), "target_ms", (json_int_t)b->target_ms,
			 "memtotal_ms", (json_int_t)b->memtotal_ms);
}

static int balloon_wait_actual(struct run_ctx *c, struct balloon_run *b, int64_t deadline)
{
	int ret;

	for (;;) {
		ret = balloon_actual(c, &b->actual, deadline);
		if (ret)
			return ret;
		if (balloon_reached(b->actual, b->target))
			break;
		ret = mem_sleep(c, MEM_POLL_MS, deadline);
		if (ret)
			return ret;
	}
	b->target_ms = loop_now(c->vm.loop) - b->t0;
	return 0;
}

static int balloon_wait_memtotal(struct run_ctx *c, struct balloon_run *b, int64_t deadline)
{
	int ret;

	b->expected = balloon_memtotal_expected(b);
	for (;;) {
		ret = guest_memtotal(c, &b->memtotal, deadline);
		if (ret)
			return ret;
		if (balloon_memtotal_reached(b->memtotal, b->expected))
			break;
		ret = mem_sleep(c, MEM_POLL_MS, deadline);
		if (ret)
			return ret;
	}
	b->memtotal_ms = loop_now(c->vm.loop) - b->t0;
	return 0;
}

static void balloon_output(struct run_ctx *c, struct step_result *sr, const struct balloon_run *b)
{
	json_t *o = balloon_json(b);

	sr->out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	sr->data = o;
	sr->exit_code = 0;
	json_object_set_new(c->r->metrics, "balloon_ms", json_integer(b->memtotal_ms));
}

/* Why a balloon wait ended early, with what was last seen. */
static void balloon_failed(struct run_ctx *c, struct step_result *sr, int ret,
			   const struct step *st, const struct balloon_run *b)
{
	if (ret == -EREMOTEIO || ret == -EPROTO) {
		mem_fail(sr, ST_ERROR,
			 xasprintf("%s", ret == -EREMOTEIO
					     ? c->vm.err
					     : "no MemTotal or actual in the answer"));
		return;
	}
	if (ret != -ETIMEDOUT || loop_now(c->vm.loop) >= c->deadline) {
		step_wait_failed(c, sr, ret, st);
		return;
	}
	mem_fail(sr, ST_FAIL, balloon_miss(st->balloon, b));
}

static void step_balloon(struct run_ctx *c, const struct step *st, struct step_result *sr,
			 int64_t deadline)
{
	struct balloon_run b = { .target = (int64_t)st->balloon_bytes };
	json_t *args = json_pack("{s:I}", "value", (json_int_t)b.target), *ret_val = NULL;
	char *errmsg = NULL;
	int ret;

	ret = guest_memtotal(c, &b.memtotal0, deadline);
	if (!ret)
		ret = balloon_actual(c, &b.actual0, deadline);
	b.t0 = loop_now(c->vm.loop);
	if (!ret)
		ret = vm_qmp(&c->vm, "balloon", args, &ret_val, &errmsg, deadline);
	if (ret == -EREMOTEIO) {
		mem_fail(sr, ST_ERROR, xasprintf("QMP balloon refused: %s", errmsg ? errmsg : "?"));
		goto out;
	}
	if (!ret)
		ret = balloon_wait_actual(c, &b, deadline);
	if (!ret)
		ret = balloon_wait_memtotal(c, &b, deadline);
	if (ret) {
		balloon_failed(c, sr, ret, st, &b);
		goto out;
	}
	balloon_output(c, sr, &b);
	step_judge(sr, st->expect);
out:
	json_decref(args);
	json_decref(ret_val);
	free(errmsg);
}

/* ---- measure: host-side metrics of this VM ---- */

/* The value of "\nKEY:" in status, in kB; -1 when absent. */
static int64_t status_kb(const char *status, const char *key)
{
	size_t n = strlen(key);
	const char *p = status;
	char *end;
	long long v;

	while ((p = strstr(p, key)) && !(p == status || p[-1] == '\n'))
		p += n;
	if (!p || p[n] != ':')
		return -1;
	v = strtoll(p + n + 1, &end, 10);
	return end == p + n + 1 || v < 0 ? -1 : (int64_t)v;
}

int proc_status_held(const char *status, int64_t *bytes)
{
	static const char *const keys[] = { "RssAnon", "RssShmem", "VmSwap" };
	int64_t sum = 0, kb;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		kb = status_kb(status, keys[i]);
		if (kb < 0)
			return -EPROTO;
		sum += kb;
	}
	*bytes = sum * 1024;
	return 0;
}

/* What process pid holds for its guest (proc_status_held), in bytes. */
static int proc_rss(pid_t pid, int64_t *bytes)
{
	char path[64], *text;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	text = read_file(path, &len);
	if (!text)
		return -errno;
	ret = proc_status_held(text, bytes);
	free(text);
	return ret;
}

/* metrics.qemu_rss_mb: {NAME: MB} for every measure step with as:. */
static json_t *rss_saved(struct run_ctx *c)
{
	json_t *saved = json_object_get(c->r->metrics, "qemu_rss_mb");

	if (!saved) {
		saved = json_object();
		json_object_set_new(c->r->metrics, "qemu_rss_mb", saved);
	}
	return saved;
}

json_t *measure_json(const struct rss_sample *r, const char *since, json_t *base)
{
	json_t *o = json_pack("{s:I, s:I, s:i, s:I}", "rss_mb", (json_int_t)(r->rss / MIB),
			      "min_rss_mb", (json_int_t)(r->min_rss / MIB), "samples", r->samples,
			      "waited_ms", (json_int_t)r->waited_ms);

	if (r->settled_ms >= 0)
		json_object_set_new(o, "settled_ms", json_integer(r->settled_ms));
	if (since && base) {
		json_object_set_new(o, "since", json_string(since));
		json_object_set_new(o, "base_mb", json_incref(base));
		json_object_set_new(o, "delta_mb",
				    json_integer(r->rss / MIB - json_integer_value(base)));
	}
	return o;
}

bool measure_judge(struct step_result *sr, json_t *o, const struct expect *e, int64_t now,
		   int64_t until)
{
	free(sr->out);
	json_decref(sr->data);
	sr->out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	sr->data = o;
	sr->exit_code = 0;
	free(sr->message);
	sr->message = NULL;
	step_judge(sr, e);
	return sr->status == ST_PASS || now + MEM_SAMPLE_MS > until;
}

void measure_within_note(struct step_result *sr, unsigned samples, const char *within)
{
	char *why = sr->message;

	if (sr->status == ST_PASS || !within)
		return;
	sr->message = xasprintf("%s (after %u samples over %s)", why, samples, within);
	free(why);
}

bool rss_steady(const int64_t *win, unsigned n, int64_t *lo, int64_t *hi)
{
	*lo = *hi = win[0];
	for (unsigned i = 1; i < RSS_STEADY_SAMPLES && i < n; i++) {
		*lo = win[i] < *lo ? win[i] : *lo;
		*hi = win[i] > *hi ? win[i] : *hi;
	}
	return n >= RSS_STEADY_SAMPLES && *hi - *lo <= RSS_STEADY_BYTES;
}

/* settle: sample until the last RSS_STEADY_SAMPLES samples lie within
 * RSS_STEADY_BYTES of each other (the guest's boot and its free page reports
 * have run their course), for at most st->settle_ms. 0, or the step failed. */
static int rss_settle(struct run_ctx *c, const struct step *st, struct step_result *sr,
		      int64_t deadline, int64_t *settled_ms)
{
	int64_t win[RSS_STEADY_SAMPLES], lo, hi, t0 = loop_now(c->vm.loop);
	unsigned n = 0;
	int ret;

	for (;;) {
		ret = proc_rss(vm_pid(&c->vm), &win[n++ % RSS_STEADY_SAMPLES]);
		if (ret) {
			mem_fail(sr, ST_ERROR,
				 xasprintf("cannot read QEMU's RSS (pid %d): %s", vm_pid(&c->vm),
					   strerror(-ret)));
			return ret;
		}
		if (rss_steady(win, n, &lo, &hi))
			break;
		if (loop_now(c->vm.loop) + MEM_SAMPLE_MS > t0 + st->settle_ms) {
			mem_fail(sr, ST_FAIL,
				 xasprintf("QEMU's RSS did not settle within %s: it still moved "
					   "%lld MB over the last %d samples (%lld..%lld MB)",
					   st->settle, (long long)((hi - lo) / MIB),
					   RSS_STEADY_SAMPLES, (long long)(lo / MIB),
					   (long long)(hi / MIB)));
			return -EAGAIN;
		}
		ret = mem_sleep(c, MEM_SAMPLE_MS, deadline);
		if (ret) {
			step_wait_failed(c, sr, ret, st);
			return ret;
		}
	}
	*settled_ms = loop_now(c->vm.loop) - t0;
	return 0;
}

static void step_measure(struct run_ctx *c, const struct step *st, struct step_result *sr,
			 int64_t deadline)
{
	int64_t t0 = loop_now(c->vm.loop), until, rss = 0, settled_ms = 0;
	struct rss_sample r = { 0 };
	json_t *base;
	int ret;

	if (c->vm.cfg.libvirt_uri) {
		mem_fail(sr, ST_ERROR,
			 xasprintf("measure: qemu_rss reads the QEMU process on this host; the "
				   "libvirt backend's QEMU is libvirt's: run with --backend qemu"));
		return;
	}
	if (st->settle && rss_settle(c, st, sr, deadline, &settled_ms))
		return;
	until = loop_now(c->vm.loop) + st->within_ms;
	for (;;) {
		ret = proc_rss(vm_pid(&c->vm), &rss);
		if (ret) {
			mem_fail(sr, ST_ERROR,
				 xasprintf("cannot read QEMU's RSS (pid %d): %s", vm_pid(&c->vm),
					   strerror(-ret)));
			return;
		}
		r.min_rss = r.samples++ && r.min_rss < rss ? r.min_rss : rss;
		r.rss = rss;
		r.waited_ms = loop_now(c->vm.loop) - t0;
		r.settled_ms = st->settle ? settled_ms : -1;
		base = st->since ? json_object_get(rss_saved(c), st->since) : NULL;
		if (measure_judge(sr, measure_json(&r, st->since, base), st->expect,
				  loop_now(c->vm.loop), until))
			break;
		ret = mem_sleep(c, MEM_SAMPLE_MS, deadline);
		if (ret) {
			step_wait_failed(c, sr, ret, st);
			return;
		}
	}
	if (st->as)
		json_object_set_new(rss_saved(c), st->as, json_integer(rss / MIB));
	measure_within_note(sr, r.samples, st->within);
}

const struct step_ops step_balloon_ops = { STEP_BALLOON, step_balloon };
const struct step_ops step_measure_ops = { STEP_MEASURE, step_measure };
