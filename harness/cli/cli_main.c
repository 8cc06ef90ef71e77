/* ktb's command line: the table of subcommands, `ktb help`, and main. */
#include <stdio.h>
#include <string.h>

#include "cli_main.h"
#include "cli.h"
#include "cli_bisect.h"
#include "cli_boot.h"
#include "cli_doctor.h"
#include "cli_compare.h"
#include "cli_exec.h"
#include "cli_findings.h"
#include "cli_image.h"
#include "cli_kconfig.h"
#include "cli_list.h"
#include "cli_merge.h"
#include "cli_run.h"
#include "cli_shrink.h"

const struct cli_command *const cli_commands[] = {
	&cli_run_command,     &cli_list_command,   &cli_merge_command,	 &cli_findings_command,
	&cli_compare_command, &cli_bisect_command, &cli_shrink_command,	 &cli_boot_command,
	&cli_exec_command,    &cli_image_command,  &cli_kconfig_command, &cli_doctor_command,
};
const size_t cli_commands_count = sizeof(cli_commands) / sizeof(cli_commands[0]);

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; name && i < cli_commands_count; i++)
		if (!strcmp(name, cli_commands[i]->name))
			return cli_commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	int width = 0;

	/* two spaces at least between name and summary: scripts split there */
	for (size_t i = 0; i < cli_commands_count; i++)
		if ((int)strlen(cli_commands[i]->name) > width)
			width = (int)strlen(cli_commands[i]->name);
	fprintf(f, "usage: ktb COMMAND [options]\n\ncommands:\n");
	for (size_t i = 0; i < cli_commands_count; i++)
		fprintf(f, "  %-*s  %s\n", width, cli_commands[i]->name, cli_commands[i]->summary);
	fprintf(f, "\n'ktb help COMMAND' or 'ktb COMMAND --help': a command's options.\n"
		   "Reports: --json FILE, --junit FILE, --tap FILE, --html FILE, --kcidb FILE\n"
		   "(- is standard output).\n"
		   "Exit codes: 0 passed, 1 a check failed, 2 bad input, 125 could not test\n"
		   "(an error, or a skip when nothing failed), 130 interrupted (docs/cli.md).\n");
}

static void command_names(FILE *f)
{
	for (size_t i = 0; i < cli_commands_count; i++)
		fprintf(f, "%s%s", i ? ", " : "", cli_commands[i]->name);
}

/* ktb help [COMMAND]: what ktb --help or ktb COMMAND --help prints. */
static int help(int argc, char **argv)
{
	const struct cli_command *c;

	cli_name_set("help");
	if (argc < 3) {
		usage(stdout);
		return KTB_EXIT_PASS;
	}
	c = cli_command_find(argv[2]);
	if (!c || argc > 3) {
		fprintf(stderr, "ktb help: ");
		if (c)
			fprintf(stderr, "one command at a time: ktb help %s", argv[2]);
		else {
			fprintf(stderr, "there is no command '%s'; the commands: ", argv[2]);
			command_names(stderr);
		}
		fputc('\n', stderr);
		return KTB_EXIT_USAGE;
	}
	c->usage(stdout);
	return KTB_EXIT_PASS;
}

int cli_main(int argc, char **argv)
{
	const struct cli_command *c;
	char prog[64];

	if (argc < 2) {
		usage(stderr);
		return KTB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return KTB_EXIT_PASS;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("ktb %s\n", cli_version());
		return KTB_EXIT_PASS;
	}
	c = cli_command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "ktb: unknown command '%s'; the commands: ", argv[1]);
		command_names(stderr);
		fprintf(stderr, " ('ktb help' says what each does)\n");
		return KTB_EXIT_USAGE;
	}
	cli_name_set(c->name);
	/* getopt's own messages start with argv[0]: "ktb run: ..." */
	snprintf(prog, sizeof(prog), "ktb %s", c->name);
	argv[1] = prog;
	return c->fn(argc - 1, argv + 1);
}
