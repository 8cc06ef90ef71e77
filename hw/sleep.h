/* The sleep states the firmware offers (machine.sleep): checked, and set as
 * q35's ICH9 LPC properties. */
#ifndef KTB_HW_SLEEP_H
#define KTB_HW_SLEEP_H

#include <stdbool.h>

#include "argv.h"

int sleep_validate(const struct machine *m, struct hw_error *err);
int sleep_to_args(const struct machine *m, struct argv *a);

/* True when the machine must boot the bzImage through SeaBIOS (it offers S3,
 * and S3 resume triple-faults on a PVH-booted kernel). */
bool machine_needs_bios_boot(const struct machine *m);

#endif
