/* ktb bisect: the first bad kernel of a ladder (--kernels) or commit
 * (--git). Returns the exit code of docs/bisect.md. */
#ifndef KTB_CLI_BISECT_H
#define KTB_CLI_BISECT_H

#include "cli.h"

extern const struct cli_command cli_bisect_command;

#endif
