/* ktb bisect: find the first bad kernel of an ordered list (--kernels), or
 * the first bad commit of a git tree (--git), with one scenario as judge.
 * Every candidate is judged by a child `ktb run`, whose exit code is the
 * verdict (0 good, 1 bad, 125 skip); bisect.c decides what to test next.
 * With -j N, N-1 candidates run at once each round (multisection). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect.h"
#include "cli.h"
#include "cli_common.h"
#include "proc.h"
#include "runner.h"
#include "util.h"

struct bisect_cli {
	struct kernel_choice k; /* --kernel (git mode), --modules, --recipe, -v */
	char *kernels_arg;	/* --kernels, split into kernels[] */
	char **kernels;
	size_t nkernels;
	const char *git, *good, *bad, *build;
	char *good_sha, *bad_sha; /* --good and --bad, resolved */
	const char *append, *json, *artifacts;
	char *scenario; /* absolute */
	int jobs, tries;
	const char *git_step; /* internal: "STEPS-FILE:FD", one git bisect run step */
};

/* One tested candidate, as printed and written to --json. */
struct bisect_step {
	size_t num; /* 1, 2, ...: names its log */
	char *name; /* candidate (ABI or path), or "SHA subject" */
	unsigned round;
	enum bisect_verdict verdict;
	int code; /* the judge's exit code (or the build's) */
	int64_t ms;
	unsigned boots;
	char *log;
	const char *why; /* why a skip, when not the judge's 125 */
};

struct session {
	struct bisect_cli *c;
	char *self; /* this ktb binary */
	char *dir;  /* <artifacts>/bisect-<run id> */
	struct bisect_step *steps;
	size_t nsteps;
	unsigned rounds, boots;
	char tries[16]; /* --tries as text, for the judge's --repeat */
	int64_t t0;
	FILE *out;
};

static void bisect_usage(FILE *f)
{
	fprintf(f,
		"usage: ktb bisect --kernels K1,K2,...,Kn [options] SCENARIO.yaml\n"
		"       ktb bisect --git DIR --good A --bad B --build CMD [options] SCENARIO.yaml\n"
		"  --kernels LIST    kernels oldest first: Debian ABIs (6.1.0-47) or paths;\n"
		"                    the first must pass, the last must fail\n"
		"  --git DIR         bisect the commits of a git tree with `git bisect run`\n"
		"  --good A --bad B  with --git: a commit that passes, a later one that fails\n"
		"  --build CMD       with --git: shell command run in DIR at each commit;\n"
		"                    failing means the commit cannot be tested (skip)\n"
		"  --kernel PATH     with --git: the kernel CMD builds, relative to DIR\n"
		"                    (default arch/x86/boot/bzImage)\n"
		"  --modules DIR     modules for a kernel path (relative to DIR with --git)\n"
		"  --tries N         run each candidate N times; bad if any run fails\n"
		"  -j N              multisection: N-1 candidates at once per round (default 2:\n"
		"                    plain bisection, one at a time)\n"
		"  --recipe R        image recipe (name in images/ or a path)\n"
		"  --append ARGS     kernel arguments added to the scenario's\n"
		"  --json F          the steps and the verdict as JSON\n"
		"  --artifacts DIR   where bisect-<run>/ goes (default: ./artifacts)\n"
		"  -v, --verbose     show the image builder's output\n"
		"Exit: 0 first bad candidate found, 1 the endpoints are wrong, 2 bad input,\n"
		"125 an endpoint could not be tested or only skipped candidates are left.\n");
}

/* --------------------------------------------------------------------- */
/* options */

static int parse_num(const char *opt, const char *arg, long max, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 1 || v > max) {
		fprintf(stderr, "ktb bisect: %s %s: give a number from 1 to %ld\n", opt, arg, max);
		return KTB_EXIT_USAGE;
	}
	*out = (int)v;
	return 0;
}

