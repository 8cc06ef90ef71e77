/* Where a scenario file is wrong and why: the errors a load reports,
 * shared by the loader (scenario.c) and the limits checked before it
 * parses anything (scenario_limits.c). The first error is in the struct's
 * own fields, as before; where the loader can go on after an error (the
 * next key of a mapping, the next step) it adds the others, up to
 * SCENARIO_MAX_ERRORS, and counts the rest. */
#ifndef KTB_SCENARIO_ERROR_H
#define KTB_SCENARIO_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Errors one load keeps: enough for the typos of a file, few enough to
 * read; the rest are counted ("and 3 more"). */
#define SCENARIO_MAX_ERRORS 20

/* One error after the first. */
struct scenario_error_at {
	int line, col;
	char field[128];
	char msg[512];
};

struct scenario_error {
	char file[512];
	int line, col;	 /* 0 when unknown */
	char field[128]; /* "steps[2].expect.exit", may be empty */
	char msg[512];
	/* errors found, the first included (0 with msg set counts as 1: the
	 * limits and the syntax check set only the first); those past
	 * SCENARIO_MAX_ERRORS are counted, not kept */
	unsigned count;
	struct scenario_error_at more[SCENARIO_MAX_ERRORS - 1];
};

/* Add an error: the first fills the struct's own fields. An error equal to
 * one already kept is not added again. */
void scenario_error_vadd(struct scenario_error *e, int line, int col, const char *field,
			 const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
/* How many errors were found (0: none). */
unsigned scenario_error_count(const struct scenario_error *e);

/* "file:line:col: field: message" of the first error into buf. */
void scenario_error_format(const struct scenario_error *e, char *buf, size_t len);
/* The same for error i (0 is the first); i below the errors kept. */
void scenario_error_format_nth(const struct scenario_error *e, unsigned i, char *buf, size_t len);
/* Every error kept, one line each after prefix, then "file: and N more
 * errors" for those not kept. */
void scenario_error_print(FILE *f, const char *prefix, const struct scenario_error *e);

#endif
