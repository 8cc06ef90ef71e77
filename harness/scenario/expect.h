/* Checking a step's outcome against its scenario "expect:" block: exit code,
 * a regex on stdout, and JSON values addressed by dotted paths. A failed
 * check says exactly what differed, for the step's message. */
#ifndef KTB_EXPECT_H
#define KTB_EXPECT_H

#include <jansson.h>

#include "scenario.h"

/* 0 when the outcome meets e, 1 when not (*why: malloc'd, e.g.
 * "json logical_block_size: expected 4096, got 512"; several differences
 * are joined with "; "). e NULL: pass iff exit_code is 0. data: the step's
 * parsed output; NULL makes out be parsed when e has JSON checks.
 * stdout_re is POSIX extended with REG_NEWLINE: ^ and $ match at each line.
 * JSON checks map a path ("nodes.0.cpus": numeric parts index arrays) to a
 * value compared for equality (4096 equals 4096.0), or to an object of
 * operators only: ge, le, gt, lt (numbers), ne (any value), re (a string
 * value matches the regex), len (array, object or string length). */
int expect_verify(const struct expect *e, int exit_code, const char *out, json_t *data, char **why);

/* Parse a step's stdout as one JSON value (surrounding whitespace allowed);
 * NULL when it is not JSON. */
json_t *expect_parse_output(const char *out);

/* The value at a dotted path in root, or NULL. */
json_t *expect_json_path(json_t *root, const char *path);

#endif
