/* ktb shrink SCENARIO.yaml: the smallest machine on which a failing scenario
 * still fails the same way. The scenario runs --repeat N times; its failure
 * (failure_key.h) must be the same every time. Then, pass after pass, each
 * simplification of the machine (shrink.h) that the loader accepts is run
 * N times by a child `ktb run`: one that fails the same way every time is
 * taken, one that passes every time shows its part matters, anything else
 * (sometimes, another failure, an error) is not taken and is said. A pass
 * that takes nothing ends the search: every verdict of it is on the final
 * machine, whose one-change neighbours the passing candidates are. */
#include "cli_shrink.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "failure_key.h"
#include "runner.h"
#include "scenario.h"
#include "shrink.h"
#include "spawn.h"
#include "util.h"

/* What the file written beside the scenario starts with: a file that does
 * not is not ktb shrink's, and is never overwritten. */
#define SHRUNK_HEADER "# ktb shrink: "

#define SHRINK_MAX_CONNECT 8

struct shrink_cli {
	struct kernel_choice k;
	const char *append, *json, *artifacts, *scenario, *backend;
	const char *connect[SHRINK_MAX_CONNECT];
	int repeat, jobs, nconnect;
};

enum outcome {
	OUT_FAILS,     /* every run failed the same way: taken */
	OUT_PASSES,    /* every run passed: the part matters */
	OUT_UNDECIDED, /* some runs passed, the others failed the same way */
	OUT_OTHER,     /* a run failed another way */
	OUT_ERROR,     /* a run could not test (no boot, an image), or no document */
};

static const char *const outcome_names[] = { "fails the same way", "passes", "undecided",
					     "fails another way", "could not test" };

struct trial {
	char *part, *change;
	unsigned pass;
	enum outcome out;
	char *detail; /* "3 of 3", or the other way's key */
	char *yaml;   /* the candidate's file in the artifacts */
	int64_t ms;
	bool taken;
	bool final; /* tried on the final machine */
};

struct shrink {
	const struct shrink_cli *c;
	char *self, *dir, *key, *written;
	struct shrink_doc doc;
	json_t *machine;
	char **named; /* disk ids the steps name */
	struct trial *t;
	size_t nt;
	unsigned runs, boots, seq;
	int64_t t0;
	FILE *out;
};

static void shrink_usage(FILE *f)
{
	fprintf(f,
		"usage: ktb shrink SCENARIO.yaml [options]\n"
		"  the smallest machine on which a failing scenario still fails the same way\n"
		"  (the same step, the same clause, fact or kernel report): each part of the\n"
		"  machine removed or simplified in turn, each change kept while it fails so\n"
		"  --repeat N         runs of each machine (default 3): a change is kept when\n"
		"                     all of them fail the same way\n"
		"  -j N               candidates run at once (default 1)\n"
		"  --kernel K         the kernel: a Debian ABI, a bzImage or a build tree\n"
		"  --modules DIR      with --kernel PATH: its modules\n"
		"  --recipe FILE      the image recipe\n"
		"  --append ARGS      kernel arguments added to the scenario's\n"
		"  --backend B        qemu (default) or libvirt, for every run\n"
		"  --connect URI      with --backend libvirt: its host (may be repeated)\n"
		"  --json FILE        what was tried and found, as JSON (- is standard output)\n"
		"  --artifacts DIR    where shrink-<run>/ goes (default: ./artifacts)\n"
		"Writes NAME.shrunk.yaml beside SCENARIO.yaml: its steps, the smallest machine.\n"
		"Exit code: 0 shrunk, or nothing to shrink (it passes); 1 it does not fail the\n"
		"same way every time; 2 bad input; 125 it could not be tested.\n");
}

