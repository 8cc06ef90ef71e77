/* The subcommands behind ktb's command line. Each takes its own argv
 * (argv[0] is the subcommand) and returns the process exit code. */
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

int cli_run(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_boot(int argc, char **argv);
int cli_bisect(int argc, char **argv);
int cli_image(int argc, char **argv);
int cli_doctor(int argc, char **argv);
const char *cli_version(void);

#endif
