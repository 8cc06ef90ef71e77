/* power_loss and hybrid_stats: name a hybrid disk (power_loss: or all)
 * whose volatile cache is lost, or whose back end's stats are the step's
 * output. A power loss starts the machine again. Run in
 * harness/steps/step_storage.c. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "disk_bus.h"
#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t power_loss_fields[] = {
	STR("power_loss", OPT, struct step, power_loss),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t hybrid_stats_fields[] = {
	STR("hybrid_stats", OPT, struct step, hybrid_stats),
	CYAML_FIELD_END,
};

/* The hybrid disk that key (power_loss, hybrid_stats) names; "all" too when
 * all_ok. */
static int check_hybrid_disk(struct load_ctx *c, const char *id, const char *f, bool all_ok)
{
	const struct machine *m = c->s->machine;

	if (all_ok && !strcmp(id, "all"))
		return 0;
	for (unsigned i = 0; i < m->disks_count; i++) {
		if (strcmp(m->disks[i].id, id))
			continue;
		if (!disk_bus_info(m->disks[i].bus)->backend)
			return fail(c, f,
				    "disk \"%s\" is not on bus hybrid; write the id of a "
				    "hybrid disk%s",
				    id, all_ok ? " (or all)" : "");
		return 0;
	}
	return fail(c, f,
		    "\"%s\" is not one of the machine's disks; write the id of a hybrid "
		    "disk%s",
		    id, all_ok ? " (or all)" : "");
}

/* power_loss: all | ID of a hybrid disk (the one whose volatile cache is
 * lost; the machine loses power either way). */
static int step_check_power_loss(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.power_loss", path);
	return check_hybrid_disk(c, st->power_loss, f, true);
}

static int step_check_hybrid_stats(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.hybrid_stats", path);
	return check_hybrid_disk(c, st->hybrid_stats, f, false);
}

/* the machine starts again, every part as declared */
static enum step_vm power_loss_vm_after(const struct step *st)
{
	(void)st;
	return VM_RESTARTED;
}

const struct step_kind_row kind_power_loss = {
	.keyword = "power_loss",
	.kind = STEP_POWER_LOSS,
	.field = offsetof(struct step, power_loss),
	.expects = EXPECT_JSON,
	.needs = NEEDS_HYBRID_DISK,
	.keys = "",
	.fields = power_loss_fields,
	.check = step_check_power_loss,
	.vm_after = power_loss_vm_after,
};

const struct step_kind_row kind_hybrid_stats = {
	.keyword = "hybrid_stats",
	.kind = STEP_HYBRID_STATS,
	.field = offsetof(struct step, hybrid_stats),
	.expects = EXPECT_JSON,
	.needs = NEEDS_HYBRID_DISK,
	.keys = "",
	.fields = hybrid_stats_fields,
	.check = step_check_hybrid_stats,
};
