/* What ktb's subcommands share: the exit codes and the shape of a
 * subcommand (cli_NAME.h each: it takes its own argv, argv[0] being the
 * subcommand, and returns the process exit code). */
#ifndef KTB_CLI_H
#define KTB_CLI_H

enum {
	KTB_EXIT_PASS = 0,
	KTB_EXIT_FAIL = 1,
	KTB_EXIT_USAGE = 2,
	KTB_EXIT_UNTESTED = 125,
	KTB_EXIT_INTERRUPTED = 130,
};

struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

#endif