static int bisect_parse(int argc, char **argv, struct bisect_cli *c)
{
	static const struct option opts[] = {
	    {"kernels", required_argument, 0, 'K'},  {"git", required_argument, 0, 'G'},
	    {"good", required_argument, 0, 'g'},     {"bad", required_argument, 0, 'b'},
	    {"build", required_argument, 0, 'B'},    {"kernel", required_argument, 0, 'k'},
	    {"modules", required_argument, 0, 'm'},  {"recipe", required_argument, 0, 'r'},
	    {"append", required_argument, 0, 'a'},   {"json", required_argument, 0, 'J'},
	    {"tries", required_argument, 0, 'T'},    {"artifacts", required_argument, 0, 'A'},
	    {"verbose", no_argument, 0, 'v'},	     {"help", no_argument, 0, 'h'},
	    {"git-step", required_argument, 0, 'S'}, {0, 0, 0, 0},
	};
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (parse_num("-j", optarg, 17, &c->jobs))
				return KTB_EXIT_USAGE;
			break;
		case 'T':
			if (parse_num("--tries", optarg, 100, &c->tries))
				return KTB_EXIT_USAGE;
			break;
		case 'K':
			c->kernels_arg = optarg;
			break;
		case 'G':
			c->git = optarg;
			break;
		case 'g':
			c->good = optarg;
			break;
		case 'b':
			c->bad = optarg;
			break;
		case 'B':
			c->build = optarg;
			break;
		case 'k':
			c->k.kernel = optarg;
			break;
		case 'm':
			c->k.modules = optarg;
			break;
		case 'r':
			c->k.recipe = optarg;
			break;
		case 'a':
			c->append = optarg;
			break;
		case 'J':
			c->json = optarg;
			break;
		case 'A':
			c->artifacts = optarg;
			break;
		case 'S':
			c->git_step = optarg;
			break;
		case 'v':
			c->k.verbose = true;
			break;
		case 'h':
			bisect_usage(stdout);
			exit(0);
		default:
			bisect_usage(stderr);
			return KTB_EXIT_USAGE;
		}
	}
	return 0;
}

