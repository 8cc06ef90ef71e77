/* The run result as JSON, the form results.json and --json take. */
#ifndef KTB_REPORT_JSON_H
#define KTB_REPORT_JSON_H

#include <stdio.h>

#include "result.h"

/* The run as one JSON document (docs/results.md). 0 or -ENOMEM/-EIO. */
int report_json(const struct run_result *r, FILE *f);
/* Document j (taken; NULL: -ENOMEM) written as every JSON report is:
 * indented, keys in insertion order so diffs between runs line up, a
 * final newline. 0 or -ENOMEM/-EIO. */
int report_json_write(json_t *j, FILE *f);

#endif
