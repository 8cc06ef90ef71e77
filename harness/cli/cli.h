/* What ktb's subcommands share: the exit codes (docs/cli.md, "Exit
 * codes"), the shape of a subcommand, and the prefix of its messages. */
#ifndef KTB_CLI_H
#define KTB_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

enum {
	KTB_EXIT_PASS = 0,
	KTB_EXIT_FAIL = 1,
	KTB_EXIT_USAGE = 2,
	KTB_EXIT_UNTESTED = 125,
	KTB_EXIT_INTERRUPTED = 130,
};

/* One subcommand (cli_NAME.c defines cli_NAME_command). fn takes the
 * subcommand's own argv, argv[0] being "ktb NAME" (so getopt's own messages
 * say "ktb NAME: ..."), and returns the process exit code. usage prints
 * what both `ktb NAME --help` and `ktb help NAME` print; options and
 * shortopts are the getopt_long table and letters fn parses with, and the
 * help names every one of them (tests/unit/test_cli.c) but those in
 * unlisted: removed spellings, which only say what to write instead, and
 * internal ones. cli_main.c has the table of them. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `ktb help` */
	void (*usage)(FILE *f);
	const struct option *options;
	const char *shortopts;
	const char *const *unlisted; /* NULL-terminated long names, or NULL */
};

/* The subcommand now running ("run"), or "" before one started. */
const char *cli_name(void);
void cli_name_set(const char *name);
/* One message on stderr: "ktb NAME: " (or "ktb: " before a subcommand
 * started), fmt, a newline. Every message a subcommand prints starts so,
 * but the FILE[:LINE:COL]: diagnostics of a scenario file that does not
 * load ("ktb: FILE:LINE:COL: FIELD: MESSAGE"). */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* After a bad option (getopt said which): "ktb NAME: 'ktb help NAME' lists
 * the options" on stderr. */
void cli_usage_hint(void);

#endif
