/* Does the kernel have what a scenario needs? The scenario's requirements
 * (kreq.c: its machine, its steps, kernel.requires) against the config and
 * module list of the kernel the image boots (image_kconfig.c), before
 * anything boots: a kernel that lacks an option did not test the scenario,
 * which is a skip, never a failure (docs/own-kernel.md). */
#ifndef KTB_KERNEL_CHECK_H
#define KTB_KERNEL_CHECK_H

#include <stddef.h>

#include "kconfig.h"
#include "scenario.h"

struct kernel_check {
	char **missing; /* "CONFIG_X" each, NULL-terminated; NULL when none */
	size_t count;
	char *message; /* every missing option and what needs it, "; " between */
};

/* Check s against k. 0 with c->count 0 when everything is there; 0 with
 * c->count > 0 and the rest filled when something is missing; -ENOMEM. */
int kernel_check(const struct scenario *s, const struct kconfig *k, struct kernel_check *c);
void kernel_check_free(struct kernel_check *c);

#endif