static const struct option shrink_options[] = {
	{ "repeat", required_argument, 0, 'R' },
	{ "kernel", required_argument, 0, 'k' },
	{ "modules", required_argument, 0, 'm' },
	{ "recipe", required_argument, 0, 'r' },
	{ "append", required_argument, 0, 'a' },
	{ "json", required_argument, 0, 'J' },
	{ "artifacts", required_argument, 0, 'A' },
	{ "backend", required_argument, 0, 'B' },
	{ "connect", required_argument, 0, 'C' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static int shrink_parse(int argc, char **argv, struct shrink_cli *c)
{
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:h", shrink_options, NULL)) != -1) {
		if (kernel_choice_option(&c->k, ch, optarg))
			continue;
		switch (ch) {
		case 'h':
			shrink_usage(stdout);
			exit(0);
		case 'j':
			if (cli_count("shrink", "-j", optarg, 16, &c->jobs))
				return KTB_EXIT_USAGE;
			break;
		case 'R':
			if (cli_count("shrink", "--repeat", optarg, 100, &c->repeat))
				return KTB_EXIT_USAGE;
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
		case 'B':
			c->backend = optarg;
			break;
		case 'C':
			if (c->nconnect == SHRINK_MAX_CONNECT) {
				cli_err("--connect: at most %d hosts", SHRINK_MAX_CONNECT);
				return KTB_EXIT_USAGE;
			}
			c->connect[c->nconnect++] = optarg;
			break;
		default:
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		cli_err("give one scenario file");
		return KTB_EXIT_USAGE;
	}
	c->scenario = argv[optind];
	return 0;
}

/* SCENARIO's NAME.shrunk.yaml, beside it. */
static char *shrunk_path(const char *scenario)
{
	size_t n = strlen(scenario);

	if (n > 5 && !strcmp(scenario + n - 5, ".yaml"))
		n -= 5;
	return xasprintf("%.*s.shrunk.yaml", (int)n, scenario);
}

/* A candidate's file: beside the scenario (its disk images and shares are
 * relative to its folder), hidden, removed after its run. */
static char *beside(const struct shrink *s, unsigned seq)
{
	const char *slash = strrchr(s->c->scenario, '/');
	int dir = slash ? (int)(slash - s->c->scenario + 1) : 0;

	return xasprintf("%.*s.ktb-shrink-%d-%u.yaml", dir, s->c->scenario, (int)getpid(), seq);
}

/* ---- running ---- */

struct child {
	struct child_process cp;
	char *file, *json, *log, *yaml;
	int64_t t0;
	int code;
	bool running;
};

static char **run_argv(const struct shrink *s, const struct child *ch, const char *art)
{
	char **v = xcalloc(24 + 2 * SHRINK_MAX_CONNECT, sizeof(char *));
	int n = 0;
	static char repeat[16];

	snprintf(repeat, sizeof(repeat), "%d", s->c->repeat);
	v[n++] = s->self;
	v[n++] = "run";
	if (s->c->k.kernel) {
		v[n++] = "--kernel";
		v[n++] = (char *)s->c->k.kernel;
	}
	if (s->c->k.modules) {
		v[n++] = "--modules";
		v[n++] = (char *)s->c->k.modules;
	}
	if (s->c->k.recipe) {
		v[n++] = "--recipe";
		v[n++] = (char *)s->c->k.recipe;
	}
	if (s->c->append) {
		v[n++] = "--append";
		v[n++] = (char *)s->c->append;
	}
	if (s->c->backend) {
		v[n++] = "--backend";
		v[n++] = (char *)s->c->backend;
	}
	for (int i = 0; i < s->c->nconnect; i++) {
		v[n++] = "--connect";
		v[n++] = (char *)s->c->connect[i];
	}
	v[n++] = "--repeat";
	v[n++] = repeat;
	v[n++] = "--json";
	v[n++] = ch->json;
	v[n++] = "--artifacts";
	v[n++] = (char *)art;
	v[n++] = ch->file;
	return v;
}

/* Start one run of text; ch is filled. */
static void child_start(struct shrink *s, struct child *ch, const char *text, size_t len)
{
	unsigned seq = ++s->seq;
	char *art = xasprintf("%s/%02u", s->dir, seq);
	char **argv;

	*ch = (struct child){ .file = beside(s, seq),
			      .json = xasprintf("%s/%02u.json", s->dir, seq),
			      .log = xasprintf("%s/%02u.log", s->dir, seq),
			      .yaml = xasprintf("%s/%02u.yaml", s->dir, seq),
			      .t0 = now_ms() };
	write_file(ch->yaml, text, len);
	if (write_file(ch->file, text, len)) {
		ch->code = KTB_EXIT_UNTESTED;
		free(art);
		return;
	}
	argv = run_argv(s, ch, art);
	ch->cp = (struct child_process){
		.argv = argv,
		.in.how = SPAWN_NULL,
		.out = { .how = SPAWN_FILE, .path = ch->log },
		.err.how = SPAWN_STDOUT,
		.own_group = true,
	};
	ch->running = !start_command(&ch->cp);
	if (!ch->running)
		ch->code = KTB_EXIT_UNTESTED;
	free(argv);
	free(art);
	s->runs++;
	s->boots += (unsigned)s->c->repeat;
}

static void child_free(struct child *ch)
{
	if (ch->file)
		unlink(ch->file);
	free(ch->file);
	free(ch->json);
	free(ch->log);
	free(ch->yaml);
}

static void run_ended(void *arg, size_t i, int code)
{
	struct child *ch = arg;

	ch[i].running = false;
	ch[i].code = code;
}

/* Wait for the n children; -EINTR (they are stopped) after a signal. */
static int children_wait(struct child *ch, size_t n)
{
	struct child_process **cps = xcalloc(n ? n : 1, sizeof(*cps));
	int ret;

	for (size_t i = 0; i < n; i++)
		cps[i] = ch[i].running ? &ch[i].cp : NULL;
	ret = cli_wait_children(cps, n, 5000, run_ended, ch);
	free(cps);
	return ret;
}

/* Every attempt's failure key from a run's document, or NULL (no document). */
static char **attempt_keys(const char *json, size_t *n)
{
	struct run_result rr = { 0 };
	char **keys;

	*n = 0;
	if (run_document_load(json, &rr))
		return NULL;
	keys = xcalloc(rr.count + 1, sizeof(char *));
	for (size_t i = 0; i < rr.count; i++)
		keys[(*n)++] = failure_key(&rr.scenarios[i]);
	run_result_free(&rr);
	return keys;
}

static void keys_free(char **k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

/* The outcome of a candidate's run against the scenario's failure. */
static enum outcome judge(const struct shrink *s, const struct child *ch, char **detail)
{
	size_t n, same = 0, pass = 0;
	char **keys = attempt_keys(ch->json, &n);
	enum outcome o;

	if (!keys || !n) {
		*detail = xasprintf("its run wrote no result (exit %d; %s)", ch->code, ch->log);
		keys_free(keys, n);
		return OUT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		same += !strcmp(keys[i], s->key);
		pass += !strcmp(keys[i], "pass");
	}
	if (same == n) {
		o = OUT_FAILS;
		*detail = xasprintf("%zu of %zu", same, n);
	} else if (pass == n) {
		o = OUT_PASSES;
		*detail = xasprintf("%zu of %zu", pass, n);
	} else if (same + pass == n) {
		o = OUT_UNDECIDED;
		*detail = xasprintf("%zu of %zu passed, %zu failed the same way", pass, n, same);
	} else {
		for (size_t i = 0; i < n; i++)
			if (strcmp(keys[i], s->key) && strcmp(keys[i], "pass")) {
				*detail = xstrdup(keys[i]);
				break;
			}
		o = !strncmp(*detail, "error", 5) || !strncmp(*detail, "skip", 4) ? OUT_ERROR
										  : OUT_OTHER;
	}
	keys_free(keys, n);
	return o;
}

/* ---- the search ---- */

/* Whether the loader takes text (the candidate is a valid scenario). */
static bool loads(const struct shrink *s, const char *text, size_t len)
{
	struct scenario *sc = NULL;
	struct scenario_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = scenario_load_buffer(s->c->scenario, text, len, &sc, &err);
	scenario_free(sc);
	return r == 0;
}

static bool tried(char **parts, size_t n, const char *part)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(parts[i], part))
			return true;
	return false;
}

static struct trial *trial_add(struct shrink *s, const struct shrink_cand *c, unsigned pass)
{
	struct trial *t;

	s->t = xrealloc(s->t, (s->nt + 1) * sizeof(*s->t));
	t = &s->t[s->nt++];
	*t = (struct trial){ .part = xstrdup(c->part), .change = xstrdup(c->change), .pass = pass };
	return t;
}

static void trial_print(const struct shrink *s, const struct trial *t)
{
	fprintf(s->out, "pass %u  %-34s %-22s %s %s%s  %.1fs\n", t->pass, t->part, t->change,
		outcome_names[t->out], t->detail, t->taken ? ": taken" : "",
		(double)t->ms / 1000.0);
	fflush(s->out);
}

/* One pass: candidates run j at a time, each part once, the first of a
 * batch that fails the same way taken. 1 when it took something, 0 when
 * not, -EINTR. */
static int one_pass(struct shrink *s, unsigned pass)
{
	char **done = NULL;
	size_t ndone = 0;
	int took = 0, r = 0;

	for (;;) {
		struct shrink_cand *c;
		size_t n = shrink_candidates(s->machine, (const char *const *)s->named, &c);
		size_t pick[16], np = 0, first_taken = SIZE_MAX;
		struct child ch[16];
		char *texts[16];
		size_t lens[16];
		char **batch_parts = NULL;
		size_t nbp = 0;

		/* the next j parts, each its first candidate the loader takes */
		for (size_t i = 0; i < n && np < (size_t)s->c->jobs; i++) {
			size_t len;
			char *text;

			if (tried(done, ndone, c[i].part) || tried(batch_parts, nbp, c[i].part))
				continue;
			text = shrink_doc_render(&s->doc, c[i].machine, &len);
			if (!loads(s, text, len)) {
				free(text);
				continue;
			}
			batch_parts = xrealloc(batch_parts, (nbp + 1) * sizeof(char *));
			batch_parts[nbp++] = c[i].part;
			texts[np] = text;
			lens[np] = len;
			pick[np++] = i;
		}
		if (!np) {
			free(batch_parts);
			shrink_cands_free(c, n);
			break;
		}
		for (size_t i = 0; i < np; i++)
			child_start(s, &ch[i], texts[i], lens[i]);
		r = children_wait(ch, np);
		for (size_t i = 0; i < np && !r; i++) {
			struct trial *t = trial_add(s, &c[pick[i]], pass);

			t->ms = now_ms() - ch[i].t0;
			t->yaml = xstrdup(ch[i].yaml);
			t->out = judge(s, &ch[i], &t->detail);
			if (t->out == OUT_FAILS && first_taken == SIZE_MAX) {
				first_taken = pick[i];
				t->taken = true;
			}
			trial_print(s, t);
			/* a part found failing behind the one taken is tried again
			 * on the new machine */
			if (t->out != OUT_FAILS || t->taken) {
				done = xrealloc(done, (ndone + 1) * sizeof(char *));
				done[ndone++] = xstrdup(c[pick[i]].part);
			}
		}
		for (size_t i = 0; i < np; i++) {
			child_free(&ch[i]);
			free(texts[i]);
		}
		free(batch_parts);
		if (first_taken != SIZE_MAX) {
			json_decref(s->machine);
			s->machine = json_incref(c[first_taken].machine);
			took = 1;
		}
		shrink_cands_free(c, n);
		if (r)
			break;
	}
	for (size_t i = 0; i < ndone; i++)
		free(done[i]);
	free(done);
	return r ? r : took;
}

/* Disk ids the scenario's text outside its machine names. */
static void find_named(struct shrink *s)
{
	const json_t *d;
	size_t i, n = 0;

	s->named =
	    xcalloc(json_array_size(json_object_get(s->machine, "disks")) + 1, sizeof(char *));
	json_array_foreach (json_object_get(s->machine, "disks"), i, d) {
		const char *id = json_string_value(json_object_get(d, "id"));

		if (id && (shrink_names_word(s->doc.text, s->doc.from, id) ||
			   shrink_names_word(s->doc.text + s->doc.to, s->doc.len - s->doc.to, id)))
			s->named[n++] = xstrdup(id);
	}
}

/* The scenario itself, --repeat times: 0 with s->key set (it fails the
 * same way every time), else the exit code after saying why. */
static int baseline(struct shrink *s, json_t *j)
{
	struct child ch;
	char **keys;
	size_t n, pass = 0;
	int r;

	fprintf(s->out, "ktb shrink: %s, %d run%s of each machine; logs in %s\n", s->c->scenario,
		s->c->repeat, s->c->repeat == 1 ? "" : "s", s->dir);
	child_start(s, &ch, s->doc.text, s->doc.len);
	if ((r = children_wait(&ch, 1))) {
		child_free(&ch);
		return KTB_EXIT_INTERRUPTED;
	}
	keys = attempt_keys(ch.json, &n);
	if (!keys || !n) {
		fprintf(s->out,
			"ktb shrink: the scenario's run wrote no result (exit %d): see %s\n",
			ch.code, ch.log);
		keys_free(keys, n);
		child_free(&ch);
		json_object_set_new(j, "result", json_string("could not test"));
		return ch.code == KTB_EXIT_USAGE ? KTB_EXIT_USAGE : KTB_EXIT_UNTESTED;
	}
	for (size_t i = 0; i < n; i++)
		pass += !strcmp(keys[i], "pass");
	r = 0;
	if (pass == n) {
		fprintf(s->out, "ktb shrink: nothing to shrink: %s passed %zu of %zu runs\n",
			s->c->scenario, n, n);
		json_object_set_new(j, "result", json_string("nothing to shrink"));
		r = -1;
	} else {
		size_t same = 0;

		for (size_t i = 0; i < n; i++)
			same += !strcmp(keys[i], keys[0]);
		if (same != n || !strncmp(keys[0], "error", 5) || !strncmp(keys[0], "skip", 4)) {
			bool untested =
			    !strncmp(keys[0], "error", 5) || !strncmp(keys[0], "skip", 4);

			fprintf(
			    s->out,
			    untested && same == n
				? "ktb shrink: %s could not be tested, so there is nothing to "
				  "shrink; its %zu runs:\n"
				: "ktb shrink: %s does not fail the same way every time, so there "
				  "is nothing to shrink against; its %zu runs:\n",
			    s->c->scenario, n);
			for (size_t i = 0; i < n; i++)
				fprintf(s->out, "  %s\n", keys[i]);
			json_object_set_new(
			    j, "result",
			    json_string(untested && same == n ? "could not test" : "flaky"));
			r = untested && same == n ? KTB_EXIT_UNTESTED : KTB_EXIT_FAIL;
		} else {
			s->key = xstrdup(keys[0]);
			fprintf(s->out, "ktb shrink: it fails the same way %zu of %zu times: %s\n",
				n, n, s->key);
		}
	}
	keys_free(keys, n);
	child_free(&ch);
	return r;
}

/* ---- what is written ---- */

static int write_shrunk(struct shrink *s, const char *path)
{
	size_t len;
	char *body = shrink_doc_render(&s->doc, s->machine, &len);
	char *text = xasprintf(SHRUNK_HEADER "the smallest machine found on which %s fails the "
					     "same way:\n# %s\n%s",
			       s->c->scenario, s->key, body);
	int r = write_file(path, text, strlen(text));

	free(body);
	free(text);
	return r;
}

static json_t *trial_json(const struct trial *t)
{
	return json_pack("{s:s, s:s, s:i, s:s, s:s, s:b, s:b, s:s?, s:I}", "part", t->part,
			 "change", t->change, "pass", (int)t->pass, "outcome",
			 outcome_names[t->out], "detail", t->detail ? t->detail : "", "taken",
			 t->taken, "final", t->final, "yaml", t->yaml, "duration_ms",
			 (json_int_t)t->ms);
}

/* The summary: the parts that matter, with their passing neighbours. */
static void summary(struct shrink *s, json_t *j, unsigned last)
{
	json_t *matters = json_array(), *undecided = json_array(), *other = json_array(),
	       *taken = json_array(), *all = json_array();
	int64_t ms = now_ms() - s->t0;
	bool first = true;

	for (size_t i = 0; i < s->nt; i++) {
		struct trial *t = &s->t[i];

		t->final = t->pass == last;
		json_array_append_new(all, trial_json(t));
		if (t->taken)
			json_array_append_new(taken, trial_json(t));
		else if (t->final)
			json_array_append_new(t->out == OUT_PASSES	? matters
					      : t->out == OUT_UNDECIDED ? undecided
									: other,
					      trial_json(t));
	}
	fprintf(s->out, "ktb shrink: written %s\n", s->written);
	fprintf(s->out, "parts that matter (the failure goes away without them):\n");
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].final && s->t[i].out == OUT_PASSES)
			fprintf(s->out, "  %s: %s passes %s; that machine: %s\n", s->t[i].part,
				s->t[i].change, s->t[i].detail, s->t[i].yaml);
	if (!json_array_size(matters))
		fprintf(s->out, "  none found by one change\n");
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].final && s->t[i].out != OUT_PASSES && s->t[i].out != OUT_FAILS)
			fprintf(s->out, "not taken: %s: %s %s (%s)\n", s->t[i].part, s->t[i].change,
				outcome_names[s->t[i].out], s->t[i].detail);
	fprintf(s->out, "removed or simplified:");
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].taken) {
			fprintf(s->out, "%s %s (%s)", first ? "" : ",", s->t[i].part,
				s->t[i].change);
			first = false;
		}
	fprintf(s->out, "%s\n", first ? " nothing" : "");
	fprintf(s->out, "runs: %u (%u boots), %lldm%02llds\n", s->runs, s->boots,
		(long long)(ms / 60000), (long long)(ms / 1000 % 60));
	json_object_set_new(j, "matters", matters);
	json_object_set_new(j, "undecided", undecided);
	json_object_set_new(j, "not_taken", other);
	json_object_set_new(j, "taken", taken);
	json_object_set_new(j, "trials", all);
	json_object_set_new(j, "machine", json_incref(s->machine));
	json_object_set_new(j, "written", json_string(s->written));
}

