/* ktb bisect --metric SCENARIO:METRIC (docs/bisect.md, "Bisecting a
 * slowdown"): each candidate's judge is `ktb run --repeat N --json`, and
 * its verdict comes from the samples of one metric in that document,
 * judged against the samples of the two ends (metric_judge.h), with more
 * runs while undecided, up to METRIC_RUNS_MAX, and a skip after that.
 * Shared by the ladder (cli_bisect.c) and the --git mode
 * (cli_bisect_git.c); includes only the session's header. */
#ifndef KTB_CLI_BISECT_METRIC_H
#define KTB_CLI_BISECT_METRIC_H

#include <jansson.h>
#include <stdbool.h>

#include "cli_bisect_session.h"

/* The judge runs a candidate may take, each of --tries runs of the
 * scenario: the first, then more while it stays undecided. */
#define METRIC_RUNS_MAX 3

/* --metric checked before anything boots: SCENARIO: named as the scenario
 * file names itself (name: the scenario's name), --tries at least what the
 * rank test needs (its default then), no multisection. 0 or
 * KTB_EXIT_USAGE, said. */
int metric_validate(struct bisect_cli *c, const char *name);

/* One judge run of the candidate of step st (kernel as ktb run --kernel
 * takes it, run in cwd when not NULL), its samples added to st. 0, with
 * st->verdict BISECT_UNKNOWN (samples taken), BISECT_SKIP (none: st->why)
 * or BISECT_ABORT (bad input: a metric the scenario does not have, named;
 * st->code says which); or an exit code to stop with (interrupted, no
 * judge could start). */
int metric_sample(struct session *s, struct bisect_step *st, const char *kernel, const char *cwd);

/* s->ends from the two ends' steps, their samples kept in the session. */
void metric_ends_update(struct session *s, const struct bisect_step *good,
			const struct bisect_step *bad);
/* Whether st may take another judge run. */
bool metric_more(const struct bisect_step *st);
/* The ends do not differ by the threshold at the confidence: why, printed;
 * KTB_EXIT_FAIL. */
int metric_ends_fail(struct session *s, const char *first, const char *last);

/* A candidate judged (st->mj) against the ends: good, bad, or unknown. */
void metric_decide(struct session *s, struct bisect_step *st);
/* The candidate of st sampled and judged until it is decided or the runs
 * are spent (then skip: undecided). 0 or an exit code to stop with. */
int metric_judge_candidate(struct session *s, struct bisect_step *st, const char *kernel,
			   const char *cwd);

/* The step's line and its samples' line under it. */
void metric_step_print(const struct session *s, const struct bisect_step *st);

/* ends.json in the session's folder: written by the --git parent once the
 * ends are known, read by each `--git-step`. 0 or -1 (load: after a
 * message). */
int metric_ends_save(const struct session *s);
int metric_ends_load(struct session *s);
/* NN.samples.json beside the step's log: a --git-step's samples for the
 * parent's --json. */
void metric_step_save(const struct session *s, const struct bisect_step *st);
void metric_step_load(const struct session *s, struct bisect_step *st);

/* --json: the "metric" object; a step's samples and judgement into o. */
json_t *metric_json(const struct session *s);
void metric_step_json(const struct bisect_step *st, json_t *o);

#endif
