/* ktb run and ktb list. */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_run.h"
#include "cli.h"
#include "cli_common.h"
#include "backend_libvirt.h"
#include "guard.h"
#include "parallel.h"
#include "proc.h"
#include "report_json.h"
#include "report_junit.h"
#include "report_kcidb.h"
#include "report_tap.h"
#include "report_term.h"
#include "report_html.h"
#include "runner.h"
#include "shard.h"
#include "util.h"

struct run_cli {
	struct kernel_choice k;
	const char *append, *junit, *json, *html, *kcidb, *artifacts;
	const char *shard;  /* --shard K/N */
	const char *run_id; /* --run-id ID */
	bool tap, verbose, list;
	int jobs, repeat;
	char **tags, **globs, **xtags; /* filters: -t TAG, -n GLOB, -x TAG (NULL-terminated) */
	size_t ntags, nglobs, nxtags;
	const char *backend; /* --backend: NULL (qemu), "qemu" or "libvirt" */
	struct hosts hosts;  /* --connect URI[,slots=N] ... */
	bool jobs_given;
};

static void run_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ktb run [options] SCENARIO.yaml|DIR...\n"
	    "  -j N              scenarios at once, one worker process per VM\n"
	    "  -t TAG            only scenarios with this tag (may be repeated)\n"
	    "  -n GLOB           only scenarios whose name matches (may be repeated)\n"
	    "  -x TAG            not the scenarios with this tag (may be repeated)\n"
	    "  --list            print the scenarios that would run, and stop\n"
	    "  --shard K/N       only the K-th of N balanced shares of the selection (CI jobs)\n"
	    "  --run-id ID       the run's id (artifacts/ID/, the reports), the same in every\n"
	    "                    shard's job (default: derived from the selection for --shard)\n"
	    "  --repeat N        run each scenario N times; report pass rates, mark flaky ones\n"
	    "  --kernel K        Debian ABI (6.1.0-57), a path to a bzImage/vmlinux, or a\n"
	    "                    kernel build tree (its bzImage, .config and modules)\n"
	    "  --modules DIR     modules for --kernel PATH (instead of a tree's)\n"
	    "  --recipe R        image recipe (name in images/ or a path)\n"
	    "  --append ARGS     kernel arguments added to every scenario's\n"
	    "  --json F          whole-run results as JSON\n"
	    "  --junit F         JUnit XML\n"
	    "  --html F          one self-contained HTML page: results, steps, consoles\n"
	    "  --kcidb F         the run in the KCIDB I/O schema (KernelCI's common database)\n"
	    "  --tap             TAP on standard output instead of the table\n"
	    "  --artifacts DIR   where artifacts/<run>/<scenario>/ go (default: ./artifacts)\n"
	    "  -v, --verbose     show every step, and the image builder's output\n"
	    "  --backend B       qemu (default: QEMU runs here) or libvirt (a domain per VM)\n"
	    "  --connect URI[,slots=N]\n"
	    "                    a libvirt host for --backend libvirt (may be repeated: a\n"
	    "                    pool; N scenarios at once there, default 1; default\n"
	    "                    qemu:///system)\n"
	    "With no SCENARIO, runs the default library (%s).\n",
	    scenarios_default_dir());
}

static void push_word(char ***v, size_t *n, char *w)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(char *));
	(*v)[(*n)++] = w;
	(*v)[*n] = NULL;
}

/* --connect means libvirt; libvirt without --connect means this machine's
 * system daemon. */