static int split_kernels(struct bisect_cli *c)
{
	char *save = NULL, *w;

	for (w = strtok_r(c->kernels_arg, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		c->kernels = xrealloc(c->kernels, (c->nkernels + 1) * sizeof(char *));
		c->kernels[c->nkernels++] = w;
	}
	if (c->nkernels < 2) {
		fprintf(stderr, "ktb bisect: --kernels needs at least two kernels, oldest first "
				"(6.1.0-47,6.1.0-57)\n");
		return KTB_EXIT_USAGE;
	}
	for (size_t i = 0; i < c->nkernels; i++)
		if (strchr(c->kernels[i], '/') && access(c->kernels[i], R_OK)) {
			fprintf(stderr, "ktb bisect: --kernels: candidate %zu, %s: %s\n", i + 1,
				c->kernels[i], strerror(errno));
			return KTB_EXIT_USAGE;
		}
	return 0;
}

/* Run git -C DIR ARGS; its standard output (trimmed) into *out when out. */
static int git(const char *dir, char **out, ...) __attribute__((sentinel));

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

static int validate_git(struct bisect_cli *c)
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
		c->k.kernel = "arch/x86/boot/bzImage";
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

static int bisect_validate(int argc, char **argv, struct bisect_cli *c)
{
	if (optind != argc - 1) {
		fprintf(stderr, "ktb bisect: give exactly one SCENARIO.yaml\n");
		return KTB_EXIT_USAGE;
	}
	c->scenario = realpath(argv[optind], NULL);
	if (!c->scenario) {
		fprintf(stderr, "ktb bisect: %s: %s\n", argv[optind], strerror(errno));
		return KTB_EXIT_USAGE;
	}
	if (!!c->kernels_arg == !!c->git) {
		fprintf(stderr, "ktb bisect: give either --kernels K1,K2,... or --git DIR\n");
		return KTB_EXIT_USAGE;
	}
	if (c->git)
		return validate_git(c);
	if (c->good || c->bad || c->build || c->k.kernel) {
		fprintf(stderr, "ktb bisect: --good, --bad, --build and --kernel go with --git\n");
		return KTB_EXIT_USAGE;
	}
	return split_kernels(c);
}

/* The scenario must load before anything is built or booted. */
static int scenario_check(const char *path)
{
	struct scenario_set set;
	char *p = (char *)path;
	int r = scenarios_load_all(&p, 1, &set);

	if (!r)
		scenarios_free(&set);
	return r;
}

/* --------------------------------------------------------------------- */
/* child processes: each in its own process group, output to a log */

static pid_t spawn_logged(char *const argv[], const char *cwd, const char *log)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (fd < 0 || nul < 0 || (cwd && chdir(cwd)))
		_exit(125);
	dup2(nul, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	dprintf(2, "ktb bisect: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(125);
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

struct child {
	pid_t pid;
	size_t step; /* index into session steps */
	int64_t t0;
	int code; /* exit code, once it has ended */
};

static void children_stop(struct child *ch, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ch[i].pid > 0)
			kill(-ch[i].pid, SIGTERM);
	for (size_t i = 0; i < n; i++)
		if (ch[i].pid > 0)
			waitpid(ch[i].pid, NULL, 0);
}

typedef void (*child_done_fn)(struct session *s, struct child *ch, int code);

/* Wait for every child; done() is called as each one ends. 0, or -EINTR
 * after SIGINT/SIGTERM (the children are stopped first). */
static int children_wait(struct session *s, struct child *ch, size_t n, child_done_fn done)
{
	size_t left = 0;
	struct pollfd pfd = {.fd = proc_signals_install(), .events = POLLIN};

	for (size_t i = 0; i < n; i++)
		left += ch[i].pid > 0;
	while (left) {
		poll(&pfd, 1, 200);
		if (proc_interrupted()) {
			children_stop(ch, n);
			return -EINTR;
		}
		for (size_t i = 0; i < n; i++) {
			int st;

			if (ch[i].pid <= 0 || waitpid(ch[i].pid, &st, WNOHANG) != ch[i].pid)
				continue;
			ch[i].pid = 0;
			ch[i].code = exit_code_of(st);
			left--;
			if (done)
				done(s, &ch[i], ch[i].code);
		}
	}
	return 0;
}

/* --------------------------------------------------------------------- */
/* steps: what is printed and kept */

/* A new step numbered num (0: the next one). */
static struct bisect_step *step_new(struct session *s, const char *name, size_t num)
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

static void step_print(FILE *f, const struct bisect_step *st)
{
	fprintf(f, "step %2zu  round %u  %-24s %-4s %7.1fs", st->num, st->round, st->name,
		bisect_verdict_name(st->verdict), (double)st->ms / 1000.0);
	if (st->boots)
		fprintf(f, "  %u boot%s", st->boots, st->boots == 1 ? "" : "s");
	if (st->verdict == BISECT_SKIP)
		fprintf(f, "  (could not test: %s; %s)",
			st->why ? st->why : "the run ended in error", st->log);
	else if (st->verdict == BISECT_ABORT)
		fprintf(f, "  (exit %d; %s)", st->code, st->log);
	fputc('\n', f);
	fflush(f);
}

static void steps_free(struct session *s)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		free(s->steps[i].name);
		free(s->steps[i].log);
	}
	free(s->steps);
}

static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup("ktb");
	buf[n] = '\0';
	return xstrdup(buf);
}

/* argv of the judge: ktb run [--kernel K ...] --artifacts DIR SCENARIO */
static char **judge_argv(const struct session *s, const char *kernel)
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
	v[n++] = "--artifacts";
	v[n++] = s->dir;
	v[n++] = c->scenario;
	return v;
}

