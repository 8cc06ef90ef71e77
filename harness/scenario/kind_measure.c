/* measure: a host metric (qemu_rss), saved as a name for a later step's
 * since, sampled until expect holds (within) or until it stops moving
 * (settle). Runs in harness/steps/step_mem.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t measure_fields[] = {
	STR("measure", OPT, struct step, measure), STR("as", OPT, struct step, as),
	STR("since", OPT, struct step, since),	   STR("within", OPT, struct step, within),
	STR("settle", OPT, struct step, settle),   CYAML_FIELD_END,
};

static int step_check_measure(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.measure", path);
	if (strcmp(st->measure, "qemu_rss"))
		return fail(c, f, "\"%s\" is not a host metric; give qemu_rss", st->measure);
	snprintf(f, sizeof(f), "%s.as", path);
	if (st->as && !name_valid_metric(st->as))
		return fail(c, f, "\"%s\" does not match [a-z0-9_]+", st->as);
	snprintf(f, sizeof(f), "%s.since", path);
	if (st->since && !step_saved_before(c->s, st, st->since))
		return fail(c, f, "no earlier measure step saved \"%s\"; give one as: %s",
			    st->since, st->since);
	snprintf(f, sizeof(f), "%s.within", path);
	if (st->within && duration_field(c, f, st->within, &st->within_ms, "500ms, 20s") < 0)
		return -EINVAL;
	if (st->within && !st->expect)
		return fail(c, f, "within: samples until expect holds; give an expect");
	snprintf(f, sizeof(f), "%s.settle", path);
	if (st->settle && duration_field(c, f, st->settle, &st->settle_ms, "10s, 30s") < 0)
		return -EINVAL;
	if (st->settle && st->settle_ms < MEASURE_SETTLE_MIN_MS)
		return fail(c, f,
			    "\"%s\" is shorter than 2s, the shortest settle that holds "
			    "four samples",
			    st->settle);
	return 0;
}

/* settle and within end before the step's deadline. */
static int measure_fits(struct load_ctx *c, const struct step *st, const char *path)
{
	int64_t need = st->settle_ms + st->within_ms;
	char f[80], what[160];

	snprintf(f, sizeof(f), "%s.%s", path, st->within ? "within" : "settle");
	if (st->within && st->settle)
		snprintf(what, sizeof(what), "settle %s and within %s", st->settle, st->within);
	else
		snprintf(what, sizeof(what), "%s %s", st->within ? "within" : "settle",
			 st->within ? st->within : st->settle);
	return (st->within || st->settle) && need >= step_limit(c, st)
		   ? step_fail_fit(c, st, f, need, what, st->within && st->settle)
		   : 0;
}

static const char *measure_saved_as(const struct step *st)
{
	return st->as;
}

const struct step_kind_row kind_measure = {
	.keyword = "measure",
	.kind = STEP_MEASURE,
	.field = offsetof(struct step, measure),
	.expects = EXPECT_JSON,
	.needs = NEEDS_NOTHING,
	.keys = "as since within settle",
	.fields = measure_fields,
	.check = step_check_measure,
	.fits = measure_fits,
	.saved_as = measure_saved_as,
};