static int run_backend_check(struct run_cli *c)
{
	char why[300];

	if (c->backend && !strcmp(c->backend, "qemu") && c->hosts.n) {
		fprintf(stderr, "ktb run: --connect is for --backend libvirt\n");
		return KTB_EXIT_USAGE;
	}
	if (!c->hosts.n && !(c->backend && !strcmp(c->backend, "libvirt")))
		return 0;
	if (!backend_libvirt_available()) {
		fprintf(stderr, "ktb run: --backend libvirt: this ktb was built without libvirt; "
				"install libvirt-dev (./bootstrap does) and rebuild\n");
		return KTB_EXIT_USAGE;
	}
	c->backend = "libvirt";
	for (size_t i = 0; i < c->hosts.n; i++) {
		struct ssh_target t;

		if (hosts_uri_local(c->hosts.h[i].uri))
			continue;
		/* a remote host: over ssh only (docs/libvirt.md, remote hosts) */
		if (!hosts_uri_ssh(c->hosts.h[i].uri, &t, why, sizeof(why))) {
			ssh_target_free(&t);
			continue;
		}
		fprintf(stderr,
			"ktb run: --connect %s; the harness reaches a remote host's "
			"monitor, agent and console through ssh (see docs/libvirt.md)\n",
			why);
		return KTB_EXIT_USAGE;
	}
	if (!c->hosts.n) {
		/* -j N: N at once on this machine's daemon */
		char arg[64];

		snprintf(arg, sizeof(arg), "qemu:///system,slots=%d", c->jobs_given ? c->jobs : 1);
		if (hosts_add(&c->hosts, arg, why, sizeof(why)))
			return KTB_EXIT_USAGE;
	}
	return 0;
}

static int run_parse(int argc, char **argv, struct run_cli *c)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, 0, 'k' },
		{ "modules", required_argument, 0, 'm' },
		{ "recipe", required_argument, 0, 'r' },
		{ "append", required_argument, 0, 'a' },
		{ "json", required_argument, 0, 'J' },
		{ "junit", required_argument, 0, 'U' },
		{ "tap", no_argument, 0, 'T' },
		{ "artifacts", required_argument, 0, 'A' },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ "list", no_argument, 0, 'L' },
		{ "repeat", required_argument, 0, 'R' },
		{ "html", required_argument, 0, 'H' },
		{ "backend", required_argument, 0, 'B' },
		{ "connect", required_argument, 0, 'C' },
		{ "kcidb", required_argument, 0, 'K' },
		{ "shard", required_argument, 0, 'S' },
		{ "run-id", required_argument, 0, 'I' },
		{ 0, 0, 0, 0 },
	};
	int ch;

	memset(c, 0, sizeof(*c));
	c->jobs = 1;
	c->repeat = 1;
	c->artifacts = "artifacts";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:t:n:x:vh", opts, NULL)) != -1) {
		if (kernel_choice_option(&c->k, ch, optarg))
			continue;
		switch (ch) {
		case 'j':
			if (cli_count("run", "-j", optarg, 64, &c->jobs))
				return KTB_EXIT_USAGE;
			c->jobs_given = true;
			break;
		case 'B':
			if (strcmp(optarg, "qemu") && strcmp(optarg, "libvirt")) {
				fprintf(stderr, "ktb run: --backend %s: use qemu or libvirt\n",
					optarg);
				return KTB_EXIT_USAGE;
			}
			c->backend = optarg;
			break;
		case 'C': {
			char why[300];

			if (hosts_add(&c->hosts, optarg, why, sizeof(why))) {
				fprintf(stderr, "ktb run: %s\n", why);
				return KTB_EXIT_USAGE;
			}
			break;
		}
		case 't':
			push_word(&c->tags, &c->ntags, optarg);
			break;
		case 'n':
			push_word(&c->globs, &c->nglobs, optarg);
			break;
		case 'x':
			push_word(&c->xtags, &c->nxtags, optarg);
			break;
		case 'L':
			c->list = true;
			break;
		case 'R':
			if (cli_count("run", "--repeat", optarg, 1000, &c->repeat))
				return KTB_EXIT_USAGE;
			break;
		case 'a':
			c->append = optarg;
			break;
		case 'J':
			c->json = optarg;
			break;
		case 'U':
			c->junit = optarg;
			break;
		case 'H':
			c->html = optarg;
			break;
		case 'K':
			c->kcidb = optarg;
			break;
		case 'S':
			c->shard = optarg;
			break;
		case 'I': {
			char why[200];

			if (shard_run_id_check(optarg, why, sizeof(why))) {
				fprintf(stderr, "ktb run: %s\n", why);
				return KTB_EXIT_USAGE;
			}
			c->run_id = optarg;
			break;
		}
		case 'T':
			c->tap = true;
			break;
		case 'A':
			c->artifacts = optarg;
			break;
		case 'v':
			c->verbose = c->k.verbose = true;
			break;
		case 'h':
			run_usage(stdout);
			exit(0);
		default:
			run_usage(stderr);
			return KTB_EXIT_USAGE;
		}
	}
	return run_backend_check(c);
}

