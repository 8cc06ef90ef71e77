/* Running scenarios side by side: one worker process per VM, at most N at
 * once. Each worker writes its result.json; the parent reads it back, so
 * results keep scenario order whatever order the workers finish in. */
#ifndef KTB_PARALLEL_H
#define KTB_PARALLEL_H

#include <stddef.h>

#include "pool.h"
#include "result.h"
#include "runner.h"
#include "scenario.h"

/* Called in scenario order as soon as scenario idx and all before it are done. */
typedef void (*parallel_done_fn)(void *ctx, size_t idx);

/* Run n scenarios with up to jobs workers (attempts[i]: the --repeat run
 * number of items[i], or attempts NULL); out[] gets every result (a
 * scenario never started because of a signal is a skip). 0, or -EINTR when
 * a signal stopped the run (the workers are stopped and reaped first). */
int parallel_run(struct scenario *const *items, const unsigned *attempts, size_t n,
		 const struct run_opts *o, unsigned jobs, struct scenario_result *out,
		 parallel_done_fn done, void *ctx);

/* The same over a pool of libvirt hosts (--connect): each worker runs its
 * scenario on the host hosts_acquire() picks; a worker whose host failed
 * (runner_run_scenario() returned -EHOSTDOWN) takes that host out and its
 * scenario is run again elsewhere; with no host left, the scenarios not yet
 * run are errors. jobs caps the workers over all hosts. */
int parallel_run_hosts(struct scenario *const *items, const unsigned *attempts, size_t n,
		       const struct run_opts *o, unsigned jobs, struct hosts *hosts,
		       struct scenario_result *out, parallel_done_fn done, void *ctx);

/* A result for scenario s that did not run (or left none): status st,
 * message (malloc'd, taken over), no steps, no artifacts. */
void result_placeholder(struct scenario_result *r, const struct scenario *s, unsigned attempt,
			enum status st, char *message);

#endif
