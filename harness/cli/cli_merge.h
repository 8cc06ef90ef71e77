/* ktb merge: the run documents of several runs (CI shards, say) as one
 * run, and any report written from it. Its exit code is the one a run with
 * those results would have (docs/cli.md), or 2 when an input is not a run
 * document this ktb reads (then nothing is written). */
#ifndef KTB_CLI_MERGE_H
#define KTB_CLI_MERGE_H

#include "cli.h"

extern const struct cli_command cli_merge_command;

#endif
