/* ktb run: the scenarios selected (cli_select.c), booted and judged, and
 * the reports written. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_run.h"
#include "cli.h"
#include "cli_common.h"
#include "cli_select.h"
#include "argv.h"
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
	const char *append, *junit, *json, *html, *kcidb, *tap, *artifacts;
	const char *run_id; /* --run-id ID */
	bool verbose, list;
	bool allow_host_root; /* --allow-host-root */
	int jobs, repeat;
	struct select_opts sel; /* -t, -n, -x, --shard */
	FILE *term;		/* the terminal's lines: stdout, or stderr when a report is "-" */
	const char *backend;	/* --backend: NULL (qemu), "qemu" or "libvirt" */
	struct hosts hosts;	/* --connect URI[,slots=N] ... */
	bool jobs_given;
	struct gdb_cli gdb;  /* --gdb[=PORT], --gdb-wait */
	int64_t keep_ms;     /* --keep-on-fail[=DURATION]; 0: not given */
	enum run_dump dump;  /* --dump WHEN (default on-failure) */
	uint64_t dump_limit; /* --dump-limit SIZE in bytes */
	char *gdb_append;    /* --append with nokaslr, for --gdb */
	char *debug_vmlinux; /* a --kernel tree's vmlinux, or the image's debug one:
			      * the findings' frames decoded */
	char *debug_modules; /* and where the modules' .ko files are */
};

static void run_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ktb run [options] [SCENARIO.yaml|DIR...]\n"
	    "  -j N              scenarios at once, one worker process per VM\n" SELECT_USAGE
	    "  --list            print the scenarios that would run (as ktb list), and stop\n"
	    "  --run-id ID       the run's id (artifacts/ID/, the reports), the same in every\n"
	    "                    shard's job (default: derived from the selection for --shard)\n"
	    "  --repeat N        run each scenario N times; report pass rates, mark flaky ones\n"
	    "  --kernel K        Debian ABI (6.1.0-57), a path to a bzImage/vmlinux, or a\n"
	    "                    kernel build tree (its bzImage, .config and modules)\n"
	    "  --modules DIR     modules for --kernel PATH (instead of a tree's)\n"
	    "  --recipe R        image recipe (name in images/ or a path)\n"
	    "  --append ARGS     kernel arguments added to every scenario's\n"
	    "  --json FILE       whole-run results as JSON\n"
	    "  --junit FILE      JUnit XML\n"
	    "  --tap FILE        TAP\n"
	    "  --html FILE       one self-contained HTML page: results, steps, consoles\n"
	    "  --kcidb FILE      the run in the KCIDB I/O schema (KernelCI's common database)\n"
	    "                    (a report's FILE - is standard output; the table then goes\n"
	    "                    to standard error)\n"
	    "  --artifacts DIR   where artifacts/<run>/<scenario>/ go (default: ./artifacts)\n"
	    "  -v, --verbose     show every step, and the image builder's output\n"
	    "  --backend B       qemu (default: QEMU runs here) or libvirt (a domain per VM)\n"
	    "  --connect URI[,slots=N]\n"
	    "                    a libvirt host for --backend libvirt (may be repeated: a\n"
	    "                    pool; N scenarios at once there, default 1; default\n"
	    "                    qemu:///system)\n"
	    "  --gdb[=PORT]      QEMU's gdb server on 127.0.0.1:PORT (a free one by default)\n"
	    "                    for each VM in turn (-j 1), nokaslr; prints how to attach\n"
	    "  --gdb-wait        with --gdb: each VM's CPUs wait until a debugger lets them\n"
	    "                    go (the scenario's time starts then)\n"
	    "  --keep-on-fail[=DURATION]\n"
	    "                    the first scenario that does not pass keeps its VM up for\n"
	    "                    DURATION (default 10m) or until Ctrl-C, and says how to\n"
	    "                    reach it (console, QMP, ktb exec through the agent, gdb)\n"
	    "  --dump WHEN       a dump of guest memory into the scenario's artifacts\n"
	    "                    (vmcore, kdump-compressed): on-failure (default: when the\n"
	    "                    guest panicked or hung), always, or never\n"
	    "  --dump-limit SIZE no dump larger than SIZE (default 4G; 0: no limit)\n"
	    "  --allow-host-root let scenarios with guest.root host run on this machine's\n"
	    "                    own root (read-only: the guest can read what root can)\n"
	    "With no SCENARIO, runs the default library (%s).\n"
	    "Exit: 0 passed, 1 a check failed, 2 bad input, 125 could not test, 130\n"
	    "interrupted (docs/cli.md).\n",
	    scenarios_default_dir());
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

