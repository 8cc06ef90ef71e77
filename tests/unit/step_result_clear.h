/* For the step verdict tests (test_steps*.c): a step result's members freed
 * and zeroed, so that the next verdict starts from a fresh result. */
#ifndef KTB_STEP_RESULT_CLEAR_H
#define KTB_STEP_RESULT_CLEAR_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

static inline void step_result_clear(struct step_result *sr)
{
	free(sr->name);
	free(sr->message);
	free(sr->out);
	free(sr->err);
	json_decref(sr->data);
	memset(sr, 0, sizeof(*sr));
}

#endif
