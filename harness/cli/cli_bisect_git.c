/* ktb bisect --git: the endpoints checked out and judged here, then
 * `git bisect start` and `git bisect run` with `ktb bisect --git-step` as the
 * command, which builds and judges one commit and appends it to steps.txt. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_bisect_git.h"
#include "cli_bisect_metric.h"
#include "proc.h"
#include "spawn.h"
#include "util.h"

/* Run git -C DIR ARGS... (NULL-terminated), no shell; its standard output,
 * trimmed, into *out when out. 0, or -EIO when git failed. */
static int git(const char *dir, char **out, ...) __attribute__((sentinel));

static int git(const char *dir, char **out, ...)
{
	const char *argv[16] = { "git", "-C", dir };
	struct child_process cp = { .argv = (char *const *)argv,
				    .in.how = SPAWN_NULL,
				    .err.how = SPAWN_NULL,
				    .own_group = true };
	struct spawn_buf buf = { 0 };
	size_t n = 3;
	va_list ap;
	int st;

	va_start(ap, out);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	st = pipe_command(&cp, NULL, 0, &buf, NULL, -1);
	if (buf.buf)
		str_trim(buf.buf, "\n ");
	if (out)
		*out = xstrdup(buf.buf ? buf.buf : "");
	free(buf.buf);
	return st == 0 ? 0 : -EIO;
}

/* A revision of the tree as a full commit id in *sha, or exit 2. */
static int git_resolve(const char *dir, const char *rev, const char *what, char **sha)
{
	char *spec = xasprintf("%s^{commit}", rev);
	int r = git(dir, sha, "rev-parse", "--verify", "-q", spec, NULL);

	free(spec);
	if (r || !**sha) {
		fprintf(stderr, "ktb bisect: %s %s: no such commit in %s\n", what, rev, dir);
		free(*sha);
		*sha = NULL;
		return KTB_EXIT_USAGE;
	}
	return 0;
}

int bisect_git_validate(struct bisect_cli *c)
{
	char *top = NULL;
	int r;

	if (!c->good || !c->bad || !c->build) {
		fprintf(stderr, "ktb bisect: --git needs --good A, --bad B and --build CMD\n");
		return KTB_EXIT_USAGE;
	}
	if (c->jobs > 2) {
		fprintf(stderr,
			"ktb bisect: -j %d: multisection works with --kernels; git bisect "
			"tests one commit at a time\n",
			c->jobs);
		return KTB_EXIT_USAGE;
	}
	if (!c->k.kernel)
		c->k.kernel = ".";
	r = git(c->git, &top, "rev-parse", "--show-toplevel", NULL);
	free(top);
	if (r) {
		fprintf(stderr, "ktb bisect: --git %s: not a git work tree\n", c->git);
		return KTB_EXIT_USAGE;
	}
	if (git_resolve(c->git, c->good, "--good", &c->good_sha) ||
	    git_resolve(c->git, c->bad, "--bad", &c->bad_sha))
		return KTB_EXIT_USAGE;
	return 0;
}

/* One commit: build it, judge it. The verdict goes into st. */
static int git_test_head(struct session *s, struct bisect_step *st)
{
	const struct bisect_cli *c = s->c;
	char *build[] = { "sh", "-c", (char *)c->build, NULL };
	struct child ch = { .t0 = now_ms(), .step = (size_t)(st - s->steps) };

	session_spawn(&ch, build, c->git, st->log);
	if (ch.cp.pid > 0 && session_wait(s, &ch, 1, NULL))
		return KTB_EXIT_INTERRUPTED;
	if (ch.cp.pid < 0 || ch.code) {
		st->verdict = BISECT_SKIP;
		st->code = ch.cp.pid < 0 ? 125 : ch.code;
		st->why = "--build failed";
		st->ms = now_ms() - ch.t0;
		return 0;
	}
	/* --metric: the parent samples the ends, each step judges one commit */
	if (c->metric) {
		st->ms = now_ms() - ch.t0;
		return c->git_step ? metric_judge_candidate(s, st, c->k.kernel, c->git)
				   : metric_sample(s, st, c->k.kernel, c->git);
	}
	char **argv = session_judge_argv(s, c->k.kernel, NULL);

	session_spawn(&ch, argv, c->git, st->log);
	free(argv);
	st->boots = (unsigned)(c->tries > 1 ? c->tries : 1);
	if (ch.cp.pid < 0)
		return KTB_EXIT_UNTESTED;
	if (session_wait(s, &ch, 1, session_judge_done))
		return KTB_EXIT_INTERRUPTED;
	return 0;
}

