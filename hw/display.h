/* The machine's display (machine.display): one PCI display adapter, only
 * when the scenario declares one; a machine without it has none at all
 * (QEMU runs with -nodefaults), so other machines boot as before. Rendered
 * for QEMU and libvirt, and what the guest's PCI bus must then show. */
#ifndef KTB_HW_DISPLAY_H
#define KTB_HW_DISPLAY_H

#include "argv.h"
#include "model.h"

/* -device MODEL for a declared display; nothing otherwise. 0 or -ENOMEM. */
int display_to_args(const struct machine *m, struct argv *a);

/* libvirt's <video><model type=...>, or NULL for no display. */
const char *display_libvirt_model(const struct machine *m);

/* The guest's PCI display-class devices as "vendor:device class" strings,
 * e.g. "1234:1111 038000"; NULL for no display (the guest must have none). */
const char *display_pci_fact(const struct machine *m);

#endif
