/* The run result as TAP (--tap). */
#ifndef KTB_REPORT_TAP_H
#define KTB_REPORT_TAP_H

#include <stdio.h>

#include "result.h"

/* The run as TAP version 14. 0 or -EIO. */
int report_tap(const struct run_result *r, FILE *f);

#endif
