/* junit and blktests (step_suites.c): a test suite's own results, read
 * once its command ends, each test a subtest of the step (junit.h). */
#ifndef KTB_STEP_SUITES_H
#define KTB_STEP_SUITES_H

#include <stddef.h>

#include "step.h"

extern const struct step_ops step_junit_ops;
extern const struct step_ops step_blktests_ops;

/* The verdict on a suite whose command exited exit_code: the results' own
 * (suite_judge), except that a command that failed while its results show
 * no failure fails the step, and results that cannot be read are an error
 * naming where. format picks the reader: "junit" (text is the XML) or
 * "blktests" (text is BLKTESTS_DUMP_CMD's output, check_out check's own).
 * Pure. */
void suites_judge(struct step_result *sr, const char *format, const char *text, size_t len,
		  const char *check_out, int exit_code);

#endif