enum {
	OPT_TAP = 'T',
	OPT_GDB = 0x100,
	OPT_GDB_WAIT,
	OPT_KEEP,
	OPT_DUMP,
	OPT_DUMP_LIMIT,
	OPT_HOST_ROOT
};

/* --dump-limit's default: a 4G guest's memory, uncompressed */
#define DUMP_LIMIT_DEFAULT (4ULL << 30)

/* --keep-on-fail's default hold */
#define KEEP_DEFAULT_MS (10 * 60 * 1000)

/* One gdb server port serves one VM at a time, QEMU's own (libvirt starts
 * its QEMU itself). */
static int run_gdb_check(const struct run_cli *c)
{
	int r = cli_gdb_check(&c->gdb);

	if (r)
		return r;
	if (c->keep_ms && c->backend && !strcmp(c->backend, "libvirt")) {
		fprintf(stderr,
			"ktb run: --keep-on-fail needs the qemu back end (a libvirt "
			"domain is libvirt's to keep: virsh); leave --backend libvirt out\n");
		return KTB_EXIT_USAGE;
	}
	if (!c->gdb.on)
		return 0;
	if (c->jobs > 1) {
		fprintf(stderr,
			"ktb run: --gdb serves one VM at a time; give -j 1 (or leave -j out)\n");
		return KTB_EXIT_USAGE;
	}
	if (c->backend && !strcmp(c->backend, "libvirt")) {
		fprintf(stderr, "ktb run: --gdb needs the qemu back end (libvirt starts QEMU "
				"itself); leave --backend libvirt out\n");
		return KTB_EXIT_USAGE;
	}
	return 0;
}

static const struct option run_options[] = {
	{ "kernel", required_argument, 0, 'k' },
	{ "modules", required_argument, 0, 'm' },
	{ "recipe", required_argument, 0, 'r' },
	{ "append", required_argument, 0, 'a' },
	{ "json", required_argument, 0, 'J' },
	{ "junit", required_argument, 0, 'U' },
	{ "tap", required_argument, 0, OPT_TAP },
	{ "artifacts", required_argument, 0, 'A' },
	{ "verbose", no_argument, 0, 'v' },
	{ "help", no_argument, 0, 'h' },
	{ "list", no_argument, 0, 'L' },
	{ "repeat", required_argument, 0, 'R' },
	{ "html", required_argument, 0, 'H' },
	{ "backend", required_argument, 0, 'B' },
	{ "connect", required_argument, 0, 'C' },
	{ "kcidb", required_argument, 0, 'K' },
	SELECT_LONGOPTS,
	{ "run-id", required_argument, 0, 'I' },
	{ "gdb", optional_argument, 0, OPT_GDB },
	{ "gdb-wait", no_argument, 0, OPT_GDB_WAIT },
	{ "keep-on-fail", optional_argument, 0, OPT_KEEP },
	{ "dump", required_argument, 0, OPT_DUMP },
	{ "dump-limit", required_argument, 0, OPT_DUMP_LIMIT },
	{ "allow-host-root", no_argument, 0, OPT_HOST_ROOT },
	{ 0, 0, 0, 0 },
};
#define RUN_SHORTOPTS "j:" SELECT_SHORTOPTS "vh"

/* The reports c asks for, in the order they are written. */
static void run_report_files(const struct run_cli *c, struct report_file files[5])
{
	files[0] = (struct report_file){ "--json", c->json, report_json };
	files[1] = (struct report_file){ "--junit", c->junit, report_junit };
	files[2] = (struct report_file){ "--tap", c->tap, report_tap };
	files[3] = (struct report_file){ "--html", c->html, report_html };
	files[4] = (struct report_file){ "--kcidb", c->kcidb, report_kcidb };
}

