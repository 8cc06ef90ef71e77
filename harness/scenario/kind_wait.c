/* wait: a pause, or with for: a console line to wait for, the duration
 * its deadline. Runs in harness/steps/step_basic.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t wait_fields[] = {
	STR("wait", OPT, struct step, wait),
	STR("for", OPT, struct step, wait_for),
	CYAML_FIELD_END,
};

static int step_check_wait(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.wait", path);
	if (duration_field(c, f, st->wait, &st->wait_ms, "500ms, 5s, 2m") < 0)
		return -EINVAL;
	snprintf(f, sizeof(f), "%s.for", path);
	return st->wait_for ? check_regex(c, f, st->wait_for, &use_wait) : 0;
}

/* The pause, or the wait for a line, ends before the step's deadline. */
static int wait_fits(struct load_ctx *c, const struct step *st, const char *path)
{
	char f[80], what[160];

	snprintf(f, sizeof(f), "%s.wait", path);
	snprintf(what, sizeof(what), "%s %s", st->wait, st->wait_for ? "of waiting" : "of pause");
	return st->wait_ms >= step_limit(c, st) ? step_fail_fit(c, st, f, st->wait_ms, what, false)
						: 0;
}

/* A wait for a console line needs the guest running; a pause does not. */
static const char *wait_in_guest(const struct step *st)
{
	return st->wait_for ? "for" : NULL;
}

/* A pause is time spent for sure; a wait for a line may end at once. */
static int64_t wait_sure_ms(const struct step *st)
{
	return st->wait_for ? 0 : st->wait_ms;
}

const struct step_kind_row kind_wait = {
	.keyword = "wait",
	.kind = STEP_WAIT,
	.field = offsetof(struct step, wait),
	.expects = 0,
	.needs = NEEDS_NOTHING,
	.keys = "for",
	.fields = wait_fields,
	.check = step_check_wait,
	.fits = wait_fits,
	.guest_key = wait_in_guest,
	.sure_ms = wait_sure_ms,
};
