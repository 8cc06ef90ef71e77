/* Every step kind's ops, indexed by kind: what the runner dispatches
 * through. The table sits above the step files (each defines its own
 * step_KEYWORD_ops), which sit above step.h, so no file includes one that
 * includes it back. */
#ifndef KTB_STEP_TABLE_H
#define KTB_STEP_TABLE_H

#include "step.h"

extern const struct step_ops *const step_ops[STEP_KIND_COUNT];

#endif