static int run_parse(int argc, char **argv, struct run_cli *c)
{
	int ch;

	memset(c, 0, sizeof(*c));
	c->jobs = 1;
	c->repeat = 1;
	c->artifacts = "artifacts";
	c->dump = RUN_DUMP_ON_FAILURE;
	c->dump_limit = DUMP_LIMIT_DEFAULT;
	optind = 1;
	while ((ch = getopt_long(argc, argv, RUN_SHORTOPTS, run_options, NULL)) != -1) {
		if (kernel_choice_option(&c->k, ch, optarg) || select_option(&c->sel, ch, optarg))
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
		case 'L':
			c->list = true;
			break;
		case OPT_GDB:
			if (cli_gdb_option(&c->gdb, optarg))
				return KTB_EXIT_USAGE;
			break;
		case OPT_GDB_WAIT:
			c->gdb.wait = true;
			break;
		case OPT_KEEP:
			c->keep_ms = KEEP_DEFAULT_MS;
			if (optarg && (parse_duration_ms(optarg, &c->keep_ms) || c->keep_ms <= 0)) {
				fprintf(stderr,
					"ktb run: --keep-on-fail=%s: give a duration (30s, "
					"10m), or --keep-on-fail alone for 10m\n",
					optarg);
				return KTB_EXIT_USAGE;
			}
			break;
		case OPT_DUMP:
			if (!strcmp(optarg, "never")) {
				c->dump = RUN_DUMP_NEVER;
			} else if (!strcmp(optarg, "on-failure")) {
				c->dump = RUN_DUMP_ON_FAILURE;
			} else if (!strcmp(optarg, "always")) {
				c->dump = RUN_DUMP_ALWAYS;
			} else {
				fprintf(stderr,
					"ktb run: --dump %s: give on-failure, always or never\n",
					optarg);
				return KTB_EXIT_USAGE;
			}
			break;
		case OPT_HOST_ROOT:
			c->allow_host_root = true;
			break;
		case OPT_DUMP_LIMIT:
			if (strcmp(optarg, "0") && hw_parse_size(optarg, &c->dump_limit)) {
				fprintf(
				    stderr,
				    "ktb run: --dump-limit %s: give a size (512M, 4G), or 0 for "
				    "no limit\n",
				    optarg);
				return KTB_EXIT_USAGE;
			}
			if (!strcmp(optarg, "0"))
				c->dump_limit = 0;
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
		case 'I': {
			char why[200];

			if (shard_run_id_check(optarg, why, sizeof(why))) {
				fprintf(stderr, "ktb run: %s\n", why);
				return KTB_EXIT_USAGE;
			}
			c->run_id = optarg;
			break;
		}
		case OPT_TAP:
			c->tap = optarg;
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
			/* getopt said what; the bare --tap of old took no file */
			if (optopt == OPT_TAP)
				fprintf(stderr, "ktb run: --tap takes a file now: --tap FILE, or "
						"--tap - for TAP on standard output\n");
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	struct report_file files[5];

	run_report_files(c, files);
	if (reports_check(files, 5))
		return KTB_EXIT_USAGE;
	c->term = reports_to_stdout(files, 5) ? stderr : stdout;
	return run_backend_check(c) ? KTB_EXIT_USAGE : run_gdb_check(c);
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
	report_term_scenario(&pp->rr->scenarios[idx], pp->c->term, pp->c->verbose);
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
	FILE *out = c->term;

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
		.gdb_port = c->gdb.port,
		.gdb_wait = c->gdb.wait,
		.keep_ms = c->keep_ms,
		.dump = c->dump,
		.dump_limit = c->dump_limit,
		.debug_vmlinux = c->debug_vmlinux,
		.debug_modules = c->debug_modules,
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
	struct report_file files[5];

	run_report_files(c, files);
	return reports_write(files, 5, rr);
}

/* What the run is cut from, for its document (ktb merge checks shards by
 * it): besides the selection, --repeat and the kernel asked for. */
static void run_selection_start(const struct run_cli *c, struct run_selection *sel)
{
	sel->repeat = (unsigned)c->repeat;
	sel->kernel = xstrdup(c->k.kernel);
	sel->recipe = xstrdup(c->k.recipe);
}

/* --gdb: the port, the line that attaches, and nokaslr so the symbols'
 * addresses hold. */
static int run_gdb_prepare(struct run_cli *c, const struct image *img)
{
	int ret = cli_gdb_prepare(&c->gdb, &c->k, img);

	c->gdb_append = cli_gdb_append(c->append);
	c->append = c->gdb_append;
	return ret;
}

/* A --kernel build tree's vmlinux, which findings are decoded with when it
 * has debug information (findings_judge.c says why not otherwise). */
static char *tree_vmlinux(const char *kernel)
{
	struct stat st;

	if (!kernel || stat(kernel, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	return xasprintf("%s/vmlinux", kernel);
}

/* What findings are decoded with: a --kernel tree's vmlinux and its
 * modules (modules.order), else the image's debug files when ktb image
 * build --debug fetched them. */
static void run_debug_files(struct run_cli *c, const struct image *img)
{
	c->debug_vmlinux = tree_vmlinux(c->k.kernel);
	if (c->debug_vmlinux) {
		c->debug_modules = xstrdup(c->k.kernel);
	} else if (img->debug_vmlinux) {
		c->debug_vmlinux = xstrdup(img->debug_vmlinux);
		c->debug_modules = xstrdup(img->debug_modules);
	}
}

/* A scenario cannot grant itself this machine's files: guest.root host
 * runs only with --allow-host-root, as its disks and shares may not leave
 * its folder. Checked for the whole run before anything boots. */
static int host_root_check(const struct run_cli *c, const struct scenario_set *set)
{
	int ret = 0;

	for (size_t i = 0; i < set->count; i++) {
		const struct guest_opts *g = set->items[i]->guest;

		if (c->allow_host_root || !g || !g->root || strcmp(g->root, GUEST_ROOT_HOST))
			continue;
		cli_err("%s: guest.root host runs the guest on this machine's own files "
			"(read-only: whatever root can read); pass --allow-host-root to run it",
			set->items[i]->file);
		ret = KTB_EXIT_USAGE;
	}
	return ret;
}

/* Each scenario's root, prepared before anything boots (a Debian root is
 * built once per recipe; later scenarios find it cached). A package apt
 * does not know is bad input for the whole run; a root this host cannot
 * build (not root, no network) skips its scenarios, saying why. */
static int roots_prepare(const struct run_cli *c, struct scenario_set *set)
{
	char why[1100];

	for (size_t i = 0; i < set->count; i++) {
		struct guest_opts *g = set->items[i]->guest;
		int ret;

		if (!g || !g->root || !strcmp(g->root, GUEST_ROOT_IMAGE))
			continue;
		if (c->hosts.n && !strcmp(g->root, GUEST_ROOT_DEBIAN)) {
			cli_err("%s: guest.root debian is built on this machine and cannot reach "
				"a --connect host; run it here",
				set->items[i]->file);
			return KTB_EXIT_USAGE;
		}
		ret = guest_root_prepare(g->root, g->packages, g->packages_count, &g->root_dir,
					 &g->root_disk, why, sizeof(why));
		if (ret == KTB_EXIT_USAGE) {
			cli_err("%s: %s", set->items[i]->file, why);
			return ret;
		}
		if (ret)
			g->root_why = xstrdup(why);
		guest_root_machine(set->items[i]->machine, g->root_dir, g->root_disk);
	}
	return 0;
}

static int cli_run(int argc, char **argv)
{
	struct run_cli c;
	struct scenario_set set = { 0 };
	struct image img = { 0 };
	struct run_result rr = { 0 };
	int ret = run_parse(argc, argv, &c);
	int64_t t0 = now_ms();

	if (ret)
		goto out;
	/* listing probes nothing; libvirt runs its own virtiofsd, maybe on
	 * another host: not ours to ask */
	if (!c.list && (!c.backend || strcmp(c.backend, "libvirt")))
		shares_preflight_enable();
	run_selection_start(&c, &rr.sel);
	ret = select_scenarios(&c.sel, argv + optind, argc - optind, &set, &rr.sel);
	if (ret || c.list) {
		if (!ret)
			select_print(&set, stdout);
		goto out;
	}
	shares_notes_print(&set, stderr);
	ret = host_root_check(&c, &set);
	if (!ret)
		ret = run_guard_start();
	if (ret)
		goto out;
	/* an empty share (more shards than scenarios) passes without a boot */
	ret = roots_prepare(&c, &set);
	if (!ret && set.count)
		ret = image_prepare(&c.k, &img);
	if (!ret && set.count && c.gdb.on)
		ret = run_gdb_prepare(&c, &img);
	run_debug_files(&c, &img);
	if (ret)
		goto out;
	rr.run_id = c.run_id	  ? xstrdup(c.run_id)
		    : c.sel.shard ? shard_run_id(&rr.sel)
				  : runner_new_run_id();
	rr.started_unix_ms = (int64_t)time(NULL) * 1000;
	ret = set.count ? run_all(&c, &set, &img, &rr) : 0;
	rr.interrupted = proc_interrupted();
	rr.duration_ms = now_ms() - t0;
	report_term_summary(&rr, c.term);
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
	select_opts_free(&c.sel);
	hosts_free(&c.hosts);
	free(c.gdb_append);
	free(c.debug_vmlinux);
	free(c.debug_modules);
	return ret;
}

const struct cli_command cli_run_command = {
	.name = "run",
	.fn = cli_run,
	.summary = "run scenarios: ktb run [options] [SCENARIO|DIR...]",
	.usage = run_usage,
	.options = run_options,
	.shortopts = RUN_SHORTOPTS,
};
