#include "step_table.h"

/* Each kind's ops are step_KEYWORD_ops in its own file: a kind in
 * KTB_STEP_KINDS without them does not link. */
/* clang-format off */
#define KTB_STEP_OPS_DECL(id, keyword) extern const struct step_ops step_##keyword##_ops;
KTB_STEP_KINDS(KTB_STEP_OPS_DECL)
#undef KTB_STEP_OPS_DECL

const struct step_ops *const step_ops[] = {
#define KTB_STEP_OPS(id, keyword) [STEP_##id] = &step_##keyword##_ops,
	KTB_STEP_KINDS(KTB_STEP_OPS)
#undef KTB_STEP_OPS
};
/* clang-format on */
_Static_assert(sizeof(step_ops) / sizeof(step_ops[0]) == STEP_KIND_COUNT,
	       "one step_ops per step kind");
