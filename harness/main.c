/* ktb: the command line. The subcommands are the rows of cli_commands
 * (harness/cli/cli_main.c); each parses its options, validates, then
 * acts. Exit codes are the same for every subcommand (docs/cli.md). */
#include "cli.h"
#include "cli_main.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
