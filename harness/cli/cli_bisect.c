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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect.h"
#include "cli_bisect.h"
#include "cli.h"
#include "cli_bisect_git.h"
#include "cli_bisect_metric.h"
#include "cli_bisect_session.h"
#include "cli_common.h"
#include "proc.h"
#include "runner.h"
#include "util.h"

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
		"                    (default .: DIR as a kernel tree, with its modules)\n"
		"  --modules DIR     modules for a kernel path or tree, instead of the tree's\n"
		"                    (relative to DIR with --git)\n"
		"  --tries N         run each candidate N times; bad if any run fails (with\n"
		"                    --metric: N samples per judge run, default the fewest the\n"
		"                    rank test needs)\n"
		"  --metric [SCENARIO:]METRIC\n"
		"                    bisect a change of one metric (boot_ms, resume_ms, a\n"
		"                    device's resume): each candidate's samples against the\n"
		"                    ends', one kernel at a time\n"
		"  --threshold P     with --metric: the smallest change that counts (10%%)\n"
		"  --confidence C    with --metric: the level of the rank test (95%%)\n"
		"  -j N              multisection: N-1 candidates at once per round (default 2:\n"
		"                    plain bisection, one at a time)\n"
		"  --recipe R        image recipe (name in images/ or a path)\n"
		"  --append ARGS     kernel arguments added to the scenario's\n"
		"  --json FILE       the steps and the verdict as JSON (- for standard output;\n"
		"                    the step lines then go to standard error)\n"
		"  --artifacts DIR   where bisect-<run>/ goes (default: ./artifacts)\n"
		"  -v, --verbose     show the image builder's output\n"
		"Exit: 0 first bad candidate found, 1 the endpoints are wrong, 2 bad input,\n"
		"125 an endpoint could not be tested or only skipped candidates are left,\n"
		"130 interrupted (docs/cli.md).\n");
}

/* --------------------------------------------------------------------- */
/* options */

static const struct option bisect_options[] = {
	{ "kernels", required_argument, 0, 'K' },
	{ "git", required_argument, 0, 'G' },
	{ "good", required_argument, 0, 'g' },
	{ "bad", required_argument, 0, 'b' },
	{ "build", required_argument, 0, 'B' },
	{ "kernel", required_argument, 0, 'k' },
	{ "modules", required_argument, 0, 'm' },
	{ "recipe", required_argument, 0, 'r' },
	{ "append", required_argument, 0, 'a' },
	{ "json", required_argument, 0, 'J' },
	{ "tries", required_argument, 0, 'T' },
	{ "metric", required_argument, 0, 'M' },
	{ "threshold", required_argument, 0, 'P' },
	{ "confidence", required_argument, 0, 'C' },
	{ "artifacts", required_argument, 0, 'A' },
	{ "verbose", no_argument, 0, 'v' },
	{ "help", no_argument, 0, 'h' },
	/* internal: one step of git bisect run (cli_bisect_git.c) */
	{ "git-step", required_argument, 0, 'S' },
	{ 0, 0, 0, 0 },
};
static const char *const bisect_unlisted[] = { "git-step", NULL };