struct progress_ctx {
	size_t idx, total;
	const char *name;
};

static void on_progress(void *ctx, const char *what)
{
	struct progress_ctx *p = ctx;

	report_term_progress(stderr, p->idx, p->total, p->name, what);
}

struct parallel_print {
	const struct run_cli *c;
	struct run_result *rr;
};

static void on_parallel_done(void *ctx, size_t idx)
{
	struct parallel_print *pp = ctx;

	pp->rr->count = idx + 1;
	report_term_scenario(&pp->rr->scenarios[idx], pp->c->tap ? stderr : stdout, pp->c->verbose);
}

/* What runs, in order: each scenario, --repeat times over. */
struct run_plan {
	struct scenario **items;
	unsigned *attempts; /* NULL without --repeat */
	size_t n;
};

static void plan_make(const struct run_cli *c, const struct scenario_set *set, struct run_plan *p)
{
	size_t k = 0;

	p->n = set->count * (size_t)c->repeat;
	p->items = xcalloc(p->n, sizeof(*p->items));
	p->attempts = c->repeat > 1 ? xcalloc(p->n, sizeof(unsigned)) : NULL;
	for (size_t i = 0; i < set->count; i++)
		for (int a = 1; a <= c->repeat; a++, k++) {
			p->items[k] = set->items[i];
			if (p->attempts)
				p->attempts[k] = (unsigned)a;
		}
}

/* After a signal: the scenarios from i on are listed as skips, not run, as
 * the -j workers' are. */
static void run_not_run(const struct run_plan *plan, size_t i, struct run_result *rr, FILE *out,
			bool verbose)
{
	for (; i < plan->n; i++) {
		result_placeholder(
		    &rr->scenarios[i], plan->items[i], plan->attempts ? plan->attempts[i] : 0,
		    ST_SKIP, xasprintf("not run: interrupted by signal %d", proc_interrupted()));
		rr->count = i + 1;
		report_term_scenario(&rr->scenarios[i], out, verbose);
	}
}

static int run_sequential(const struct run_cli *c, const struct run_plan *plan,
			  const struct run_opts *opts, struct run_result *rr)
{
	struct progress_ctx pc = { .total = plan->n };
	struct run_opts lo = *opts, *o = &lo;
	FILE *out = c->tap ? stderr : stdout;

	o->progress = on_progress;
	o->progress_ctx = &pc;
	for (size_t i = 0; i < plan->n; i++) {
		if (proc_interrupted()) {
			run_not_run(plan, i, rr, out, c->verbose);
			return KTB_EXIT_INTERRUPTED;
		}
		pc.idx = i + 1;
		pc.name = plan->items[i]->name;
		o->attempt = plan->attempts ? plan->attempts[i] : 0;
		int r = runner_run_scenario(plan->items[i], o, &rr->scenarios[i]);

		rr->count = i + 1;
		report_term_progress(stderr, 0, 0, NULL, NULL);
		report_term_scenario(&rr->scenarios[i], out, c->verbose);
		if (r == -EINTR) {
			run_not_run(plan, i + 1, rr, out, c->verbose);
			return KTB_EXIT_INTERRUPTED;
		}
	}
	return 0;
}

