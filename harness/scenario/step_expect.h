/* A step's expect, loaded (step_expect.c): what its kind may check,
 * expect.json read from the document with its operators' names and
 * patterns checked, the patterns of stdout and finding. */
#ifndef KTB_STEP_EXPECT_H
#define KTB_STEP_EXPECT_H

#include "load.h"

/* 0, or -EINVAL with the error reported at path's expect; allowed: the
 * EXPECT_ flags a step of the kind (keyword) may check. */
int expect_load(struct load_ctx *c, struct step *st, unsigned allowed, const char *keyword,
		const char *path);

#endif
