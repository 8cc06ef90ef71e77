/* The memory devices of a machine beyond its RAM: the virtio balloon. */
#ifndef KTB_HW_MEMORY_H
#define KTB_HW_MEMORY_H

#include "argv.h"

int balloon_to_args(const struct machine *m, struct argv *a);

#endif