static int json_out(const struct shrink *s, json_t *j, int ret)
{
	const char *path = s->c->json;

	json_object_set_new(j, "exit", json_integer(ret));
	json_object_set_new(j, "runs", json_integer(s->runs));
	json_object_set_new(j, "boots", json_integer(s->boots));
	json_object_set_new(j, "duration_ms", json_integer(now_ms() - s->t0));
	if (!path)
		return ret;
	if (!strcmp(path, "-") ? json_dumpf(j, stdout, JSON_INDENT(2)) || fputc('\n', stdout) == EOF
			       : json_dump_file(j, path, JSON_INDENT(2))) {
		cli_err("cannot write --json %s", path);
		return ret ? ret : KTB_EXIT_UNTESTED;
	}
	return ret;
}

/* Refused before anything runs: a file that does not load, or an output
 * that would overwrite a file ktb shrink did not write. */
static int check_input(struct shrink *s, const char *out)
{
	struct scenario_error err;
	struct scenario *sc = NULL;
	char why[1024];
	size_t len;
	char *text = read_file(s->c->scenario, &len), *old, *dir;
	const char *slash = strrchr(s->c->scenario, '/');

	if (!text) {
		cli_err("%s: %s", s->c->scenario, strerror(errno));
		return KTB_EXIT_USAGE;
	}
	memset(&err, 0, sizeof(err));
	if (scenario_load_buffer(s->c->scenario, text, len, &sc, &err)) {
		scenario_error_format(&err, why, sizeof(why));
		fprintf(stderr, "ktb: %s\n", why);
		free(text);
		return KTB_EXIT_USAGE;
	}
	scenario_free(sc);
	if (shrink_doc_open(text, len, &s->doc, why, sizeof(why))) {
		cli_err("%s: %s", s->c->scenario, why);
		free(text);
		return KTB_EXIT_USAGE;
	}
	free(text);
	dir = xasprintf("%.*s", slash ? (int)(slash - s->c->scenario + 1) : 1,
			slash ? s->c->scenario : ".");
	if (access(dir, W_OK)) {
		cli_err(
		    "%s: its folder %s cannot be written (%s): the smaller machines and %s are "
		    "written beside it; copy the scenario, with what it refers to, where you can "
		    "write",
		    s->c->scenario, dir, strerror(errno), out);
		free(dir);
		return KTB_EXIT_USAGE;
	}
	free(dir);
	old = read_file(out, &len);
	if (old && strncmp(old, SHRUNK_HEADER, strlen(SHRUNK_HEADER))) {
		cli_err("%s is there and is not one ktb shrink wrote: move it away first", out);
		free(old);
		return KTB_EXIT_USAGE;
	}
	free(old);
	return 0;
}

