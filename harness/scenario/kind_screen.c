/* screen: capture the display as NAME, compared with an earlier capture
 * (same_as, until it equals it with poll) or checked by expect.json; the
 * machine has a display. Runs in harness/steps/step_screen.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t screen_fields[] = {
	STR("screen", OPT, struct step, screen),
	STR("same_as", OPT, struct step, same_as),
	STR("poll", OPT, struct step, poll),
	CYAML_FIELD_END,
};

/* screen: NAME [same_as: EARLIER] [poll: DURATION]; the machine has a
 * display, NAME is a file-name-safe word, EARLIER an earlier capture. */
static int step_check_screen(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.screen", path);
	if (step_check_capture_name(c, st, st->screen, f))
		return -EINVAL;
	snprintf(f, sizeof(f), "%s.same_as", path);
	if (st->same_as && !step_capture_before(c->s, st, st->same_as))
		return fail(c, f, "no earlier step saved the capture \"%s\"; give one screen: %s",
			    st->same_as, st->same_as);
	snprintf(f, sizeof(f), "%s.poll", path);
	if (st->poll && !st->same_as)
		return fail(c, f, "poll: captures until the screen equals same_as; give same_as");
	if (st->poll && duration_field(c, f, st->poll, &st->poll_ms, "5s, 30s") < 0)
		return -EINVAL;
	return 0;
}

/* A screen step with nothing to compare its capture with passes whatever
 * the screen shows (a blank one, a crashed guest's). */
static int step_check_compares(struct load_ctx *c, const struct step *st, const char *path)
{
	char f[64];

	if (st->same_as || (st->expect && st->expect->json))
		return 0;
	snprintf(f, sizeof(f), "%s.screen", path);
	return fail(c, f,
		    "a capture with neither expect nor same_as passes whatever the screen "
		    "shows; give expect: {json: {...}} (width, height, sha256, black) or "
		    "same_as: an earlier capture");
}

/* poll ends before the step's deadline. */
static int screen_fits(struct load_ctx *c, const struct step *st, const char *path)
{
	char f[80], what[160];

	snprintf(f, sizeof(f), "%s.poll", path);
	snprintf(what, sizeof(what), "%s of captures", st->poll ? st->poll : "");
	return st->poll && st->poll_ms >= step_limit(c, st)
		   ? step_fail_fit(c, st, f, st->poll_ms, what, false)
		   : 0;
}

static const char *screen_capture(const struct step *st)
{
	return st->screen;
}

const struct step_kind_row kind_screen = {
	.keyword = "screen",
	.kind = STEP_SCREEN,
	.field = offsetof(struct step, screen),
	.expects = EXPECT_JSON,
	.needs = NEEDS_NOTHING,
	.keys = "same_as poll",
	.fields = screen_fields,
	.check = step_check_screen,
	.fits = screen_fits,
	.after_expect = step_check_compares,
	.capture = screen_capture,
};
