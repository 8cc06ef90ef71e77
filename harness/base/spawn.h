/* Every child process ktb starts -- QEMU, qemu-storage-daemon, ktb-hybrid,
 * ssh, git, the bisect's build and judges, apt-get, the image build,
 * qemu-img, the KVM probe guest, the -j workers and the run's guardian --
 * starts here, and only here, under one policy (docs/architecture.md):
 *
 *   - PR_SET_PDEATHSIG(SIGKILL): it dies the moment ktb does;
 *   - it exits at once (127) when ktb died before the prctl;
 *   - own_group: its own process group (made in the child and in the parent,
 *     whichever runs first), told to the group observer (the guardian) when
 *     started and untold when reaped.
 *
 * Modelled on git's run-command: fill a struct child_process, then
 * start_command() + finish_command(), or run_command() for both, or
 * pipe_command() to feed stdin and collect stdout and stderr with a deadline;
 * start_async() runs a function in a forked child under the same policy.
 * Functions return 0 or -errno unless said otherwise. Fork only from the main
 * thread: the death signal fires when the forking *thread* ends. */
#ifndef KTB_SPAWN_H
#define KTB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What one of the child's standard streams is. Zero is inherit. */
enum spawn_io {
	SPAWN_INHERIT = 0,
	SPAWN_NULL,   /* /dev/null */
	SPAWN_PIPE,   /* a pipe; the parent's end in in_fd/out_fd/err_fd */
	SPAWN_FILE,   /* path: read for stdin, appended to for stdout/stderr */
	SPAWN_FD,     /* fd, duplicated (the caller keeps and closes its own) */
	SPAWN_STDOUT, /* stderr only: wherever stdout goes */
};

struct spawn_stream {
	enum spawn_io how;
	const char *path; /* SPAWN_FILE */
	int fd;		  /* SPAWN_FD */
};

struct child_process {
	/* --- set by the caller (zero-initialise the rest) --- */
	char *const *argv;	/* argv[0] is looked up in PATH */
	const char *const *env; /* NULL-terminated "NAME=VALUE" set, "NAME" unset */
	const char *dir;	/* the child's working directory; NULL: ours */
	struct spawn_stream in, out, err;
	bool own_group;	  /* its own process group, told to the observer */
	bool no_thp;	  /* no transparent huge pages (survives exec) */
	bool interactive; /* the terminal's program: SIGINT ignored in it */
	/* No death signal: only for the guardian, which must outlive ktb to
	 * clean up after it (it has its own session and ignores signals). */
	bool no_death_signal;
	/* pipe_command only: polled while it waits; nonzero stops the child
	 * (its group SIGKILLed) and pipe_command returns -EINTR */
	int (*cancel)(void);

	/* --- filled in --- */
	pid_t pid;
	int in_fd, out_fd, err_fd; /* the parent's pipe ends, or -1 */
	bool exited;
	int status; /* waitpid status once exited */
};

/* Start cp. -ENOENT (or whatever exec, chdir or an open said) when the
 * program could not be started; the child is then already reaped. */
int start_command(struct child_process *cp);
/* Wait up to timeout_ms (< 0: for ever) for cp to exit; past the deadline its
 * group is SIGKILLed and reaped, and -ETIMEDOUT returned. Closes cp's pipe
 * ends. The exit code, or 128 + the signal that killed it. */
int finish_command(struct child_process *cp, int timeout_ms);
/* start_command + finish_command. */
int run_command(struct child_process *cp, int timeout_ms);
/* A waitpid status as an exit code: the code, or 128 + the signal that
 * killed it (finish_command's, for a child reaped by poll_command). */
int command_exit_code(int status);

/* A growing buffer for pipe_command: len bytes in buf, always
 * NUL-terminated once pipe_command has run. free(buf) when done. */
struct spawn_buf {
	char *buf;
	size_t len;
};

/* Run cp writing in_len bytes of in (in may be NULL: stdin from cp->in) to
 * its stdin and collecting stdout into out and stderr into err (either may
 * be NULL: the stream as cp says), all at once so that a child that writes
 * before it has read everything cannot deadlock. Past timeout_ms (< 0: no
 * deadline) the child's group is SIGKILLed: -ETIMEDOUT; cp->cancel: -EINTR.
 * Otherwise as finish_command. */
int pipe_command(struct child_process *cp, const char *in, size_t in_len, struct spawn_buf *out,
		 struct spawn_buf *err, int timeout_ms);

/* Run argv (stdin inherited, stdout to /dev/null, its own process group)
 * and wait for it: 0 when it exits 0, else -EIO, or -errno when it could not
 * start, with the first line of its stderr (or why it could not start) in
 * why. ctx is unused: this is the shape of hw/'s struct hw_launch run. */
int spawn_tool(char *const argv[], char *why, size_t len, void *ctx);

/* Fork a child that runs fn(arg) and _exits with what it returns (its
 * stdio buffers, flushed here before the fork, are not written twice). Only
 * the policy fields and the streams of cp are used; argv must be NULL. */
int start_async(struct child_process *cp, int (*fn)(void *arg), void *arg);

/* Reap cp if it has exited: 1 exited (status in cp->status), 0 running. */
int poll_command(struct child_process *cp);
/* Wait up to timeout_ms for cp to exit by itself: 1 exited, 0 not. */
int wait_command(struct child_process *cp, int timeout_ms);
/* Send sig to cp's group (and to cp itself). */
void signal_command(const struct child_process *cp, int sig);
/* SIGTERM, up to grace_ms for it to exit, then SIGKILL to the group; reaped
 * and its pipe ends closed. Safe to call twice, and on a child never started
 * (pid <= 0). */
void stop_command(struct child_process *cp, int grace_ms);
/* "exited with status 1" / "killed by signal 9" for a waitpid status. */
void spawn_describe(int status, char *buf, size_t len);

/* The observer of process groups started and reaped (the guardian, when a run
 * has one). NULL for none. Inherited by forked children. */
void spawn_set_group_observer(void (*started)(pid_t pgid), void (*reaped)(pid_t pgid));

#endif
