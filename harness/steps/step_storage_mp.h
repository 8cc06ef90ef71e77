/* fail_path and restore_path (step_storage_mp.c): take one path of a
 * multipath disk away and bring it back, judged on what the guest shows;
 * and the kernel argument that tells the guest its dm-multipath disks. */
#ifndef KTB_STEP_STORAGE_MP_H
#define KTB_STEP_STORAGE_MP_H

#include <jansson.h>
#include <stdbool.h>

#include "machine.h"
#include "step.h"

extern const struct step_ops step_fail_path_ops;
extern const struct step_ops step_restore_path_ops;

/* fail_path (up false) or restore_path (up true) judged on a `ktb-probe
 * disk` object. before: may the step act? 0, or -ENOENT with *why naming
 * what the guest showed (no multipath device; for fail_path the path absent
 * or not active). After: 0 when the effect is seen (the path gone or
 * inactive / present and active), 1 not yet, -ENOENT with *why when the
 * multipath device itself is gone. */
int mp_judge(json_t *probe, unsigned path, bool up, bool before, char **why);

#endif
