/* Every step kind's ops, indexed by kind: what the runner dispatches
 * through. Each step file defines its own step_KEYWORD_ops; the table
 * (step_table.c) declares them from KTB_STEP_KINDS, so it includes no step
 * file and a new kind adds no include. */
#ifndef KTB_STEP_TABLE_H
#define KTB_STEP_TABLE_H

#include "step.h"

extern const struct step_ops *const step_ops[STEP_KIND_COUNT];

#endif
