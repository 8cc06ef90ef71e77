/* Machine model: the hardware a scenario asks for (model.h) checked as a
 * whole and rendered as a QEMU command line. Knows nothing of the harness.
 * The top of hw/: it includes the headers of the parts it orchestrates, so
 * a harness file that includes machine.h sees the model's whole public
 * interface (sizes, argument vectors, disk paths, multipath devices, the
 * hybrid back end, sleep states). No hw/ file below includes it. */
#ifndef KTB_HW_MACHINE_H
#define KTB_HW_MACHINE_H

#include "argv.h"
#include "disk_path.h"
#include "display.h"
#include "hmat.h"
#include "hybrid_disk.h"
#include "model.h"
#include "multipath.h"
#include "names.h"
#include "share.h"
#include "sleep.h"

/* Check the machine and fill the parsed fields (sizes, defaults). Refuses what
 * QEMU cannot present faithfully. Returns 0 or -EINVAL with err filled. */
int machine_validate(struct machine *m, struct hw_error *err);

/* Create each disk's image for this run: a fresh sparse raw file, or a qcow2
 * overlay on the user's base image (never written). Returns 0 or -errno. */
int machine_create_disks(const struct machine *m, const struct hw_launch *l, struct hw_error *err);

/* The full QEMU argument vector (argv[0] is the binary). m must be validated. */
int machine_to_argv(const struct machine *m, const struct hw_launch *l, struct argv *out,
		    struct hw_error *err);

#endif
