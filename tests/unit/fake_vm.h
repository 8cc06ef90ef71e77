/* A fake back end of struct vm for unit tests (test code, not in ktb): no
 * QEMU, but the real vm.c, qmp.c, qga.c, steps and runner above it. The
 * fake listens on the VM's QMP and guest-agent sockets itself, on the VM's
 * own loop, and speaks both protocols from tables:
 *  - the guest: a command (the string a step hands to sh -c) exits with a
 *    code, stdout and stderr after a delay, or hangs, or QEMU dies, or the
 *    kernel panics, or the machine powers itself off, the moment it starts;
 *  - the monitor: a command answers with a canned reply.
 * It records what it was asked, in order. One script at a time
 * (fake_vm_use); the ops below follow it. */
#ifndef KTB_TEST_FAKE_VM_H
#define KTB_TEST_FAKE_VM_H

#include <stdbool.h>

#include "vm_backend.h"

enum fake_act {
	FAKE_EXIT,     /* exit with exit_code after delay_ms */
	FAKE_HANG,     /* never exits */
	FAKE_DIE,      /* QEMU ends at once: vm_gone(die_reason) */
	FAKE_PANIC,    /* the console shows a kernel panic */
	FAKE_POWEROFF, /* starts, and delay_ms later the guest powers off (QEMU
			  exits 0), as a hibernation does */
};

struct fake_cmd {
	const char *cmd; /* the exact guest command, or a prefix ending in "*";
			    NULL ends the table */
	enum fake_act act;
	int exit_code;
	const char *out, *err;
	int delay_ms;
	bool once;		   /* answers only the first time (later rows answer after) */
	const char *console;	   /* fed to the console the moment it starts (a kernel
				      report the command provokes); NULL: nothing */
	const char *console_later; /* fed console_later_ms after it starts (the
				      rest of a report still being printed) */
	int console_later_ms;
};

struct fake_qmp {
	const char *cmd;   /* NULL ends the table */
	const char *reply; /* the whole reply without its id: {"return": ...} */
};

#define FAKE_MAX_REC 64

struct fake_vm {
	/* the script */
	const struct fake_cmd *cmds; /* an unknown command exits 127 */
	const struct fake_qmp *qmp;  /* an unknown one: CommandNotFound */
	const char *boot_console;    /* fed to the console as the machine starts */
	const char *die_reason;	     /* FAKE_DIE: NULL "QEMU killed by signal 9" */
	int spawn_ret;		     /* the start fails with this -errno */
	bool agent_silent;	     /* the agent never answers: no boot */
	/* what happened */
	char *guest[FAKE_MAX_REC]; /* guest commands, in order */
	unsigned guest_n;
	char *monitor[FAKE_MAX_REC]; /* monitor commands (the handshake left out) */
	unsigned monitor_n;
	unsigned spawns, stops;
	bool used[FAKE_MAX_REC]; /* which `once` rows answered */
};

extern const struct vm_backend_ops fake_vm_ops;

/* The script the ops follow from now on (f stays the caller's). */
void fake_vm_use(struct fake_vm *f);
/* Free what f recorded. */
void fake_vm_clear(struct fake_vm *f);
/* Index of the first recorded guest command equal to cmd, or -1. */
int fake_vm_asked(const struct fake_vm *f, const char *cmd);

#endif
