/* junit and blktests: a guest command that runs a test suite, whose
 * results are read from its stdout or a file (junit), or from blktests'
 * results folder. What the suite needs of the kernel is kernel.requires.
 * Run in harness/steps/step_suites.c. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t junit_fields[] = {
	STR("junit", OPT, struct step, junit),
	STR("file", OPT, struct step, file),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t blktests_fields[] = {
	STR("blktests", OPT, struct step, blktests),
	STR("results", OPT, struct step, results),
	CYAML_FIELD_END,
};

/* A suite's command, and the guest path its results are read from: a
 * line of text (it is quoted into the reading command). */
static int check_suite(struct load_ctx *c, const char *cmd, const char *kind, const char *where,
		       const char *key, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.%s", path, kind);
	if (!*cmd)
		return fail(c, f, "give the command that runs the suite");
	snprintf(f, sizeof(f), "%s.%s", path, key);
	if (where && (!*where || strpbrk(where, "\n\r")))
		return fail(c, f, "give a path in the guest on one line");
	return 0;
}

static int step_check_junit(struct load_ctx *c, struct step *st, const char *path)
{
	return check_suite(c, st->junit, "junit", st->file, "file", path);
}

static int step_check_blktests(struct load_ctx *c, struct step *st, const char *path)
{
	return check_suite(c, st->blktests, "blktests", st->results, "results", path);
}

const struct step_kind_row kind_junit = {
	.keyword = "junit",
	.kind = STEP_JUNIT,
	.field = offsetof(struct step, junit),
	.expects = 0,
	.needs = NEEDS_NOTHING,
	.keys = "file",
	.fields = junit_fields,
	.check = step_check_junit,
	.guest_key = step_in_guest,
};

const struct step_kind_row kind_blktests = {
	.keyword = "blktests",
	.kind = STEP_BLKTESTS,
	.field = offsetof(struct step, blktests),
	.expects = 0,
	.needs = NEEDS_NOTHING,
	.keys = "results",
	.fields = blktests_fields,
	.check = step_check_blktests,
	.guest_key = step_in_guest,
};
