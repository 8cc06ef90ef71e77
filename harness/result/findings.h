/* What the reports and `ktb findings` share about a scenario's findings
 * (struct finding, result.h): a frame as one line, the step a finding was
 * printed in, and the findings of many runs grouped by signature. */
#ifndef KTB_FINDINGS_H
#define KTB_FINDINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "result.h"

#define FINDING_VERDICTS 3 /* the entries of enum finding_verdict */

/* "func+off [module]", "func" alone when it has neither, then where it is
 * when decoded: " (file:line; inlined: f at file:line)"; malloc'd. */
char *finding_frame_str(const struct finding_frame *fr);
/* The step f was printed in, or NULL (before the first step, or an index
 * outside s's steps). */
const struct step_result *finding_step(const struct scenario_result *s, const struct finding *f);
/* The scenario's name without the "#N" of a --repeat attempt; malloc'd. */
char *finding_scenario_base(const struct scenario_result *s);

/* Every finding with one signature, over all the runs given. */
struct finding_group {
	char *signature, *kind, *title; /* the first one's */
	size_t count;
	size_t verdicts[FINDING_VERDICTS]; /* how many had each verdict */
	size_t runs;			   /* in how many of the runs */
	char **scenarios;		   /* names without #N, in the order first seen */
	size_t scenarios_count;
	char **kernels; /* the scenarios' kernels, in the order first seen */
	size_t kernels_count;
	char **frames; /* the first one's, as finding_frame_str writes them */
	size_t frames_count;
};

struct finding_groups {
	struct finding_group *v;
	size_t count;
	size_t findings;   /* all of them, the sum of the counts */
	size_t dropped;	   /* reports the scans only counted (findings_dropped) */
	size_t runs;	   /* runs added */
	bool failing_only; /* only those with verdict fail were added */
	size_t last_run;   /* internal: the run being added, from 1 */
	size_t *seen_in;   /* internal: per group, the last run it was seen in */
};

/* Add r's findings (failing_only: those with verdict fail) to g, which
 * starts zeroed. */
void finding_groups_add(struct finding_groups *g, const struct run_result *r, bool failing_only);
/* Most frequent first, then by title, then by signature. */
void finding_groups_sort(struct finding_groups *g);
void finding_groups_free(struct finding_groups *g);
/* {"runs", "findings", "findings_dropped", "signatures": [{"signature",
 * "kind", "title", "count", "verdicts": {"fail", "expected", "tolerated"},
 * "runs", "scenarios", "kernels", "frames"}]} (docs/cli.md). */
json_t *finding_groups_to_json(const struct finding_groups *g);

#endif
