/* ktap (step_ktap.c): KTAP from a guest command's stdout or from what the
 * kernel printed since boot (KUnit), each test a subtest of the step. */
#ifndef KTB_STEP_KTAP_H
#define KTB_STEP_KTAP_H

#include <stdbool.h>
#include <stddef.h>

#include "step.h"

extern const struct step_ops step_ktap_ops;

/* The verdict on len bytes of KTAP at text, into sr: every test a subtest;
 * fail naming the first failed tests; fail "no test ran" when no test
 * point ran and none was skipped (1..0; suites with no cases); skip, its
 * message naming the skipped points and their reasons, when every point
 * was skipped; else pass (some ran, none failed). Malformed KTAP is an
 * error naming its line; no KTAP at all too, except in the kernel's log
 * (console: KUnit at boot), where it means no suite ran: a failure. Pure. */
void ktap_judge(struct step_result *sr, const char *text, size_t len, bool console);

/* The same verdict on a parsed document (KTAP, JUnit, blktests' results:
 * junit.h), its tests moved into sr as subtests and d freed; none: the
 * message when no test ran at all (NULL: KTAP's). */
struct ktap_doc;
void suite_judge(struct step_result *sr, struct ktap_doc *d, const char *none);

#endif
