#include "parallel.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "spawn.h"
#include "util.h"

struct pool {
	struct scenario *const *items;
	const unsigned *attempts;
	size_t n;
	const struct run_opts *o;
	struct scenario_result *out;
	struct child_process *kids; /* pid 0: not started or reaped */
	bool *done;
	size_t next, running, printed;
	parallel_done_fn cb;
	void *ctx;
	struct hosts *hosts; /* NULL: the qemu backend */
	int *host;	     /* the host items[i] runs on */
	size_t *retry;	     /* items to run again after a host failed */
	size_t nretry;
	int forwarded; /* the signal passed on to the workers, 0: none yet */
};

/* The worker's exit status when its libvirt host failed. */
#define WORKER_HOST_FAILED 3

/* What a worker runs. */
struct worker_args {
	const struct scenario *s;
	const struct run_opts *o;
	unsigned attempt;
	const char *uri;
};

/* The child: its own signal pipe, no progress lines. It dies with the parent
 * (the one policy: SIGKILL; the guardian cleans up after it) and has its own
 * process group, so a terminal's Ctrl-C reaches the parent only, which passes
 * it on. start_async _exits with what this returns: the parent's stdio
 * buffers and heap are not ours. */
static int worker(void *arg)
{
	const struct worker_args *a = arg;
	struct run_opts wo = *a->o;
	struct scenario_result r;
	int ret;

	wo.sig_fd = proc_signals_reinstall();
	wo.progress = NULL;
	wo.attempt = a->attempt;
	if (a->uri)
		wo.libvirt_uri = a->uri;
	ret = runner_run_scenario(a->s, &wo, &r);
	scenario_result_free(&r);
	return ret == -EINTR ? 130 : ret == -EHOSTDOWN ? WORKER_HOST_FAILED : 0;
}

/* Start the next scenario (a retried one first): 0, -EBUSY when every live
 * host is full, -EHOSTDOWN when no host is left, or -errno. */
static int pool_start(struct pool *p)
{
	bool retry = p->nretry > 0;
	size_t i = retry ? p->retry[0] : p->next;
	int h = p->hosts ? hosts_acquire(p->hosts) : -1;
	struct worker_args a = { p->items[i], p->o, p->attempts ? p->attempts[i] : 0, NULL };
	int ret;

	if (p->hosts && h < 0)
		return h;
	if (p->hosts)
		a.uri = p->hosts->h[h].uri;
	p->kids[i] = (struct child_process){ .own_group = true };
	ret = start_async(&p->kids[i], worker, &a);
	if (ret) {
		p->kids[i].pid = 0;
		if (p->hosts)
			hosts_release(p->hosts, h);
		return ret;
	}
	if (p->host)
		p->host[i] = h;
	if (retry)
		memmove(p->retry, p->retry + 1, --p->nretry * sizeof(*p->retry));
	else
		p->next++;
	p->running++;
	return 0;
}

void result_placeholder(struct scenario_result *r, const struct scenario *s, unsigned attempt,
			enum status st, char *message)
{
	memset(r, 0, sizeof(*r));
	r->name = attempt ? xasprintf("%s#%u", s->name, attempt) : xstrdup(s->name);
	r->attempt = attempt;
	r->file = xstrdup(s->file);
	r->summary = xstrdup(s->summary);
	r->tags = xcalloc(s->tags_count + 1, sizeof(char *));
	for (unsigned t = 0; t < s->tags_count; t++)
		r->tags[r->tags_count++] = xstrdup(s->tags[t]);
	r->metrics = json_object();
	r->status = st;
	r->message = message;
}

static char *result_path(const struct pool *p, size_t i)
{
	struct run_opts o = *p->o;
	char *dir, *path;

	o.attempt = p->attempts ? p->attempts[i] : 0;
	dir = runner_artifacts_dir(&o, p->items[i]);
	path = xasprintf("%s/result.json", dir);
	free(dir);
	return path;
}

/* The worker's host failed: take the host out (its result.json says why)
 * and queue the scenario again. */
static void pool_host_failed(struct pool *p, size_t i)
{
	char *path = result_path(p, i);
	json_t *doc = json_load_file(path, 0, NULL);
	const char *why = json_string_value(json_object_get(doc, "message"));

	if (!p->hosts->h[p->host[i]].out)
		msg_err("libvirt host %s taken out: %s", p->hosts->h[p->host[i]].uri,
			why ? why : "its worker gave no reason");
	hosts_take_out(p->hosts, p->host[i], why);
	if (p->attempts)
		msg_err("%s#%u will run on another host", p->items[i]->name, p->attempts[i]);
	else
		msg_err("%s will run on another host", p->items[i]->name);
	p->retry[p->nretry++] = i;
	json_decref(doc);
	free(path);
}

