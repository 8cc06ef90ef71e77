/* Long-lived child processes the harness owns (QEMU, daemons): started
 * through spawn.h under its one policy (PR_SET_PDEATHSIG(SIGKILL), their own
 * process group, known to the run's guardian), and stopped with escalation
 * (a polite request first, then SIGTERM, then SIGKILL). And the signals that
 * interrupt a run, as a readable fd. */
#ifndef KTB_PROC_H
#define KTB_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "spawn.h" /* what proc_* are built on; spawn_tool for hw_launch.run */

struct proc {
	pid_t pid;
	int out_fd; /* read end of the child's stdout, or -1 */
	bool exited;
	int status;	/* waitpid status once exited */
	bool own_group; /* started in its own process group */
};

struct proc_opts {
	bool capture_stdout;	 /* stdout into a pipe (out_fd) */
	const char *stderr_path; /* stderr appended to this file; NULL: inherit */
	bool interactive;	 /* inherit the terminal for stdin/stdout */
	bool no_thp;		 /* no transparent huge pages for the child's memory */
};

/* 0, or -errno (-ENOENT: no such program). stdin is /dev/null unless
 * interactive; the child has its own process group unless interactive. */
int proc_spawn(struct proc *p, char *const argv[], const struct proc_opts *o);
/* Reap without blocking. 1 when the child has exited, else 0. */
int proc_poll(struct proc *p);
/* Wait until the child has created path (a back end's socket: connecting
 * to it would take the place of whoever it is for, so only its existence
 * is checked), polling every 20 ms. 0, -ECHILD when the child exited
 * first, -ETIMEDOUT at deadline (now_ms). */
int proc_wait_path(struct proc *p, const char *path, int64_t deadline);
/* Wait up to timeout_ms for the child to exit by itself. 1 exited, 0 not. */
int proc_wait(struct proc *p, int timeout_ms);
/* SIGTERM the group, wait grace_ms, SIGKILL, reap. Safe to call twice. */
void proc_stop(struct proc *p, int grace_ms);
/* "exited with status 1" / "killed by signal 9" into a static buffer. */
const char *proc_describe(const struct proc *p);

/* SIGINT/SIGTERM/SIGHUP become a readable byte on the returned fd (a
 * self-pipe), so event loops can notice them; proc_interrupted() says which
 * signal arrived (0: none). */
int proc_signals_install(void);
/* In a forked worker: a self-pipe of its own, so a signal meant for one
 * worker does not wake its siblings. */
int proc_signals_reinstall(void);
int proc_interrupted(void);

#endif
