/* ktb exec: one command in a running guest through its agent's socket (a
 * VM that ktb run --keep-on-fail kept): the command's output on this
 * terminal, its exit status ktb's (docs/cli.md). */
#ifndef KTB_CLI_EXEC_H
#define KTB_CLI_EXEC_H

#include "cli.h"

extern const struct cli_command cli_exec_command;

#endif