/* --------------------------------------------------------------------- */
/* --kernels: the ladder */

static void on_candidate_done(struct session *s, struct child *ch, int code)
{
	struct bisect_step *st = &s->steps[ch->step];

	st->code = code;
	st->verdict = bisect_verdict_of_exit(code);
	st->ms = now_ms() - ch->t0;
	step_print(s->out, st);
}

/* Build the candidate's image here (one at a time: builds share the .deb
 * cache), then start its judge. 0 started; 1 skipped (no image); or an exit
 * code to stop with. */
static int candidate_start(struct session *s, size_t idx, struct child *ch)
{
	struct kernel_choice k = s->c->k;
	struct image img = {0};
	struct bisect_step *st = step_new(s, s->c->kernels[idx], 0);
	int64_t t0 = now_ms();
	int r;

	k.kernel = s->c->kernels[idx];
	r = image_prepare(&k, &img);
	image_free(&img);
	ch->step = s->nsteps - 1;
	ch->t0 = t0;
	if (r == KTB_EXIT_UNTESTED) {
		st->verdict = BISECT_SKIP;
		st->code = r;
		st->why = "no image could be built";
		st->ms = now_ms() - t0;
		step_print(s->out, st);
		return 1;
	}
	if (r)
		return r;
	char **argv = judge_argv(s, k.kernel);

	ch->pid = spawn_logged(argv, NULL, st->log);
	free(argv);
	st->boots = (unsigned)(s->c->tries > 1 ? s->c->tries : 1);
	s->boots += st->boots;
	return ch->pid < 0 ? KTB_EXIT_UNTESTED : 0;
}

/* Test the candidates idx[0..n) at once; their verdicts go into b. */
static int round_run(struct session *s, struct bisect *b, const size_t *idx, size_t n)
{
	struct child *ch = xcalloc(n, sizeof(*ch));
	size_t first = s->nsteps;
	int r = 0;

	for (size_t i = 0; i < n && !r; i++) {
		r = candidate_start(s, idx[i], &ch[i]);
		r = r == 1 ? 0 : r;
	}
	if (r) {
		children_stop(ch, n);
	} else if (children_wait(s, ch, n, on_candidate_done)) {
		r = KTB_EXIT_INTERRUPTED;
	}
	for (size_t i = 0; i < n && !r; i++) {
		struct bisect_step *st = &s->steps[first + i];

		bisect_record(b, idx[i], st->verdict);
		if (st->verdict == BISECT_ABORT)
			r = st->code == KTB_EXIT_USAGE || st->code == KTB_EXIT_INTERRUPTED
				? st->code
				: KTB_EXIT_UNTESTED;
	}
	free(ch);
	return r;
}

static int ends_report(struct session *s, const struct bisect *b)
{
	enum bisect_ends e = bisect_check_ends(b->v[0], b->v[b->n - 1]);
	const struct bisect_cli *c = s->c;
	const char *first = c->kernels[0], *last = c->kernels[c->nkernels - 1];

	switch (e) {
	case BISECT_ENDS_OK:
		return 0;
	case BISECT_ENDS_FIRST_NOT_GOOD:
		fprintf(s->out,
			"ktb bisect: the first candidate, %s, is not good: the scenario "
			"fails on it (log: %s)\n",
			first, s->steps[0].log);
		return KTB_EXIT_FAIL;
	case BISECT_ENDS_LAST_NOT_BAD:
		fprintf(s->out,
			"ktb bisect: the last candidate, %s, is not bad: the scenario "
			"passes on it%s\n",
			last, c->tries > 1 ? "" : " (a flaky regression? try --tries N)");
		return KTB_EXIT_FAIL;
	case BISECT_ENDS_UNTESTED:
		fprintf(s->out, "ktb bisect: could not test the %s candidate, %s\n",
			b->v[0] == BISECT_SKIP ? "first" : "last",
			b->v[0] == BISECT_SKIP ? first : last);
		return KTB_EXIT_UNTESTED;
	default:
		return KTB_EXIT_UNTESTED;
	}
}

