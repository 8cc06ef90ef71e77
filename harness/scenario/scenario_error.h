/* Where a scenario file is wrong and why: the one error a load reports,
 * shared by the loader (scenario.c) and the limits checked before it
 * parses anything (scenario_limits.c). */
#ifndef KTB_SCENARIO_ERROR_H
#define KTB_SCENARIO_ERROR_H

#include <stddef.h>

struct scenario_error {
	char file[512];
	int line, col;	 /* 0 when unknown */
	char field[128]; /* "steps[2].expect.exit", may be empty */
	char msg[512];
};

/* "file:line:col: field: message" into buf. */
void scenario_error_format(const struct scenario_error *e, char *buf, size_t len);

#endif
