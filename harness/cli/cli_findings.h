/* ktb findings: the findings (kernel reports) in run documents, grouped by
 * signature (docs/cli.md). Exit 0 when every input was read, with or
 * without findings; 2 when one is not a run document this ktb reads. */
#ifndef KTB_CLI_FINDINGS_H
#define KTB_CLI_FINDINGS_H

#include "cli.h"

extern const struct cli_command cli_findings_command;

#endif