static int bisect_parse(int argc, char **argv, struct bisect_cli *c)
{
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:vh", bisect_options, NULL)) != -1) {
		if (kernel_choice_option(&c->k, ch, optarg))
			continue;
		switch (ch) {
		case 'j':
			if (cli_count("bisect", "-j", optarg, 17, &c->jobs))
				return KTB_EXIT_USAGE;
			break;
		case 'T':
			if (cli_count("bisect", "--tries", optarg, 100, &c->tries))
				return KTB_EXIT_USAGE;
			c->tries_given = true;
			break;
		case 'M':
			c->metric_arg = optarg;
			break;
		case 'P':
			if (cli_threshold(optarg, &c->mo.threshold))
				return KTB_EXIT_USAGE;
			break;
		case 'C':
			if (cli_confidence(optarg, &c->mo.confidence))
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
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	struct report_file json = { "--json", c->json, NULL };

	return reports_check(&json, 1);
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
	if (!c->metric_arg && (c->mo.threshold != 0.10 || c->mo.confidence != 0.95)) {
		fprintf(stderr, "ktb bisect: --threshold and --confidence go with --metric\n");
		return KTB_EXIT_USAGE;
	}
	if (c->git)
		return bisect_git_validate(c);
	if (c->good || c->bad || c->build || c->k.kernel) {
		fprintf(stderr, "ktb bisect: --good, --bad, --build and --kernel go with --git\n");
		return KTB_EXIT_USAGE;
	}
	return split_kernels(c);
}

/* The scenario must load before anything is built or booted; --metric is
 * checked against its name. */
static int scenario_check(struct bisect_cli *c)
{
	struct scenario_set set;
	int r = scenarios_load_all(&c->scenario, 1, &set);

	if (r)
		return r;
	if (c->metric_arg)
		r = metric_validate(c, set.items[0]->name);
	scenarios_free(&set);
	return r;
}

/* --------------------------------------------------------------------- */
/* --kernels: the ladder */

/* The step of candidate idx, its image built here (one at a time: builds
 * share the .deb cache): a candidate without one is a skip, its time the
 * build's. 0 or an exit code to stop with. */
static int candidate_step(struct session *s, size_t idx, size_t *at)
{
	struct kernel_choice k = s->c->k;
	struct image img = { 0 };
	struct bisect_step *st = session_step_new(s, s->c->kernels[idx], 0);
	int64_t t0 = now_ms();
	int r;

	*at = s->nsteps - 1;
	k.kernel = s->c->kernels[idx];
	r = image_prepare(&k, &img);
	image_free(&img);
	st->ms = now_ms() - t0;
	if (r == KTB_EXIT_UNTESTED) {
		st->verdict = BISECT_SKIP;
		st->code = r;
		st->why = "no image could be built";
		return 0;
	}
	return r;
}

/* The candidate's step and image, then its judge started. 0 started; 1
 * skipped (no image); or an exit code to stop with. */
static int candidate_start(struct session *s, size_t idx, struct child *ch)
{
	size_t at;
	int r = candidate_step(s, idx, &at);
	struct bisect_step *st = &s->steps[at];

	ch->step = at;
	ch->t0 = now_ms() - st->ms;
	if (r)
		return r;
	if (st->verdict == BISECT_SKIP) {
		step_print(s->out, st);
		return 1;
	}
	char **argv = session_judge_argv(s, s->c->kernels[idx], NULL);

	session_spawn(ch, argv, NULL, st->log);
	free(argv);
	st->boots = (unsigned)(s->c->tries > 1 ? s->c->tries : 1);
	s->boots += st->boots;
	return ch->cp.pid < 0 ? KTB_EXIT_UNTESTED : 0;
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
		session_stop(ch, n);
	} else if (session_wait(s, ch, n, session_judge_done)) {
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
	size_t ends[2] = { 0, b->n - 1 }, *pts = xcalloc(per, sizeof(size_t)), got;
	int r = 0;

	/* when the first candidate is not good the last one cannot help */
	for (size_t i = 0; i < 2 && !r && (i == 0 || b->v[0] == BISECT_GOOD); i += per)
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

/* an ABORT verdict as the exit code to stop with */
static int abort_code(const struct bisect_step *st)
{
	return st->code == KTB_EXIT_USAGE || st->code == KTB_EXIT_INTERRUPTED ? st->code
									      : KTB_EXIT_UNTESTED;
}

/* --metric: the ends sampled in turn, first then last, until their samples
 * differ or the runs are spent; then one candidate at a time. */
static int metric_ends_ladder(struct session *s, struct bisect *b)
{
	size_t at[2], idx[2] = { 0, b->n - 1 };
	char **k = s->c->kernels;
	int r = 0, stop = -1;

	for (int i = 0; i < 2 && !r; i++)
		r = candidate_step(s, idx[i], &at[i]);
	while (!r && stop < 0) {
		for (int i = 0; i < 2 && !r && stop < 0; i++) {
			struct bisect_step *st = &s->steps[at[i]];

			if (st->verdict == BISECT_UNKNOWN)
				r = metric_sample(s, st, k[idx[i]], NULL);
			if (!r && st->verdict != BISECT_UNKNOWN)
				stop = i;
		}
		if (r || stop >= 0)
			break;
		metric_ends_update(s, &s->steps[at[0]], &s->steps[at[1]]);
		if (s->ends.ok || !metric_more(&s->steps[at[1]]))
			break;
	}
	if (r)
		return r;
	if (stop < 0 && s->ends.ok) {
		s->steps[at[0]].verdict = BISECT_GOOD;
		s->steps[at[1]].verdict = BISECT_BAD;
		bisect_record(b, idx[0], BISECT_GOOD);
		bisect_record(b, idx[1], BISECT_BAD);
	}
	for (int i = 0; i < 2; i++)
		if (s->steps[at[i]].runs || s->steps[at[i]].verdict == BISECT_SKIP)
			metric_step_print(s, &s->steps[at[i]]);
	if (stop >= 0 && s->steps[at[stop]].verdict == BISECT_ABORT)
		return abort_code(&s->steps[at[stop]]);
	if (stop >= 0) {
		fprintf(s->out, "ktb bisect: could not test the %s candidate, %s\n",
			stop ? "last" : "first", k[idx[stop]]);
		return KTB_EXIT_UNTESTED;
	}
	return s->ends.ok ? 0 : metric_ends_fail(s, k[idx[0]], k[idx[1]]);
}

static int metric_ladder(struct session *s, struct bisect *b)
{
	size_t pt, at;
	int r = metric_ends_ladder(s, b);

	while (!r && bisect_next(b, 1, &pt)) {
		struct bisect_step *st;

		s->rounds++;
		r = candidate_step(s, pt, &at);
		st = &s->steps[at];
		if (!r && st->verdict != BISECT_SKIP)
			r = metric_judge_candidate(s, st, s->c->kernels[pt], NULL);
		if (r)
			break;
		metric_step_print(s, st);
		if (st->verdict == BISECT_ABORT)
			return abort_code(st);
		bisect_record(b, pt, st->verdict);
	}
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
/* the session: artifacts, JSON, summary */

static json_t *steps_json(const struct session *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->nsteps; i++) {
		const struct bisect_step *st = &s->steps[i];

		json_t *o = json_pack(
		    "{s:s, s:i, s:s, s:i, s:I, s:i, s:s}", "candidate", st->name, "round",
		    st->round, "verdict", bisect_verdict_name(st->verdict), "exit", st->code,
		    "duration_ms", (json_int_t)st->ms, "boots", st->boots, "log", st->log);

		if (s->c->metric)
			metric_step_json(st, o);
		json_array_append_new(a, o);
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
	if (s->c->metric)
		json_object_set_new(j, "metric", metric_json(s));
	if (!strcmp(s->c->json, "-")) {
		if (json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) ||
		    fputc('\n', stdout) == EOF || fflush(stdout)) {
			fprintf(stderr, "ktb bisect: cannot write --json - to standard output\n");
			return ret ? ret : KTB_EXIT_UNTESTED;
		}
		return ret;
	}
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
	s->self = cli_self_exe();
	snprintf(s->tries, sizeof(s->tries), "%d", c->tries);
	s->t0 = now_ms();
	/* --json -: standard output is the document's */
	s->out = c->json && !strcmp(c->json, "-") ? stderr : stdout;
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
	if (s->c->metric)
		fprintf(s->out,
			"ktb bisect: %zu kernels, %s, metric %s (a change of %g%% at %g%%), %d "
			"samples a run, up to %d runs each; logs in %s\n",
			b.n, s->c->scenario, s->c->metric, s->c->mo.threshold * 100,
			s->c->mo.confidence * 100, s->c->tries, METRIC_RUNS_MAX, s->dir);
	else
		fprintf(s->out,
			"ktb bisect: %zu kernels, %s, %d at a time, %d tr%s each; logs in %s\n",
			b.n, s->c->scenario, s->c->jobs > 2 ? s->c->jobs - 1 : 1,
			s->c->tries > 1 ? s->c->tries : 1, s->c->tries > 1 ? "ies" : "y", s->dir);
	json_t *names = json_array();

	for (size_t i = 0; i < b.n; i++)
		json_array_append_new(names, json_string(s->c->kernels[i]));
	json_object_set_new(j, "mode", json_string("kernels"));
	json_object_set_new(j, "candidates", names);
	r = s->c->metric ? metric_ladder(s, &b) : ladder_search(s, &b);
	if (!r)
		r = ladder_verdict(s, &b, j);
	bisect_free(&b);
	return r;
}

static int cli_bisect(int argc, char **argv)
{
	struct bisect_cli c = { .jobs = 2,
				.tries = 1,
				.artifacts = "artifacts",
				.mo = { .threshold = 0.10, .confidence = 0.95 } };
	struct session s = { 0 };
	json_t *j = json_object();
	int r = bisect_parse(argc, argv, &c);

	if (!r)
		r = bisect_validate(argc, argv, &c);
	if (!r && (!c.git_step || c.metric_arg))
		r = scenario_check(&c);
	if (!r && c.git_step) {
		s = (struct session){ .c = &c,
				      .self = cli_self_exe(),
				      .dir = xstrdup(c.artifacts) };
		snprintf(s.tries, sizeof(s.tries), "%d", c.tries);
		r = bisect_git_step(&s);
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
	r = c.git ? bisect_git_main(&s, j) : ladder_main(&s, j);
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
	free(c.metric);
	free(c.name);
	free(s.good);
	free(s.bad);
	free(c.good_sha);
	free(c.bad_sha);
	free(c.kernels);
	return r;
}

const struct cli_command cli_bisect_command = {
	.name = "bisect",
	.fn = cli_bisect,
	.summary = "find the first bad kernel or commit: ktb bisect --kernels K1,...,Kn SCENARIO",
	.usage = bisect_usage,
	.options = bisect_options,
	.shortopts = "j:vh",
	.unlisted = bisect_unlisted,
};
