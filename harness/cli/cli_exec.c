/* ktb exec AGENT.sock COMMAND...: the guest agent's guest-exec, as a run
 * step runs its command, against a socket QEMU serves (one client at a
 * time: the VM's own ktb has let go of it while it keeps the VM). */
#include "cli_exec.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loop.h"
#include "qga.h"
#include "util.h"

#define EXEC_TIMEOUT_DEFAULT_MS 60000

static void exec_usage(FILE *f)
{
	fprintf(f, "usage: ktb exec [--timeout DURATION] AGENT.sock COMMAND...\n"
		   "  run COMMAND (its words joined, as sh -c takes them) in the guest whose\n"
		   "  qemu-guest-agent listens on AGENT.sock: a VM ktb run --keep-on-fail kept\n"
		   "  prints its socket; the command's output here, its exit status ktb's\n"
		   "  --timeout DURATION  how long the command may take (default 60s)\n"
		   "Exit: the command's status (128+N when signal N killed it), 2 bad input,\n"
		   "125 the agent could not be reached or the command did not finish in time.\n");
}

static const struct option exec_options[] = {
	{ "timeout", required_argument, 0, 't' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static int exec_parse(int argc, char **argv, int64_t *timeout_ms)
{
	int ch;

	*timeout_ms = EXEC_TIMEOUT_DEFAULT_MS;
	optind = 1;
	/* "+": options stop at the socket; the command's own dashes are its */
	while ((ch = getopt_long(argc, argv, "+h", exec_options, NULL)) != -1) {
		switch (ch) {
		case 't':
			if (parse_duration_ms(optarg, timeout_ms) || *timeout_ms <= 0) {
				cli_err("--timeout %s: give a duration (30s, 5m)", optarg);
				return KTB_EXIT_USAGE;
			}
			break;
		case 'h':
			exec_usage(stdout);
			exit(0);
		default:
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	if (argc - optind < 2) {
		cli_err("give the agent's socket and a command: ktb exec AGENT.sock COMMAND...");
		return KTB_EXIT_USAGE;
	}
	return 0;
}

static char *exec_join(char **words, int n)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	s = xcalloc(1, len);
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

static int cli_exec(int argc, char **argv)
{
	static const char *const env[] = { "PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/root",
					   NULL };
	struct qga_exec_result res = { 0 };
	struct loop *l;
	struct qga *g;
	int64_t timeout_ms, deadline;
	char *cmd;
	int fd, ret = exec_parse(argc, argv, &timeout_ms);

	if (ret)
		return ret;
	fd = unix_connect(argv[optind]);
	if (fd < 0) {
		cli_err("cannot reach the guest agent at %s: %s (is the VM still kept?)",
			argv[optind], strerror(-fd));
		return KTB_EXIT_UNTESTED;
	}
	l = loop_new();
	g = qga_new(l, fd, NULL);
	deadline = loop_now(l) + timeout_ms;
	/* ktb exec SOCK -- CMD: the "--" is not the command's */
	if (!strcmp(argv[optind + 1], "--") && argc - optind > 2)
		optind++;
	cmd = exec_join(argv + optind + 1, argc - optind - 1);
	ret = qga_exec(g, cmd, env, &res, deadline);
	if (ret) {
		cli_err("%s: %s", cmd,
			ret == -ETIMEDOUT ? "no answer from the guest agent in time"
					  : strerror(-ret));
		if (res.err)
			fputs(res.err, stderr);
		ret = KTB_EXIT_UNTESTED;
	} else {
		fwrite(res.out ? res.out : "", 1, res.out_len, stdout);
		fwrite(res.err ? res.err : "", 1, res.err_len, stderr);
		ret = res.signal ? 128 + res.signal : res.exit_code;
	}
	qga_exec_result_free(&res);
	qga_free(g);
	loop_free(l);
	free(cmd);
	return ret;
}

const struct cli_command cli_exec_command = {
	.name = "exec",
	.fn = cli_exec,
	.summary = "one command in a kept VM, through its guest agent: ktb exec AGENT.sock CMD",
	.usage = exec_usage,
	.options = exec_options,
	.shortopts = "h", /* the options --help names; getopt takes "+h" (exec_parse) */
};
