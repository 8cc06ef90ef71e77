/* ktb: the command line. Subcommands are rows of {name, fn, help}; each
 * parses its options, validates, then acts. Exit codes are the same for
 * every subcommand (docs/cli.md): 0 pass, 1 fail, 2 bad input, 125 could not
 * test. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_bisect.h"
#include "cli_boot.h"
#include "cli_doctor.h"
#include "cli_image.h"
#include "cli_kconfig.h"
#include "cli_list.h"
#include "cli_merge.h"
#include "cli_run.h"
#include "util.h"

static const struct cli_command commands[] = {
	{ "run", cli_run, "run scenarios: ktb run [options] SCENARIO|DIR..." },
	{ "list", cli_list, "list scenarios with their summaries and tags: ktb list [DIR...]" },
	{ "merge", cli_merge,
	  "combine run documents into one run and its reports: ktb merge R1.json R2.json..." },
	{ "bisect", cli_bisect,
	  "find the first bad kernel or commit: ktb bisect --kernels K1,...,Kn SCENARIO" },
	{ "boot", cli_boot, "interactive VM with the console on this terminal" },
	{ "image", cli_image, "build or refresh a guest image: ktb image build [RECIPE]" },
	{ "kconfig", cli_kconfig,
	  "the kernel config fragment scenarios need: ktb kconfig [SCENARIO|DIR...]" },
	{ "doctor", cli_doctor, "what is installed, whether KVM really works, what to apt-get" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ktb COMMAND [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'ktb COMMAND --help' for a command's options. Exit codes: 0 passed, "
		   "1 failed, 2 bad input, 125 could not test.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return KTB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ktb %s\n", cli_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "ktb: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return KTB_EXIT_USAGE;
}