/* Endpoints first (both at once when -j allows), then rounds of cuts. */
static int ladder_search(struct session *s, struct bisect *b)
{
	size_t per = (size_t)(s->c->jobs > 2 ? s->c->jobs - 1 : 1);
	size_t ends[2] = {0, b->n - 1}, *pts = xcalloc(per, sizeof(size_t)), got;
	int r = 0;

	/* a first candidate that fails is wrong whatever the last one does */
	for (size_t i = 0; i < 2 && !r && b->v[0] != BISECT_BAD; i += per)
		r = round_run(s, b, ends + i, per >= 2 ? 2 : 1);
	if (!r)
		r = ends_report(s, b);
	while (!r && (got = bisect_next(b, (unsigned)per, pts))) {
		s->rounds++;
		r = round_run(s, b, pts, got);
	}
	free(pts);
	return r;
}

static int ladder_verdict(struct session *s, const struct bisect *b, json_t *j)
{
	size_t lo, hi;
	char **k = s->c->kernels;

	bisect_range(b, &lo, &hi);
	json_object_set_new(j, "last_good", json_string(k[lo]));
	if (!bisect_ambiguous(b)) {
		fprintf(s->out, "first bad: %s (last good: %s)\n", k[hi], k[lo]);
		json_object_set_new(j, "first_bad", json_string(k[hi]));
		return 0;
	}
	json_t *any = json_array();

	fprintf(s->out, "first bad: one of");
	for (size_t i = lo + 1; i <= hi; i++) {
		fprintf(s->out, " %s%s", k[i], i < hi ? "," : "");
		json_array_append_new(any, json_string(k[i]));
	}
	fprintf(s->out, " (the others could not be tested; last good: %s)\n", k[lo]);
	json_object_set_new(j, "first_bad", json_null());
	json_object_set_new(j, "first_bad_any_of", any);
	return KTB_EXIT_UNTESTED;
}

/* --------------------------------------------------------------------- */
/* --git: git bisect run with `ktb bisect --git-step` as its command */

static int git(const char *dir, char **out, ...)
{
	const char *argv[16] = {"git", "-C", dir};
	char buf[4096];
	size_t len = 0, n = 3;
	ssize_t got;
	int fds[2], st = -1;
	pid_t pid;
	va_list ap;

	va_start(ap, out);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return -EIO;
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(nul, 0);
		dup2(fds[1], 1);
		dup2(nul, 2);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && len < sizeof(buf) - 1 &&
	       ((got = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
		(got < 0 && errno == EINTR)))
		len += got > 0 ? (size_t)got : 0;
	close(fds[0]);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (out)
		*out = xstrdup(buf);
	return pid > 0 && st == 0 ? 0 : -EIO;
}

/* One commit: build it, judge it. The verdict goes into st. */
static int git_test_head(struct session *s, struct bisect_step *st)
{
	const struct bisect_cli *c = s->c;
	char *build[] = {"sh", "-c", (char *)c->build, NULL};
	struct child ch = {.t0 = now_ms(), .step = (size_t)(st - s->steps)};

	ch.pid = spawn_logged(build, c->git, st->log);
	if (ch.pid > 0 && children_wait(s, &ch, 1, NULL))
		return KTB_EXIT_INTERRUPTED;
	if (ch.pid < 0 || ch.code) {
		st->verdict = BISECT_SKIP;
		st->code = ch.pid < 0 ? 125 : ch.code;
		st->why = "--build failed";
		st->ms = now_ms() - ch.t0;
		return 0;
	}
	char **argv = judge_argv(s, c->k.kernel);

	ch.pid = spawn_logged(argv, c->git, st->log);
	free(argv);
	st->boots = (unsigned)(c->tries > 1 ? c->tries : 1);
	if (ch.pid < 0)
		return KTB_EXIT_UNTESTED;
	if (children_wait(s, &ch, 1, on_candidate_done))
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
	st = step_new(s, name, num);
	free(name);
	st->round = num > 2 ? (unsigned)num - 2 : 0;
	r = git_test_head(s, st);
	if (st->verdict == BISECT_SKIP)
		step_print(s->out, st);
	*out = st;
	return r;
}

