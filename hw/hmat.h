/* HMAT: the latency/bandwidth entries and memory-side caches of a NUMA
 * machine, checked and turned into -numa hmat-lb / hmat-cache arguments. */
#ifndef KTB_HW_HMAT_H
#define KTB_HW_HMAT_H

#include "argv.h"

int hmat_validate(const struct numa *nu, struct hw_error *err);
int hmat_to_args(const struct numa *nu, struct argv *a);

/* The -machine argument: "q35", with ",hmat=on" when the NUMA model has
 * HMAT entries. */
const char *machine_type_arg(const struct machine *m);

#endif
