/* ktb run and ktb list. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "proc.h"
#include "report.h"
#include "runner.h"
#include "util.h"

struct run_cli {
	struct kernel_choice k;
	const char *append, *junit, *json, *artifacts;
	bool tap, verbose;
	int jobs;
};

static void run_usage(FILE *f)
{
	fprintf(f, "usage: ktb run [options] SCENARIO.yaml|DIR...\n"
		   "  -j N              scenarios at once (only 1 for now)\n"
		   "  --kernel K        Debian ABI (6.1.0-57) or a path to a bzImage/vmlinux\n"
		   "  --modules DIR     modules for --kernel PATH\n"
		   "  --recipe R        image recipe (name in images/ or a path)\n"
		   "  --append ARGS     kernel arguments added to every scenario's\n"
		   "  --json F          whole-run results as JSON\n"
		   "  --junit F         JUnit XML\n"
		   "  --tap             TAP on standard output instead of the table\n"
		   "  --artifacts DIR   where artifacts/<run>/<scenario>/ go (default: ./artifacts)\n"
		   "  -v, --verbose     show every step, and the image builder's output\n"
		   "With no SCENARIO, runs the default library (%s).\n",
		scenarios_default_dir());
}

static int run_parse(int argc, char **argv, struct run_cli *c)
{
	static const struct option opts[] = {
		{"kernel", required_argument, 0, 'k'}, {"modules", required_argument, 0, 'm'},
		{"recipe", required_argument, 0, 'r'}, {"append", required_argument, 0, 'a'},
		{"json", required_argument, 0, 'J'},   {"junit", required_argument, 0, 'U'},
		{"tap", no_argument, 0, 'T'},          {"artifacts", required_argument, 0, 'A'},
		{"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int ch;

	memset(c, 0, sizeof(*c));
	c->jobs = 1;
	c->artifacts = "artifacts";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'j': c->jobs = atoi(optarg); break;
		case 'k': c->k.kernel = optarg; break;
		case 'm': c->k.modules = optarg; break;
		case 'r': c->k.recipe = optarg; break;
		case 'a': c->append = optarg; break;
		case 'J': c->json = optarg; break;
		case 'U': c->junit = optarg; break;
		case 'T': c->tap = true; break;
		case 'A': c->artifacts = optarg; break;
		case 'v': c->verbose = c->k.verbose = true; break;
		case 'h': run_usage(stdout); exit(0);
		default: run_usage(stderr); return KTB_EXIT_USAGE;
		}
	}
	if (c->jobs != 1) {
		fprintf(stderr, "ktb run: -j %s: only -j 1 is available so far\n",
			c->jobs > 1 ? "N" : "0");
		return KTB_EXIT_USAGE;
	}
	return 0;
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

static int write_report(const char *path, int (*fn)(const struct run_result *, FILE *),
			const struct run_result *rr)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f) {
		fprintf(stderr, "ktb: cannot write %s: %s\n", path, strerror(errno));
		return -errno;
	}
	r = fn(rr, f);
	if (fclose(f) || r) {
		fprintf(stderr, "ktb: writing %s failed\n", path);
		return -EIO;
	}
	return 0;
}

static int run_all(const struct run_cli *c, struct scenario_set *set, struct image *img,
		   struct run_result *rr)
{
	struct progress_ctx pc = {.total = set->count};
	struct run_opts o = {
		.image = img, .append = c->append, .artifacts_root = c->artifacts,
		.run_id = rr->run_id, .verbose = c->verbose, .progress = on_progress,
		.progress_ctx = &pc,
	};
	FILE *out = c->tap ? stderr : stdout;

	o.sig_fd = proc_signals_install();
	o.kvm = accel_prepare(img, false);
	rr->scenarios = xcalloc(set->count, sizeof(*rr->scenarios));
	for (size_t i = 0; i < set->count; i++) {
		pc.idx = i + 1;
		pc.name = set->items[i]->name;
		int r = runner_run_scenario(set->items[i], &o, &rr->scenarios[i]);

		rr->count = i + 1;
		report_term_progress(stderr, 0, 0, NULL, NULL);
		report_term_scenario(&rr->scenarios[i], out, c->verbose);
		if (r == -EINTR)
			return KTB_EXIT_INTERRUPTED;
	}
	return 0;
}

int cli_run(int argc, char **argv)
{
	struct run_cli c;
	struct scenario_set set;
	struct image img = {0};
	struct run_result rr = {0};
	char *def[] = {(char *)scenarios_default_dir()};
	int ret = run_parse(argc, argv, &c);
	int64_t t0 = now_ms();

	if (ret)
		return ret;
	ret = optind < argc ? scenarios_load_all(argv + optind, argc - optind, &set)
			    : scenarios_load_all(def, 1, &set);
	if (ret)
		return ret;
	ret = image_prepare(&c.k, &img);
	if (ret)
		goto out;
	rr.run_id = runner_new_run_id();
	rr.started_unix_ms = (int64_t)time(NULL) * 1000;
	ret = run_all(&c, &set, &img, &rr);
	rr.duration_ms = now_ms() - t0;
	if (c.tap)
		report_tap(&rr, stdout);
	else
		report_term_summary(&rr, stdout);
	if (!ret)
		ret = run_result_exit_code(&rr);
	/* a report CI cannot read is a run it cannot judge, unless it failed anyway */
	if (((c.json && write_report(c.json, report_json, &rr)) ||
	     (c.junit && write_report(c.junit, report_junit, &rr))) && !ret)
		ret = KTB_EXIT_UNTESTED;
	run_result_free(&rr);
out:
	image_free(&img);
	scenarios_free(&set);
	return ret;
}

int cli_list(int argc, char **argv)
{
	struct scenario_set set;
	char *def[] = {(char *)scenarios_default_dir()};
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ktb list [SCENARIO.yaml|DIR...]\n");
		return 0;
	}
	ret = argc > 1 ? scenarios_load_all(argv + 1, argc - 1, &set)
		       : scenarios_load_all(def, 1, &set);
	if (ret)
		return ret;
	for (size_t i = 0; i < set.count; i++) {
		const struct scenario *s = set.items[i];

		printf("%-24s [", s->name);
		for (unsigned t = 0; t < s->tags_count; t++)
			printf("%s%s", t ? "," : "", s->tags[t]);
		printf("]  %s\n", s->summary ? s->summary : "");
	}
	scenarios_free(&set);
	return 0;
}
