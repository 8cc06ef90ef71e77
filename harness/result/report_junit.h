/* The run result as JUnit XML, for CI systems that read it (--junit). */
#ifndef KTB_REPORT_JUNIT_H
#define KTB_REPORT_JUNIT_H

#include <stdio.h>

#include "result.h"

/* The run as JUnit XML, one testcase per scenario. 0 or -EIO. */
int report_junit(const struct run_result *r, FILE *f);

#endif
