/* ktb shrink: the smallest machine on which a failing scenario still fails
 * the same way (docs/debugging.md, "Which part of the machine"). */
#ifndef KTB_CLI_SHRINK_H
#define KTB_CLI_SHRINK_H

#include "cli.h"

extern const struct cli_command cli_shrink_command;

#endif