/* Read the worker's result.json; a worker that died without one is an error. */
static void pool_collect(struct pool *p, size_t i, int wstatus)
{
	const struct scenario *s = p->items[i];
	struct run_opts o = *p->o;
	char *path;
	json_t *doc;

	o.attempt = p->attempts ? p->attempts[i] : 0;
	if (p->hosts) {
		if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == WORKER_HOST_FAILED) {
			pool_host_failed(p, i);
			return;
		}
		hosts_release(p->hosts, p->host[i]);
	}
	path = result_path(p, i);
	doc = json_load_file(path, 0, NULL);
	if (!doc || scenario_result_from_json(doc, &p->out[i]))
		result_placeholder(
		    &p->out[i], s, o.attempt, ST_ERROR,
		    WIFSIGNALED(wstatus)
			? xasprintf("the worker was killed by signal %d", WTERMSIG(wstatus))
			: xasprintf("the worker left no result (%s)", path));
	json_decref(doc);
	free(path);
	p->done[i] = true;
	while (p->printed < p->n && p->done[p->printed])
		p->cb(p->ctx, p->printed++);
}

static void pool_forward(struct pool *p, int sig)
{
	for (size_t i = 0; i < p->next; i++)
		if (p->kids[i].pid > 0)
			kill(p->kids[i].pid, sig);
}

/* Pass a signal on to the workers once, the one ktb got (Ctrl-C stays
 * SIGINT), whenever it is noticed. */
static void pool_pass_signal(struct pool *p)
{
	int sig = proc_interrupted();

	if (sig && !p->forwarded) {
		p->forwarded = sig;
		pool_forward(p, sig);
	}
}

/* Reap the workers that have ended. Waiting is on the signal pipe with a
 * short tick rather than in waitpid(), so a signal that arrives just before
 * the wait still ends it at once; ktb's other children (the guardian) are
 * never reaped here. */
static int pool_reap(struct pool *p)
{
	struct pollfd pf = { p->o->sig_fd, POLLIN, 0 };
	bool reaped = false;
	int wstatus;
	char c;

	for (size_t i = 0; i < p->next; i++) {
		/* reaped behind our back (status 0): its result.json says what it did */
		if (p->kids[i].pid <= 0 || !poll_command(&p->kids[i]))
			continue;
		wstatus = p->kids[i].status;
		p->kids[i].pid = 0;
		p->running--;
		reaped = true;
		pool_collect(p, i, wstatus);
	}
	pool_pass_signal(p);
	if (!reaped && poll(&pf, pf.fd >= 0, 50) > 0)
		while (read(pf.fd, &c, 1) == 1)
			;
	pool_pass_signal(p);
	return 0;
}

static void pool_placeholder(struct pool *p, size_t i)
{
	char *out;

	if (!p->hosts || proc_interrupted()) {
		result_placeholder(
		    &p->out[i], p->items[i], p->attempts ? p->attempts[i] : 0, ST_SKIP,
		    xasprintf("not run: interrupted by signal %d", proc_interrupted()));
	} else {
		out = hosts_describe_out(p->hosts);
		result_placeholder(&p->out[i], p->items[i], p->attempts ? p->attempts[i] : 0,
				   ST_ERROR, xasprintf("not run: no libvirt host left (%s)", out));
		free(out);
	}
	p->done[i] = true;
}

/* Scenarios a signal kept from starting are skips, reported in order; with
 * no libvirt host left, errors. */
static void pool_skip_rest(struct pool *p)
{
	for (size_t k = 0; k < p->nretry; k++)
		pool_placeholder(p, p->retry[k]);
	p->nretry = 0;
	for (size_t i = p->next; i < p->n; i++)
		pool_placeholder(p, i);
	while (p->printed < p->n && p->done[p->printed])
		p->cb(p->ctx, p->printed++);
}

static int run_pool(struct pool *p, unsigned jobs)
{
	int ret = 0;

	p->kids = xcalloc(p->n, sizeof(*p->kids));
	p->done = xcalloc(p->n, sizeof(*p->done));
	p->host = p->hosts ? xcalloc(p->n, sizeof(*p->host)) : NULL;
	p->retry = xcalloc(p->n, sizeof(*p->retry));
	while (p->next < p->n || p->nretry || p->running) {
		while (!ret && !proc_interrupted() && p->running < jobs &&
		       (p->next < p->n || p->nretry))
			ret = pool_start(p);
		/* hosts full: wait for a worker; no host left: the rest are errors */
		if (ret == -EBUSY || (ret == -EHOSTDOWN && p->running))
			ret = 0;
		if (!p->running)
			break;
		if (pool_reap(p) < 0)
			break;
	}
	pool_skip_rest(p);
	free(p->kids);
	free(p->done);
	free(p->host);
	free(p->retry);
	if (ret && ret != -EHOSTDOWN)
		return ret;
	return proc_interrupted() ? -EINTR : 0;
}

int parallel_run(struct scenario *const *items, const unsigned *attempts, size_t n,
		 const struct run_opts *o, unsigned jobs, struct scenario_result *out,
		 parallel_done_fn done, void *ctx)
{
	return parallel_run_hosts(items, attempts, n, o, jobs, NULL, out, done, ctx);
}

int parallel_run_hosts(struct scenario *const *items, const unsigned *attempts, size_t n,
		       const struct run_opts *o, unsigned jobs, struct hosts *hosts,
		       struct scenario_result *out, parallel_done_fn done, void *ctx)
{
	struct pool p = { .items = items,
			  .attempts = attempts,
			  .n = n,
			  .o = o,
			  .out = out,
			  .cb = done,
			  .ctx = ctx,
			  .hosts = hosts };

	return run_pool(&p, jobs);
}