/* Internal: `git bisect run` calls `ktb bisect --git-step STEPS:FD ...`
 * for each commit; the line goes to FD, the parent's standard output. */
static int git_step_main(struct session *s)
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
	r = git_step_one(s, steps_count(steps) + 1, &st);
	step_save(steps, st);
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
		struct bisect_step *st = step_new(s, line + name_at, 0);

		st->code = code;
		st->ms = ms;
		st->boots = boots;
		num++;
		st->round = num > 2 ? (unsigned)num - 2 : 0;
		for (int v = BISECT_UNKNOWN; v <= BISECT_ABORT; v++)
			if (!strcmp(verdict, bisect_verdict_name(v)))
				st->verdict = v;
		s->boots += boots;
	}
	s->rounds = num > 2 ? (unsigned)num - 2 : 0;
	free(text);
}

/* Check out A then B and test them, as --kernels does with its ends. */
static int git_ends(struct session *s, const char *steps, const char *good, const char *bad)
{
	enum bisect_verdict v[2] = {BISECT_UNKNOWN, BISECT_UNKNOWN};
	const char *rev[2] = {good, bad};
	struct bisect_step *st;
	int r = 0;

	for (int i = 0; i < 2 && !r; i++) {
		if (git(s->c->git, NULL, "checkout", "-q", "--detach", rev[i], NULL)) {
			fprintf(stderr,
				"ktb bisect: cannot check out %s in %s (uncommitted "
				"changes?)\n",
				rev[i], s->c->git);
			return KTB_EXIT_UNTESTED;
		}
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
	int fd = dup(STDOUT_FILENO), r = KTB_EXIT_UNTESTED, st;
	char **argv = git_run_argv(s, steps, fd, good, bad);
	struct child ch = {.t0 = now_ms()};

	if (git(s->c->git, &started, "bisect", "start", bad, good, NULL)) {
		fprintf(stderr, "ktb bisect: git bisect start failed in %s\n", s->c->git);
		goto out;
	}
	write_file(log, started, strlen(started));
	fflush(s->out);
	if (!strstr(started, "is the first bad commit"))
		ch.pid = spawn_logged(argv, s->c->git, log);
	while (ch.pid > 0 && waitpid(ch.pid, &st, 0) < 0)
		if (errno != EINTR || proc_interrupted()) {
			children_stop(&ch, 1);
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

/* --------------------------------------------------------------------- */
/* the session: artifacts, JSON, summary */

static json_t *steps_json(const struct session *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->nsteps; i++) {
		const struct bisect_step *st = &s->steps[i];

		json_array_append_new(
		    a, json_pack("{s:s, s:i, s:s, s:i, s:I, s:i, s:s}", "candidate", st->name,
				 "round", st->round, "verdict", bisect_verdict_name(st->verdict),
				 "exit", st->code, "duration_ms", (json_int_t)st->ms, "boots",
				 st->boots, "log", st->log));
	}
	return a;
}

static int json_write(const struct session *s, json_t *j, int ret)
{
	json_object_set_new(j, "exit", json_integer(ret));
	json_object_set_new(j, "boots", json_integer(s->boots));
	json_object_set_new(j, "rounds", json_integer(s->rounds));
	json_object_set_new(j, "duration_ms", json_integer(now_ms() - s->t0));
	json_object_set_new(j, "steps", steps_json(s));
	if (json_dump_file(j, s->c->json, JSON_INDENT(2) | JSON_SORT_KEYS)) {
		fprintf(stderr, "ktb bisect: cannot write %s\n", s->c->json);
		return ret ? ret : KTB_EXIT_UNTESTED;
	}
	return ret;
}

static void summary_print(const struct session *s)
{
	int64_t ms = now_ms() - s->t0;

	fprintf(s->out, "boots: %u (the endpoints, then %u round%s), %lldm%02llds\n", s->boots,
		s->rounds, s->rounds == 1 ? "" : "s", (long long)(ms / 60000),
		(long long)(ms / 1000 % 60));
}

static int session_open(struct session *s, struct bisect_cli *c)
{
	char *id = runner_new_run_id();

	s->c = c;
	s->self = self_exe();
	snprintf(s->tries, sizeof(s->tries), "%d", c->tries);
	s->t0 = now_ms();
	s->out = stdout;
	s->dir = xasprintf("%s/bisect-%s", c->artifacts, id);
	free(id);
	if (mkdir_p(s->dir, 0755)) {
		fprintf(stderr, "ktb bisect: cannot create %s: %s\n", s->dir, strerror(errno));
		return KTB_EXIT_UNTESTED;
	}
	char *abs = realpath(s->dir, NULL);

	free(s->dir);
	s->dir = abs;
	return 0;
}

static int ladder_main(struct session *s, json_t *j)
{
	struct bisect b;
	int r;

	bisect_init(&b, s->c->nkernels);
	fprintf(s->out, "ktb bisect: %zu kernels, %s, %d at a time, %d tr%s each; logs in %s\n",
		b.n, s->c->scenario, s->c->jobs > 2 ? s->c->jobs - 1 : 1,
		s->c->tries > 1 ? s->c->tries : 1, s->c->tries > 1 ? "ies" : "y", s->dir);
	json_t *names = json_array();

	for (size_t i = 0; i < b.n; i++)
		json_array_append_new(names, json_string(s->c->kernels[i]));
	json_object_set_new(j, "mode", json_string("kernels"));
	json_object_set_new(j, "candidates", names);
	r = ladder_search(s, &b);
	if (!r)
		r = ladder_verdict(s, &b, j);
	bisect_free(&b);
	return r;
}

static int git_main(struct session *s, json_t *j)
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
	r = git_ends(s, steps, good, bad);
	git(s->c->git, NULL, "checkout", "-q", orig, NULL);
	if (!r)
		r = git_bisect(s, steps, good, bad, j);
	else
		steps_load(s, steps);
	free(steps);
	free(orig);
	return r;
}

int cli_bisect(int argc, char **argv)
{
	struct bisect_cli c = {.jobs = 2, .tries = 1, .artifacts = "artifacts"};
	struct session s = {0};
	json_t *j = json_object();
	int r = bisect_parse(argc, argv, &c);

	if (!r)
		r = bisect_validate(argc, argv, &c);
	if (!r && !c.git_step)
		r = scenario_check(c.scenario);
	if (!r && c.git_step) {
		s = (struct session){.c = &c, .self = self_exe(), .dir = xstrdup(c.artifacts)};
		snprintf(s.tries, sizeof(s.tries), "%d", c.tries);
		r = git_step_main(&s);
		goto out;
	}
	if (!r)
		r = session_open(&s, &c);
	if (r)
		goto out;
	proc_signals_install();
	json_object_set_new(j, "scenario", json_string(c.scenario));
	json_object_set_new(j, "tries", json_integer(c.tries));
	json_object_set_new(j, "jobs", json_integer(c.jobs));
	r = c.git ? git_main(&s, j) : ladder_main(&s, j);
	if (r != KTB_EXIT_USAGE && r != KTB_EXIT_INTERRUPTED)
		summary_print(&s);
	if (c.json)
		r = json_write(&s, j, r);
out:
	json_decref(j);
	steps_free(&s);
	free(s.self);
	free(s.dir);
	free(c.scenario);
	free(c.good_sha);
	free(c.bad_sha);
	free(c.kernels);
	return r;
}
