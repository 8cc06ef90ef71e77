/* The NUMA topology: nodes, their CPUs and memory, distances; checked and
 * turned into -object/-numa arguments (HMAT is hmat.h's). */
#ifndef KTB_HW_NUMA_H
#define KTB_HW_NUMA_H

#include "argv.h"

int numa_validate(struct machine *m, struct hw_error *err);
int numa_to_args(const struct machine *m, struct argv *a);

#endif
