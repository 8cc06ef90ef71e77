/* The machine step: after every boot (and every restart from S4 or a power
 * loss) the guest's own account of its hardware, `ktb-probe machine`, is
 * compared with the facts hw/ derives from the scenario's machine. A
 * mismatch fails the scenario at the step named "machine". */
#ifndef KTB_MACHINE_STEP_H
#define KTB_MACHINE_STEP_H

#include <jansson.h>
#include <stdint.h>

#include "machine.h"
#include "result.h"

struct run_ctx;
struct step_result;

/* Compare machine m with seen, the probe's document. *message: NULL when
 * everything matched and every part was checked, else what the guest
 * could not read, what differs ("CPUs online: declared 2, the guest sees 1
 * (maxcpus=1 on the command line?)") and which parts were not checked.
 * *data: the step's result data; its "unread" lists the parts the probe
 * could not read (the step then ends in error, not in a verdict). Returns
 * the number of mismatches, or -ENOMEM. Pure: no guest, no QEMU. */
int machine_check_compare(const struct machine *m, const json_t *seen, char **message,
			  json_t **data);

/* The member of doc that path names ("numa.nodes.1.cpus",
 * "disks.id=data.size_bytes"), or NULL. */
const json_t *machine_check_lookup(const json_t *doc, const char *path);

/* Run the step in the guest through the agent. */
void step_machine(struct run_ctx *c, struct step_result *sr, int64_t deadline);

#endif
