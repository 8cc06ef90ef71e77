#include "parallel.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

struct pool {
	struct scenario *const *items;
	const unsigned *attempts;
	size_t n;
	const struct run_opts *o;
	struct scenario_result *out;
	pid_t *pids;             /* 0: not started or reaped */
	bool *done;
	size_t next, running, printed;
	parallel_done_fn cb;
	void *ctx;
};

/* The child: its own signal pipe, no progress lines, and it dies with the
 * parent. _exit, because the parent's stdio buffers and heap are not ours. */
static void worker(const struct scenario *s, const struct run_opts *o, unsigned attempt)
{
	struct run_opts wo = *o;
	struct scenario_result r;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	wo.sig_fd = proc_signals_reinstall();
	wo.progress = NULL;
	wo.attempt = attempt;
	ret = runner_run_scenario(s, &wo, &r);
	scenario_result_free(&r);
	_exit(ret == -EINTR ? 130 : 0);
}

static int pool_start(struct pool *p)
{
	size_t i = p->next;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		worker(p->items[i], p->o, p->attempts ? p->attempts[i] : 0);
	p->pids[i] = pid;
	p->next++;
	p->running++;
	return 0;
}

static void result_placeholder(struct scenario_result *r, const struct scenario *s,
			       unsigned attempt, enum status st, char *message)
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

/* Read the worker's result.json; a worker that died without one is an error. */
static void pool_collect(struct pool *p, size_t i, int wstatus)
{
	const struct scenario *s = p->items[i];
	struct run_opts o = *p->o;
	char *dir, *path;
	json_t *doc;

	o.attempt = p->attempts ? p->attempts[i] : 0;
	dir = runner_artifacts_dir(&o, s);
	path = xasprintf("%s/result.json", dir);
	free(dir);
	doc = json_load_file(path, 0, NULL);
	if (!doc || scenario_result_from_json(doc, &p->out[i]))
		result_placeholder(&p->out[i], s, o.attempt, ST_ERROR,
				   WIFSIGNALED(wstatus)
					   ? xasprintf("the worker was killed by signal %d",
						       WTERMSIG(wstatus))
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
		if (p->pids[i] > 0)
			kill(p->pids[i], sig);
}

static int pool_reap(struct pool *p)
{
	int wstatus;
	pid_t pid = waitpid(-1, &wstatus, 0);

	if (pid < 0) {
		if (errno == EINTR && proc_interrupted())
			pool_forward(p, SIGTERM);
		return errno == EINTR ? 0 : -errno;
	}
	for (size_t i = 0; i < p->next; i++) {
		if (p->pids[i] != pid)
			continue;
		p->pids[i] = 0;
		p->running--;
		pool_collect(p, i, wstatus);
	}
	return 0;
}

/* Scenarios a signal kept from starting are skips, reported in order. */
static void pool_skip_rest(struct pool *p)
{
	for (size_t i = p->next; i < p->n; i++) {
		result_placeholder(&p->out[i], p->items[i], p->attempts ? p->attempts[i] : 0, ST_SKIP,
				   xstrdup("not run: interrupted"));
		p->done[i] = true;
	}
	while (p->printed < p->n && p->done[p->printed])
		p->cb(p->ctx, p->printed++);
}

int parallel_run(struct scenario *const *items, const unsigned *attempts, size_t n,
		 const struct run_opts *o, unsigned jobs, struct scenario_result *out,
		 parallel_done_fn done, void *ctx)
{
	struct pool p = {.items = items, .attempts = attempts, .n = n, .o = o, .out = out,
			 .cb = done, .ctx = ctx};
	int ret = 0;

	p.pids = xcalloc(n, sizeof(*p.pids));
	p.done = xcalloc(n, sizeof(*p.done));
	while (p.next < n || p.running) {
		while (!ret && !proc_interrupted() && p.running < jobs && p.next < n)
			ret = pool_start(&p);
		if (!p.running)
			break;
		if (pool_reap(&p) < 0)
			break;
	}
	pool_skip_rest(&p);
	free(p.pids);
	free(p.done);
	if (ret)
		return ret;
	return proc_interrupted() ? -EINTR : 0;
}
