/* ktb bisect's session: the child processes that build and judge
 * candidates (each in its own process group, output to its step's log), the
 * steps as printed and kept, and the judge's command line. Shared by the
 * --kernels ladder (cli_bisect.c) and the --git mode (cli_bisect_git.c). */
#include "cli_bisect_session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "spawn.h"
#include "util.h"

/* --------------------------------------------------------------------- */
/* child processes: each in its own process group, output to a log */

pid_t session_spawn(struct child *ch, char *const argv[], const char *cwd, const char *log)
{
	/* a judge killed with its bisect: its own guardian cleans up after it */
	ch->cp = (struct child_process){
		.argv = argv,
		.dir = cwd,
		.in.how = SPAWN_NULL,
		.out = { .how = SPAWN_FILE, .path = log },
		.err.how = SPAWN_STDOUT,
		.own_group = true,
	};
	int ret = start_command(&ch->cp);
	FILE *f;

	if (!ret)
		return ch->cp.pid;
	f = fopen(log, "a");
	if (f) {
		fprintf(f, "ktb bisect: cannot run %s: %s\n", argv[0], strerror(-ret));
		fclose(f);
	}
	ch->cp.pid = -1;
	return -1;
}

/* The children's processes, as cli_common's waits take them. */
static struct child_process **child_cps(struct child *ch, size_t n)
{
	struct child_process **cps = xcalloc(n ? n : 1, sizeof(*cps));

	for (size_t i = 0; i < n; i++)
		cps[i] = &ch[i].cp;
	return cps;
}

void session_stop(struct child *ch, size_t n)
{
	struct child_process **cps = child_cps(ch, n);

	cli_stop_children(cps, n, -1);
	free(cps);
}

struct judges {
	struct session *s;
	struct child *ch;
	child_done_fn done;
};

static void judge_ended(void *arg, size_t i, int code)
{
	struct judges *j = arg;

	j->ch[i].code = code;
	if (j->done)
		j->done(j->s, &j->ch[i], code);
}

/* Wait for every child; done() is called as each one ends. 0, or -EINTR
 * after SIGINT/SIGTERM (the children are stopped first). */
int session_wait(struct session *s, struct child *ch, size_t n, child_done_fn done)
{
	struct child_process **cps = child_cps(ch, n);
	struct judges j = { s, ch, done };
	int ret;

	ret = cli_wait_children(cps, n, -1, judge_ended, &j);
	free(cps);
	return ret;
}

/* --------------------------------------------------------------------- */
/* steps: what is printed and kept */

/* A new step numbered num (0: the next one). */
struct bisect_step *session_step_new(struct session *s, const char *name, size_t num)
{
	struct bisect_step *st;

	s->steps = xrealloc(s->steps, (s->nsteps + 1) * sizeof(*s->steps));
	st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof(*st));
	st->num = num ? num : s->nsteps;
	st->name = xstrdup(name);
	st->round = s->rounds;
	st->log = xasprintf("%s/%02zu.log", s->dir, st->num);
	return st;
}

void step_print(FILE *f, const struct bisect_step *st)
{
	/* --metric: tested, and like neither end yet */
	const char *v = st->verdict == BISECT_UNKNOWN && st->runs
			    ? "undecided"
			    : bisect_verdict_name(st->verdict);

	fprintf(f, "step %2zu  round %u  %-24s %-4s %7.1fs", st->num, st->round, st->name, v,
		(double)st->ms / 1000.0);
	if (st->boots)
		fprintf(f, "  %u boot%s", st->boots, st->boots == 1 ? "" : "s");
	/* an image that cannot be built is explained above, not in a log */
	if (st->verdict == BISECT_SKIP)
		fprintf(f, "  (could not test: %s; %s)",
			st->why ? st->why : "the run ended in error",
			access(st->log, F_OK) ? "see above" : st->log);
	else if (st->verdict == BISECT_ABORT)
		fprintf(f, "  (exit %d; %s)", st->code, st->log);
	fputc('\n', f);
	fflush(f);
}

void steps_free(struct session *s)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		free(s->steps[i].name);
		free(s->steps[i].log);
		free(s->steps[i].samples);
	}
	free(s->steps);
}

/* argv of the judge: ktb run [--kernel K ...] --artifacts DIR SCENARIO */
char **session_judge_argv(const struct session *s, const char *kernel, const char *json)
{
	const struct bisect_cli *c = s->c;
	char **v = xcalloc(20, sizeof(char *));
	int n = 0;

	v[n++] = s->self;
	v[n++] = "run";
	v[n++] = "--kernel";
	v[n++] = (char *)kernel;
	if (c->k.modules) {
		v[n++] = "--modules";
		v[n++] = (char *)c->k.modules;
	}
	if (c->k.recipe) {
		v[n++] = "--recipe";
		v[n++] = (char *)c->k.recipe;
	}
	if (c->append) {
		v[n++] = "--append";
		v[n++] = (char *)c->append;
	}
	if (c->tries > 1) {
		v[n++] = "--repeat";
		v[n++] = (char *)s->tries;
	}
	if (json) {
		v[n++] = "--json";
		v[n++] = (char *)json;
	}
	v[n++] = "--artifacts";
	v[n++] = s->dir;
	v[n++] = c->scenario;
	return v;
}

void session_judge_done(struct session *s, struct child *ch, int code)
{
	struct bisect_step *st = &s->steps[ch->step];

	st->code = code;
	st->verdict = bisect_verdict_of_exit(code);
	st->ms = now_ms() - ch->t0;
	step_print(s->out, st);
}
