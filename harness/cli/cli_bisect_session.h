/* What ktb bisect's two halves share, implemented by cli_bisect_session.c:
 * the options, the session (steps, logs, counters), and the child processes
 * that build and judge candidates. cli_bisect.c has the options, the
 * --kernels ladder and the report; cli_bisect_git.c the --git mode (its own
 * header, cli_bisect_git.h). Internal to these three files, which include
 * one another's headers one way only: cli_bisect -> git -> session. */
#ifndef KTB_CLI_BISECT_SESSION_H
#define KTB_CLI_BISECT_SESSION_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bisect.h"
#include "cli_common.h"
#include "metric_judge.h"
#include "spawn.h"

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
	bool tries_given;
	const char *git_step; /* internal: "STEPS-FILE:FD", one git bisect run step */
	/* --metric SCENARIO:METRIC (cli_bisect_metric.c): metric is NULL
	 * without it; name is the scenario's, as its run document has it */
	const char *metric_arg;
	char *metric, *name;
	struct metric_opts mo; /* --threshold, --confidence */
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
	/* --metric: the samples of every judge run so far, how many runs,
	 * and the judgement against the ends */
	double *samples;
	size_t nsamples;
	unsigned runs;
	struct metric_judgement mj;
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
	/* --metric: the ends' samples (copies: the git steps read them from
	 * ends.json) and how they differ */
	double *good, *bad;
	size_t ngood, nbad;
	int worse; /* +1: higher is worse (the samples' "better" is "lower"); 0: unknown */
	struct metric_ends ends;
};

struct child {
	struct child_process cp; /* cp.pid 0 once reaped, -1 when it never started */
	size_t step;		 /* index into session steps */
	int64_t t0;
	int code; /* exit code, once it has ended */
};

typedef void (*child_done_fn)(struct session *s, struct child *ch, int code);

/* Start argv as ch's child, in its own process group (dying with ktb), in
 * cwd when not NULL, standard output and error appended to log. The pid, or
 * -1 (why is appended to log). */
pid_t session_spawn(struct child *ch, char *const argv[], const char *cwd, const char *log);
/* SIGTERM each child's group and reap it. */
void session_stop(struct child *ch, size_t n);
/* Wait for every child; done() (may be NULL) as each one ends. 0, or
 * -EINTR after SIGINT/SIGTERM (the children are stopped first). */
int session_wait(struct session *s, struct child *ch, size_t n, child_done_fn done);
/* A new step numbered num (0: the next one). */
struct bisect_step *session_step_new(struct session *s, const char *name, size_t num);
void step_print(FILE *f, const struct bisect_step *st);
void steps_free(struct session *s);
/* argv of the judge: ktb run [--kernel K ...] [--json JSON] --artifacts
 * DIR SCENARIO (json NULL: none); free() the vector only. */
char **session_judge_argv(const struct session *s, const char *kernel, const char *json);
/* A child judge ended: its verdict, duration and step line. */
void session_judge_done(struct session *s, struct child *ch, int code);

#endif
