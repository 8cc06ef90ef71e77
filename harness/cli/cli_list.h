/* ktb list: one line per scenario (name, tags, summary); nothing boots.
 * Returns 0, or 2 when a file is bad. */
#ifndef KTB_CLI_LIST_H
#define KTB_CLI_LIST_H

#include "cli.h"

extern const struct cli_command cli_list_command;

#endif
