/* ktap (step_ktap.c): KTAP from a guest command's stdout or from what the
 * kernel printed since boot (KUnit), each test a subtest of the step. */
#ifndef KTB_STEP_KTAP_H
#define KTB_STEP_KTAP_H

#include <stddef.h>

#include "step.h"

extern const struct step_ops step_ktap_ops;

/* The verdict on len bytes of KTAP at text, into sr: every test a subtest;
 * pass when each top-level test passed or was skipped, fail naming the
 * first failed tests, error on malformed KTAP naming its line. Pure. */
void ktap_judge(struct step_result *sr, const char *text, size_t len);

#endif
