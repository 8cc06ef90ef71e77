/* ktb compare BASE.json NEW.json: two runs' samples compared, metric by
 * metric (docs/results.md, "Comparing runs"). Exit 0 no regression, 1 a
 * regression, 2 bad input (a document ktb cannot read, a scenario in one
 * run only). */
#ifndef KTB_CLI_COMPARE_H
#define KTB_CLI_COMPARE_H

#include "cli.h"

extern const struct cli_command cli_compare_command;

#endif