static int git_exit(enum bisect_verdict v)
{
	/* git bisect run: 0 good, 1 bad, 125 skip, 128 and above stop it */
	return v == BISECT_GOOD ? 0 : v == BISECT_BAD ? 1 : v == BISECT_SKIP ? 125 : 128;
}

/* The steps file: one line per tested commit, "VERDICT CODE MS BOOTS NAME". */
static void step_save(const char *file, const struct bisect_step *st)
{
	FILE *f = fopen(file, "a");

	if (!f)
		return;
	fprintf(f, "%s %d %lld %u %s\n", bisect_verdict_name(st->verdict), st->code,
		(long long)st->ms, st->boots, st->name);
	fclose(f);
}

static size_t steps_count(const char *file)
{
	char *text = read_file(file, NULL);
	size_t n = 0;

	for (char *p = text; p && *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

/* Test HEAD as step number `num` (which names its log) and print it. */
static int git_step_one(struct session *s, size_t num, struct bisect_step **out)
{
	char *name = NULL;
	struct bisect_step *st;
	int r;

	git(s->c->git, &name, "log", "-1", "--format=%h %s", NULL);
	st = session_step_new(s, name, num);
	free(name);
	st->round = num > 2 ? (unsigned)num - 2 : 0;
	r = git_test_head(s, st);
	if (s->c->metric && s->c->git_step && !r)
		metric_step_print(s, st);
	else if (!s->c->metric && st->verdict == BISECT_SKIP)
		step_print(s->out, st);
	*out = st;
	return r;
}

/* Internal: `git bisect run` calls `ktb bisect --git-step STEPS:FD ...`
 * for each commit; the line goes to FD, where the parent prints its step
 * lines (standard output; standard error with --json -). */
int bisect_git_step(struct session *s)
{
	char *steps = xstrdup(s->c->git_step), *colon = strrchr(steps, ':');
	struct bisect_step *st;
	int fd, r;

	if (!colon)
		return 128;
	*colon = '\0';
	fd = atoi(colon + 1);
	s->out = fdopen(dup(fd), "w");
	if (!s->out)
		s->out = stderr;
	if (s->c->metric && metric_ends_load(s)) {
		free(steps);
		return 128;
	}
	r = git_step_one(s, steps_count(steps) + 1, &st);
	step_save(steps, st);
	if (s->c->metric)
		metric_step_save(s, st);
	if (s->out != stderr)
		fclose(s->out);
	free(steps);
	return r ? 128 : git_exit(st->verdict);
}

/* Read back the steps the --git-step children saved. */
static void steps_load(struct session *s, const char *file)
{
	char *text = read_file(file, NULL), *save = NULL, *line;
	size_t num = 0;

	steps_free(s);
	s->steps = NULL;
	s->nsteps = 0;
	s->boots = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char verdict[16];
		long long ms;
		int code, name_at = 0;
		unsigned boots;

		if (sscanf(line, "%15s %d %lld %u %n", verdict, &code, &ms, &boots, &name_at) < 4)
			continue;
		struct bisect_step *st = session_step_new(s, line + name_at, 0);

		st->code = code;
		st->ms = ms;
		st->boots = boots;
		num++;
		st->round = num > 2 ? (unsigned)num - 2 : 0;
		for (int v = BISECT_UNKNOWN; v <= BISECT_ABORT; v++)
			if (!strcmp(verdict, bisect_verdict_name(v)))
				st->verdict = v;
		s->boots += boots;
		if (s->c->metric)
			metric_step_load(s, st);
	}
	s->rounds = num > 2 ? (unsigned)num - 2 : 0;
	free(text);
}

/* rev checked out, detached; -1 after a message */
static int git_checkout(const struct session *s, const char *rev)
{
	if (!git(s->c->git, NULL, "checkout", "-q", "--detach", rev, NULL))
		return 0;
	fprintf(stderr, "ktb bisect: cannot check out %s in %s (uncommitted changes?)\n", rev,
		s->c->git);
	return -1;
}

/* --metric: A then B checked out, built and sampled; B, still checked
 * out, sampled again until the two differ or its runs are spent. */
static int git_metric_ends(struct session *s, const char *steps, const char *good, const char *bad)
{
	const char *rev[2] = { good, bad }, *opt[2] = { "--good", "--bad" };
	struct bisect_step *st;
	size_t at[2] = { 0, 0 };
	int r = 0, stop = -1, n = 0;

	for (int i = 0; i < 2 && !r && stop < 0; i++, n++) {
		if (git_checkout(s, rev[i]))
			return KTB_EXIT_UNTESTED;
		r = git_step_one(s, (size_t)i + 1, &st);
		at[i] = (size_t)(st - s->steps);
		if (!r && st->verdict != BISECT_UNKNOWN)
			stop = i;
	}
	while (!r && stop < 0) {
		metric_ends_update(s, &s->steps[at[0]], &s->steps[at[1]]);
		if (s->ends.ok || !metric_more(&s->steps[at[1]]))
			break;
		st = &s->steps[at[1]];
		r = metric_sample(s, st, s->c->k.kernel, s->c->git);
		if (!r && st->verdict != BISECT_UNKNOWN)
			stop = 1;
	}
	if (r)
		return r;
	if (stop < 0 && s->ends.ok) {
		s->steps[at[0]].verdict = BISECT_GOOD;
		s->steps[at[1]].verdict = BISECT_BAD;
	}
	for (int i = 0; i < n; i++) {
		metric_step_print(s, &s->steps[at[i]]);
		step_save(steps, &s->steps[at[i]]);
		metric_step_save(s, &s->steps[at[i]]);
	}
	if (stop >= 0 && s->steps[at[stop]].verdict == BISECT_ABORT)
		return s->steps[at[stop]].code == KTB_EXIT_USAGE ? KTB_EXIT_USAGE
								 : KTB_EXIT_UNTESTED;
	if (stop >= 0) {
		fprintf(s->out, "ktb bisect: could not test %s %s\n", opt[stop],
			stop ? s->c->bad : s->c->good);
		return KTB_EXIT_UNTESTED;
	}
	if (!s->ends.ok)
		return metric_ends_fail(s, s->c->good, s->c->bad);
	return metric_ends_save(s) ? KTB_EXIT_UNTESTED : 0;
}

/* Check out A then B and test them, as --kernels does with its ends. */
static int git_ends(struct session *s, const char *steps, const char *good, const char *bad)
{
	enum bisect_verdict v[2] = { BISECT_UNKNOWN, BISECT_UNKNOWN };
	const char *rev[2] = { good, bad };
	struct bisect_step *st;
	int r = 0;

	for (int i = 0; i < 2 && !r; i++) {
		if (git_checkout(s, rev[i]))
			return KTB_EXIT_UNTESTED;
		r = git_step_one(s, (size_t)i + 1, &st);
		step_save(steps, st);
		v[i] = st->verdict;
		if (v[0] == BISECT_BAD)
			break;
	}
	if (r)
		return r;
	switch (bisect_check_ends(v[0], v[1])) {
	case BISECT_ENDS_OK:
		return 0;
	case BISECT_ENDS_FIRST_NOT_GOOD:
		fprintf(s->out, "ktb bisect: --good %s is not good: the scenario fails on it\n",
			s->c->good);
		return KTB_EXIT_FAIL;
	case BISECT_ENDS_LAST_NOT_BAD:
		fprintf(s->out, "ktb bisect: --bad %s is not bad: the scenario passes on it%s\n",
			s->c->bad, s->c->tries > 1 ? "" : " (a flaky regression? try --tries N)");
		return KTB_EXIT_FAIL;
	default:
		fprintf(s->out, "ktb bisect: could not test --%s %s\n",
			v[0] == BISECT_SKIP ? "good" : "bad",
			v[0] == BISECT_SKIP ? s->c->good : s->c->bad);
		return KTB_EXIT_UNTESTED;
	}
}

static char **git_run_argv(const struct session *s, const char *steps, int fd, const char *good,
			   const char *bad)
{
	const struct bisect_cli *c = s->c;
	char **v = xcalloc(40, sizeof(char *));
	int n = 0;

#define ADD(x) (v[n++] = (x))
	ADD(xstrdup("git"));
	ADD(xstrdup("bisect"));
	ADD(xstrdup("run"));
	ADD(xstrdup(s->self));
	ADD(xstrdup("bisect"));
	ADD(xasprintf("--git-step=%s:%d", steps, fd));
	ADD(xasprintf("--git=%s", c->git));
	ADD(xasprintf("--good=%s", good));
	ADD(xasprintf("--bad=%s", bad));
	ADD(xasprintf("--build=%s", c->build));
	ADD(xasprintf("--kernel=%s", c->k.kernel));
	ADD(xasprintf("--artifacts=%s", s->dir));
	ADD(xasprintf("--tries=%d", c->tries > 1 ? c->tries : 1));
	if (c->metric) {
		ADD(xasprintf("--metric=%s", c->metric_arg));
		ADD(xasprintf("--threshold=%.17g", c->mo.threshold));
		ADD(xasprintf("--confidence=%.17g", c->mo.confidence));
	}
	if (c->k.modules)
		ADD(xasprintf("--modules=%s", c->k.modules));
	if (c->k.recipe)
		ADD(xasprintf("--recipe=%s", c->k.recipe));
	if (c->append)
		ADD(xasprintf("--append=%s", c->append));
	ADD(xstrdup(c->scenario));
#undef ADD
	return v;
}

/* git bisect run's own words for the result: "SHA is the first bad commit",
 * or the list after "could be any of:". */
static int git_verdict(struct session *s, const char *log, json_t *j)
{
	char *text = read_file(log, NULL), *p, *sha = NULL;
	int r = KTB_EXIT_UNTESTED;

	if (text && (p = strstr(text, " is the first bad commit"))) {
		char *b = p;

		while (b > text && b[-1] != '\n')
			b--;
		sha = xasprintf("%.*s", (int)(p - b), b);
		git(s->c->git, &p, "log", "-1", "--format=%h %s", sha, NULL);
		fprintf(s->out, "first bad: %s\n", p);
		json_object_set_new(j, "first_bad", json_string(sha));
		free(p);
		r = 0;
	} else if (text && (p = strstr(text, "could be any of:\n"))) {
		json_t *any = json_array();

		p += strlen("could be any of:\n");
		fprintf(s->out, "first bad: one of (the others could not be tested)\n");
		for (char *e; *p && (e = strchr(p, '\n')) && e - p >= 7 && !strchr(" W", *p);
		     p = e + 1) {
			fprintf(s->out, "  %.*s\n", (int)(e - p), p);
			json_array_append_new(any, json_stringn(p, (size_t)(e - p)));
		}
		json_object_set_new(j, "first_bad", json_null());
		json_object_set_new(j, "first_bad_any_of", any);
	} else {
		fprintf(s->out, "ktb bisect: git bisect run did not finish; see %s\n", log);
	}
	free(sha);
	free(text);
	return r;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* git bisect start, then git bisect run (unless start found the commit). */
static int git_bisect(struct session *s, const char *steps, const char *good, const char *bad,
		      json_t *j)
{
	char *log = xasprintf("%s/git-bisect.log", s->dir), *started = NULL;
	int fd = dup(fileno(s->out)), r = KTB_EXIT_UNTESTED;
	char **argv = git_run_argv(s, steps, fd, good, bad);
	struct child ch = { .t0 = now_ms() };

	if (git(s->c->git, &started, "bisect", "start", bad, good, NULL)) {
		fprintf(stderr, "ktb bisect: git bisect start failed in %s\n", s->c->git);
		goto out;
	}
	write_file(log, started, strlen(started));
	fflush(s->out);
	if (!strstr(started, "is the first bad commit"))
		session_spawn(&ch, argv, s->c->git, log);
	while (ch.cp.pid > 0 && !wait_command(&ch.cp, 200))
		if (proc_interrupted()) {
			session_stop(&ch, 1);
			r = KTB_EXIT_INTERRUPTED;
			goto reset;
		}
	steps_load(s, steps);
	r = git_verdict(s, log, j);
reset:
	git(s->c->git, NULL, "bisect", "reset", NULL);
out:
	if (fd >= 0)
		close(fd);
	strv_free(argv);
	free(started);
	free(log);
	return r;
}

int bisect_git_main(struct session *s, json_t *j)
{
	char *good = s->c->good_sha, *bad = s->c->bad_sha, *orig = NULL,
	     *steps = xasprintf("%s/steps.txt", s->dir);
	int r;

	json_object_set_new(j, "mode", json_string("git"));
	if (git(s->c->git, &orig, "symbolic-ref", "-q", "--short", "HEAD", NULL) || !*orig) {
		free(orig);
		git(s->c->git, &orig, "rev-parse", "HEAD", NULL);
	}
	fprintf(s->out, "ktb bisect: %s, %s..%s, %s; logs in %s\n", s->c->git, s->c->good,
		s->c->bad, s->c->scenario, s->dir);
	r = s->c->metric ? git_metric_ends(s, steps, good, bad) : git_ends(s, steps, good, bad);
	git(s->c->git, NULL, "checkout", "-q", orig, NULL);
	if (!r)
		r = git_bisect(s, steps, good, bad, j);
	else
		steps_load(s, steps);
	free(steps);
	free(orig);
	return r;
}