static int shrink_run(struct shrink *s, json_t *j)
{
	unsigned pass = 0;
	int r;

	if ((r = baseline(s, j)))
		return r < 0 ? 0 : r;
	json_object_set_new(j, "failure", json_string(s->key));
	find_named(s);
	do {
		r = one_pass(s, ++pass);
	} while (r == 1);
	json_object_set_new(j, "result", json_string(r ? "interrupted" : "shrunk"));
	if (write_shrunk(s, s->written)) {
		cli_err("cannot write %s: %s", s->written, strerror(errno));
		summary(s, j, pass);
		return KTB_EXIT_UNTESTED;
	}
	summary(s, j, pass);
	return r ? KTB_EXIT_INTERRUPTED : 0;
}

static int cli_shrink(int argc, char **argv)
{
	struct shrink_cli c = { .repeat = 3, .jobs = 1, .artifacts = "artifacts" };
	struct shrink s = { .c = &c, .t0 = now_ms() };
	json_t *j = json_object();
	char *id;
	int r = shrink_parse(argc, argv, &c);

	if (!r) {
		s.written = shrunk_path(c.scenario);
		r = check_input(&s, s.written);
	}
	if (r) {
		json_decref(j);
		free(s.written);
		shrink_doc_free(&s.doc);
		return r;
	}
	s.out = c.json && !strcmp(c.json, "-") ? stderr : stdout;
	s.self = cli_self_exe();
	s.machine = json_incref(s.doc.machine);
	id = runner_new_run_id();
	s.dir = xasprintf("%s/shrink-%s", c.artifacts, id);
	free(id);
	if (mkdir_p(s.dir, 0755)) {
		cli_err("cannot create %s: %s", s.dir, strerror(errno));
		r = KTB_EXIT_UNTESTED;
	} else {
		char *abs = realpath(s.dir, NULL);

		free(s.dir);
		s.dir = abs;
		json_object_set_new(j, "scenario", json_string(c.scenario));
		json_object_set_new(j, "artifacts", json_string(s.dir));
		r = shrink_run(&s, j);
	}
	r = json_out(&s, j, r);
	json_decref(j);
	for (size_t i = 0; i < s.nt; i++) {
		free(s.t[i].part);
		free(s.t[i].change);
		free(s.t[i].detail);
		free(s.t[i].yaml);
	}
	free(s.t);
	for (size_t i = 0; s.named && s.named[i]; i++)
		free(s.named[i]);
	free(s.named);
	json_decref(s.machine);
	shrink_doc_free(&s.doc);
	free(s.key);
	free(s.written);
	free(s.dir);
	free(s.self);
	return r;
}

const struct cli_command cli_shrink_command = {
	.name = "shrink",
	.fn = cli_shrink,
	.summary = "find the smallest machine on which a failing scenario still fails",
	.usage = shrink_usage,
	.options = shrink_options,
	.shortopts = "j:h",
};
