/* ktb kconfig: the kernel config fragment the given scenarios need (the
 * union of their requirements, kreq.h), one CONFIG_X=y a line after a
 * comment saying what needs it; nothing boots. Returns 0, or 2 when a file
 * or an option is bad. */
#ifndef KTB_CLI_KCONFIG_H
#define KTB_CLI_KCONFIG_H

#include "cli.h"

extern const struct cli_command cli_kconfig_command;

#endif
