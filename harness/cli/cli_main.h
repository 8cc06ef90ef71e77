/* ktb's main and the table of its subcommands (cli_NAME_command each). */
#ifndef KTB_CLI_MAIN_H
#define KTB_CLI_MAIN_H

#include <stddef.h>

#include "cli.h"

/* Every subcommand, in the order `ktb help` lists them. */
extern const struct cli_command *const cli_commands[];
extern const size_t cli_commands_count;

/* The subcommand called name, or NULL. */
const struct cli_command *cli_command_find(const char *name);
/* ktb's main: the subcommand argv[1] names (argv[0] becomes "ktb NAME" for
 * it), `ktb help [COMMAND]`, --help, --version. */
int cli_main(int argc, char **argv);

#endif