static int run_all(const struct run_cli *c, struct scenario_set *set, struct image *img,
		   struct run_result *rr)
{
	struct run_opts o = {
		.image = img,
		.append = c->append,
		.artifacts_root = c->artifacts,
		.run_id = rr->run_id,
		.verbose = c->verbose,
	};
	struct parallel_print pp = { .c = c, .rr = rr };
	struct run_plan plan;
	int r;

	plan_make(c, set, &plan);
	o.sig_fd = proc_signals_install();
	o.kvm = accel_prepare(img, false);
	o.kconfig = kconfig_prepare(img);
	rr->scenarios = xcalloc(plan.n, sizeof(*rr->scenarios));
	if (c->hosts.n) {
		/* every scenario in a worker, so a failed host can hand it on */
		unsigned cap = hosts_capacity(&c->hosts);

		r = parallel_run_hosts(
		    plan.items, plan.attempts, plan.n, &o,
		    c->jobs_given && (unsigned)c->jobs < cap ? (unsigned)c->jobs : cap,
		    (struct hosts *)&c->hosts, rr->scenarios, on_parallel_done, &pp);
		rr->count = plan.n;
		r = r == -EINTR ? KTB_EXIT_INTERRUPTED : r ? KTB_EXIT_UNTESTED : 0;
	} else if (c->jobs <= 1 || plan.n <= 1) {
		r = run_sequential(c, &plan, &o, rr);
	} else {
		r = parallel_run(plan.items, plan.attempts, plan.n, &o, (unsigned)c->jobs,
				 rr->scenarios, on_parallel_done, &pp);
		rr->count = plan.n;
		r = r == -EINTR ? KTB_EXIT_INTERRUPTED : r ? KTB_EXIT_UNTESTED : 0;
	}
	free(plan.items);
	free(plan.attempts);
	if (o.kconfig)
		kconfig_free((struct kconfig *)o.kconfig);
	return r;
}

/* Everything the run puts in $TMPDIR (the scenarios' sockets and disk
 * images, and whatever QEMU, the back ends and the image builder make there)
 * goes to one private folder, which the guardian removes however ktb ends. */
static int run_guard_start(void)
{
	char *tmpl = tmp_template("ktb"), *dir = NULL;
	int ret = 0;

	if (!mkdtemp(tmpl) || !(dir = realpath(tmpl, NULL))) {
		ret = -errno;
		fprintf(stderr, "ktb run: cannot create a temporary folder %s: %s\n", tmpl,
			strerror(errno));
		goto out;
	}
	ret = guard_start(dir);
	if (ret < 0) {
		fprintf(stderr, "ktb run: cannot start the clean-up guardian: %s\n",
			strerror(-ret));
		rmdir(dir);
		goto out;
	}
	setenv("TMPDIR", dir, 1);
out:
	free(tmpl);
	free(dir);
	return ret < 0 ? KTB_EXIT_UNTESTED : 0;
}

static int run_reports(const struct run_cli *c, const struct run_result *rr)
{
	const struct report_file files[] = {
		{ c->json, report_json },
		{ c->junit, report_junit },
		{ c->html, report_html },
		{ c->kcidb, report_kcidb },
	};

	return reports_write(files, sizeof(files) / sizeof(files[0]), rr);
}

static bool wanted(const struct run_cli *c, const struct scenario *s)
{
	bool tag_ok = !c->ntags, name_ok = !c->nglobs;

	for (size_t i = 0; i < c->ntags && !tag_ok; i++)
		for (unsigned t = 0; t < s->tags_count; t++)
			tag_ok |= !strcmp(c->tags[i], s->tags[t]);
	for (size_t i = 0; i < c->nglobs && !name_ok; i++)
		name_ok = !fnmatch(c->globs[i], s->name, 0);
	for (size_t i = 0; i < c->nxtags && tag_ok; i++)
		for (unsigned t = 0; t < s->tags_count; t++)
			tag_ok &= strcmp(c->xtags[i], s->tags[t]) != 0;
	return tag_ok && name_ok;
}

/* What the run is cut from, for its document (ktb merge checks shards by
 * it): the filters, --repeat, the kernel asked for, the selection, the
 * shard. */
