/* Storage steps: power_loss cuts the machine's power (QEMU killed, no
 * shutdown), makes the hybrid disks' back ends lose their volatile write
 * caches, then starts back ends and machine again on the same disks. Also
 * the hybrid drives' stats, gathered into the result's metrics. */
#include <errno.h>
#include <string.h>

#include "disk_bus.h"
#include "hybrid.h"
#include "loop.h"
#include "step_storage.h"
#include "util.h"

bool power_loss_hits(const char *which, const struct disk *d)
{
	return disk_bus_info(d->bus)->backend && (!strcmp(which, "all") || !strcmp(which, d->id));
}

char *power_loss_add(json_t *out, const char *id, json_t *reply)
{
	json_t *lost = json_object_get(reply, "lost_blocks");

	if (!json_is_integer(lost))
		return xasprintf("the back end of hybrid disk %s did not answer the "
				 "power_loss request",
				 id);
	json_object_set_new(out, "lost_blocks",
			    json_integer(json_integer_value(json_object_get(out, "lost_blocks")) +
					 json_integer_value(lost)));
	json_object_set(json_object_get(out, "disks"), id, lost);
	return NULL;
}

/* Each affected back end drops its cache; {"lost_blocks": N, "disks": {id: N}}. */
static json_t *drop_caches(struct run_ctx *c, const struct step *st, char **why)
{
	const struct machine *m = c->s->machine;
	struct hw_launch l = vm_launch(&c->vm);
	json_t *out = json_pack("{s:I,s:{}}", "lost_blocks", (json_int_t)0, "disks");

	for (unsigned i = 0; i < m->disks_count && !*why; i++) {
		json_t *r;

		if (!power_loss_hits(st->power_loss, &m->disks[i]))
			continue;
		r = hybrid_ctl(&l, &m->disks[i], "power_loss");
		*why = power_loss_add(out, m->disks[i].id, r);
		json_decref(r);
	}
	return out;
}

static void step_power_loss(struct run_ctx *c, const struct step *st, struct step_result *sr,
			    int64_t deadline)
{
	char *why = NULL;
	json_t *out;
	int ret;

	/* no shutdown, no flush: the plug is pulled */
	vm_power_cut(&c->vm);
	out = drop_caches(c, st, &why);
	if (why) {
		json_decref(out);
		sr->status = ST_ERROR;
		sr->message = why;
		return;
	}
	json_object_set_new(c->r->metrics, "hybrid_lost_blocks",
			    json_incref(json_object_get(out, "lost_blocks")));
	ret = run_restart(c, "", deadline);
	if (ret) {
		json_decref(out);
		step_wait_failed(c, sr, ret, st);
		if (sr->status == ST_ERROR) {
			free(sr->message);
			sr->message =
			    xasprintf("restart after the power loss failed: %s", c->vm.err);
		}
		return;
	}
	sr->exit_code = 0;
	sr->data = out;
	sr->out = json_dumps(out, JSON_COMPACT);
	step_judge(sr, st->expect);
}

void hybrid_stats_judge(struct step_result *sr, const char *id, json_t *stats,
			const struct expect *e)
{
	if (!stats) {
		sr->status = ST_ERROR;
		sr->message = xasprintf("the back end of hybrid disk %s did not answer", id);
		return;
	}
	sr->exit_code = 0;
	sr->data = stats;
	sr->out = json_dumps(stats, JSON_COMPACT);
	step_judge(sr, e);
}

static void step_hybrid_stats(struct run_ctx *c, const struct step *st, struct step_result *sr,
			      int64_t deadline)
{
	const struct machine *m = c->s->machine;
	struct hw_launch l = vm_launch(&c->vm);
	json_t *stats = NULL;

	(void)deadline; /* the control socket has its own short timeout */
	for (unsigned i = 0; i < m->disks_count && !stats; i++)
		if (!strcmp(m->disks[i].id, st->hybrid_stats))
			stats = hybrid_ctl(&l, &m->disks[i], "stats");
	hybrid_stats_judge(sr, st->hybrid_stats, stats, st->expect);
}

const struct step_ops step_power_loss_ops = { STEP_POWER_LOSS, step_power_loss };
const struct step_ops step_hybrid_stats_ops = { STEP_HYBRID_STATS, step_hybrid_stats };
