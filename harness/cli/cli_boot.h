/* ktb boot: an interactive VM with a scenario's hardware or hardware given
 * by flags. Returns the exit code of docs/cli.md. */
#ifndef KTB_CLI_BOOT_H
#define KTB_CLI_BOOT_H

#include "cli.h"

extern const struct cli_command cli_boot_command;

#endif