static void run_selection_make(const struct run_cli *c, const struct scenario_set *set,
			       struct run_selection *sel)
{
	unsigned k = 0, n = 0;
	char why[200];

	sel->tags = run_selection_words((const char *const *)c->tags, c->ntags);
	sel->tags_count = c->ntags;
	sel->exclude_tags = run_selection_words((const char *const *)c->xtags, c->nxtags);
	sel->exclude_tags_count = c->nxtags;
	sel->names = run_selection_words((const char *const *)c->globs, c->nglobs);
	sel->names_count = c->nglobs;
	sel->repeat = (unsigned)c->repeat;
	sel->kernel = xstrdup(c->k.kernel);
	sel->recipe = xstrdup(c->k.recipe);
	scenarios_selection(set, sel);
	if (c->shard && !shard_parse(c->shard, &k, &n, why, sizeof(why))) {
		sel->shard_k = k;
		sel->shard_n = n;
	}
}

/* Keep what -t and -n select; nothing selected is bad input. */
static int run_filter(const struct run_cli *c, struct scenario_set *set)
{
	size_t kept = 0;

	for (size_t i = 0; i < set->count; i++) {
		if (wanted(c, set->items[i]))
			set->items[kept++] = set->items[i];
		else
			scenario_free(set->items[i]);
	}
	set->count = kept;
	if (kept)
		return 0;
	fprintf(stderr, "ktb run: no scenario matches the -t/-n/-x filters\n");
	return KTB_EXIT_USAGE;
}

static void run_list(const struct scenario_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		printf("%s\t%s\n", set->items[i]->name, set->items[i]->file);
}

int cli_run(int argc, char **argv)
{
	struct run_cli c;
	struct scenario_set set;
	struct image img = { 0 };
	struct run_result rr = { 0 };
	char *def[] = { (char *)scenarios_default_dir() };
	int ret = run_parse(argc, argv, &c);
	int64_t t0 = now_ms();

	if (ret)
		goto out_args;
	/* libvirt runs its own virtiofsd, maybe on another host: not ours to ask */
	if (!c.backend || strcmp(c.backend, "libvirt"))
		shares_preflight_enable();
	ret = optind < argc ? scenarios_load_all(argv + optind, argc - optind, &set)
			    : scenarios_load_all(def, 1, &set);
	if (ret)
		goto out_args;
	ret = run_filter(&c, &set);
	if (!ret)
		run_selection_make(&c, &set, &rr.sel);
	if (!ret && c.shard)
		ret = scenarios_shard(&set, "run", c.shard);
	if (ret || c.list) {
		if (!ret)
			run_list(&set);
		goto out;
	}
	shares_notes_print(&set, stderr);
	ret = run_guard_start();
	if (ret)
		goto out;
	/* an empty share (more shards than scenarios) passes without a boot */
	ret = set.count ? image_prepare(&c.k, &img) : 0;
	if (ret)
		goto out;
	rr.run_id = c.run_id  ? xstrdup(c.run_id)
		    : c.shard ? shard_run_id(&rr.sel)
			      : runner_new_run_id();
	rr.started_unix_ms = (int64_t)time(NULL) * 1000;
	ret = set.count ? run_all(&c, &set, &img, &rr) : 0;
	rr.interrupted = proc_interrupted();
	rr.duration_ms = now_ms() - t0;
	if (c.tap)
		report_tap(&rr, stdout);
	else
		report_term_summary(&rr, stdout);
	if (!ret)
		ret = run_result_exit_code(&rr);
	/* a report CI cannot read is a run it cannot judge, unless it failed anyway */
	if (run_reports(&c, &rr) && !ret)
		ret = KTB_EXIT_UNTESTED;
out:
	run_result_free(&rr);
	guard_finish();
	image_free(&img);
	scenarios_free(&set);
out_args:
	free(c.tags);
	free(c.xtags);
	free(c.globs);
	hosts_free(&c.hosts);
	return ret;
}
