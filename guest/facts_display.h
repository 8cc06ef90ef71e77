/* The display section of `ktb-probe machine`: the guest's PCI display
 * adapters. root prefixes /sys as in facts.h. */
#ifndef KTB_GUEST_FACTS_DISPLAY_H
#define KTB_GUEST_FACTS_DISPLAY_H

#include "json_out.h"

/* pci: the display adapters (PCI class 03) as "vendor:device class" strings,
 * "1234:1111 038000", sorted; members of the caller's object; 0 always. */
int facts_display(const char *root, struct json_out *j);

#endif
