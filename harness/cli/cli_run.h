/* ktb run: scenarios selected, booted and judged, reports written; the
 * exit code of docs/cli.md. */
#ifndef KTB_CLI_RUN_H
#define KTB_CLI_RUN_H

#include "cli.h"

extern const struct cli_command cli_run_command;

#endif
