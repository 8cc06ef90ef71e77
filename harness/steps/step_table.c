#include "step_table.h"

#include "step_basic.h"
#include "step_ktap.h"
#include "step_mem.h"
#include "step_pm.h"
#include "step_screen.h"
#include "step_storage.h"
#include "step_storage_mp.h"
#include "step_suites.h"

/* Each kind's ops are step_KEYWORD_ops in its own file: a kind in
 * KTB_STEP_KINDS without them does not compile. */
/* clang-format off */
const struct step_ops *const step_ops[] = {
#define KTB_STEP_OPS(id, keyword, expects, needs, keys) [STEP_##id] = &step_##keyword##_ops,
	KTB_STEP_KINDS(KTB_STEP_OPS)
#undef KTB_STEP_OPS
};
/* clang-format on */
_Static_assert(sizeof(step_ops) / sizeof(step_ops[0]) == STEP_KIND_COUNT,
	       "one step_ops per step kind");
