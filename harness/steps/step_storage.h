/* power_loss and hybrid_stats (step_storage.c): the steps that drive the
 * hybrid disks' back ends, the pure parts of their verdicts, and the
 * disks' stats gathered into the result's metrics. */
#ifndef KTB_STEP_STORAGE_H
#define KTB_STEP_STORAGE_H

#include <jansson.h>
#include <stdbool.h>

#include "machine.h"
#include "step.h"

extern const struct step_ops step_power_loss_ops;
extern const struct step_ops step_hybrid_stats_ops;

/* Does power_loss: WHICH ("all" or a disk id) drop disk d's cache? Only a
 * hybrid disk has one. */
bool power_loss_hits(const char *which, const struct disk *d);
/* One back end's answer to power_loss added to out ({"lost_blocks": N,
 * "disks": {id: N}}): NULL, or why the answer does not count (no integer
 * lost_blocks: the back end did not answer), to be the step's error. */
char *power_loss_add(json_t *out, const char *id, json_t *reply);
/* hybrid_stats' result: stats (taken; NULL when the back end of disk id did
 * not answer: an error) as the step's output, judged against e. */
void hybrid_stats_judge(struct step_result *sr, const char *id, json_t *stats,
			const struct expect *e);

#endif
