/* balloon: the guest's memory size to set through the balloon, between
 * 64M and the machine's memory; the machine has a balloon. Runs in
 * harness/steps/step_mem.c. */
#include <stddef.h>
#include <stdio.h>

#include "kreq.h"
#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t balloon_fields[] = {
	STR("balloon", OPT, struct step, balloon),
	CYAML_FIELD_END,
};

static int step_check_balloon(struct load_ctx *c, struct step *st, const char *path)
{
	const struct machine *m = c->s->machine;
	struct hw_error herr;
	char f[64];

	snprintf(f, sizeof(f), "%s.balloon", path);
	if (hw_size_field(st->balloon, &st->balloon_bytes, f, &herr) < 0)
		return fail(c, f, "%s", herr.msg);
	if (st->balloon_bytes < MACHINE_MIN_BALLOON ||
	    (c->machine_ok && st->balloon_bytes > m->memory_bytes))
		return fail(c, f,
			    "%s is outside 64M..machine.memory (%s); the balloon sets the "
			    "guest's memory size",
			    st->balloon, m->memory ? m->memory : "512M");
	return 0;
}

/* the driver of the balloon it drives */
static const struct kreq_opts balloon_kopts = { { { "CONFIG_VIRTIO_BALLOON", "virtio_balloon" } } };

const struct step_kind_row kind_balloon = {
	.keyword = "balloon",
	.kind = STEP_BALLOON,
	.field = offsetof(struct step, balloon),
	.expects = EXPECT_JSON,
	.needs = NEEDS_BALLOON,
	.keys = "",
	.fields = balloon_fields,
	.check = step_check_balloon,
	.guest_key = step_in_guest,
	.kopts = &balloon_kopts,
};
