/* ktb boot --exec CMD / --script FILE: boot the machine with nothing on the
 * terminal, run one command in the guest through the guest agent (in the
 * guest folder workdir, the shared current folder), copy its stdout and
 * stderr here while it runs, power off, and hand back its exit status. */
#ifndef KTB_CLI_BOOT_EXEC_H
#define KTB_CLI_BOOT_EXEC_H

#include "vm.h"

struct boot_exec {
	const char *cmd;     /* --exec: a /bin/sh command line; or NULL */
	const char *script;  /* --script: a host file, copied into the guest; or NULL */
	const char *workdir; /* the guest folder the command starts in */
};

/* The script's bytes checked and read (a text file of at most 64 KiB):
 * 0, or the usage exit code with a message printed. */
int boot_exec_check(const struct boot_exec *e);

/* Boot vc (not interactive) and run e. Returns the command's exit status
 * (128+N for a signal), 125 when the machine never came up or the agent
 * could not run it, 130 when interrupted. */
int boot_exec_run(const struct vm_config *vc, const struct boot_exec *e);

#endif
