#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t sig_seen;

/* struct proc as the child_process spawn.c works on, and back: the pid and
 * how it ended are all that a started child carries. */
static struct child_process as_child(const struct proc *p)
{
	return (struct child_process){ .pid = p->pid,
				       .own_group = p->own_group,
				       .exited = p->exited,
				       .status = p->status,
				       .in_fd = -1,
				       .out_fd = -1,
				       .err_fd = -1 };
}

static void from_child(struct proc *p, const struct child_process *cp)
{
	p->exited = cp->exited;
	p->status = cp->status;
}

int proc_spawn(struct proc *p, char *const argv[], const struct proc_opts *o)
{
	struct child_process cp = {
		.argv = argv,
		.in.how = o->interactive ? SPAWN_INHERIT : SPAWN_NULL,
		.out.how = o->capture_stdout ? SPAWN_PIPE : SPAWN_INHERIT,
		.err = { .how = o->stderr_path ? SPAWN_FILE : SPAWN_INHERIT,
			 .path = o->stderr_path },
		/* a stop of its own group reaches every helper QEMU might start */
		.own_group = !o->interactive,
		.no_thp = o->no_thp,
		.interactive = o->interactive,
	};
	int ret = start_command(&cp);

	memset(p, 0, sizeof(*p));
	p->pid = ret ? -1 : cp.pid;
	p->out_fd = ret ? -1 : cp.out_fd;
	p->own_group = cp.own_group;
	p->exited = cp.exited;
	p->status = cp.status;
	return ret;
}

int proc_poll(struct proc *p)
{
	struct child_process cp = as_child(p);
	int ret = poll_command(&cp);

	from_child(p, &cp);
	return ret;
}

int proc_wait_path(struct proc *p, const char *path, int64_t deadline)
{
	struct timespec pause = { 0, 20 * 1000000 };

	while (access(path, F_OK) < 0) {
		if (proc_poll(p))
			return -ECHILD;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
	return 0;
}

int proc_wait(struct proc *p, int timeout_ms)
{
	struct child_process cp = as_child(p);
	int ret = wait_command(&cp, timeout_ms);

	from_child(p, &cp);
	return ret;
}

void proc_stop(struct proc *p, int grace_ms)
{
	struct child_process cp = as_child(p);

	stop_command(&cp, grace_ms);
	from_child(p, &cp);
	if (p->out_fd >= 0) {
		close(p->out_fd);
		p->out_fd = -1;
	}
}

const char *proc_describe(const struct proc *p)
{
	static char buf[64];

	if (!p->exited)
		snprintf(buf, sizeof(buf), "still running");
	else
		spawn_describe(p->status, buf, sizeof(buf));
	return buf;
}

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;
	ssize_t n;

	sig_seen = sig;
	n = write(sig_pipe[1], &c, 1);
	(void)n;
	errno = saved;
}

int proc_signals_install(void)
{
	struct sigaction sa;

	if (sig_pipe[0] >= 0)
		return sig_pipe[0];
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return sig_pipe[0];
}

int proc_signals_reinstall(void)
{
	int fd;

	if (sig_pipe[0] >= 0) {
		close(sig_pipe[0]);
		close(sig_pipe[1]);
		sig_pipe[0] = sig_pipe[1] = -1;
	}
	fd = proc_signals_install();
	/* a signal that came between the fork and now is not lost: the parent
	 * starts no worker once it has one, so it is this worker's */
	if (fd >= 0 && sig_seen) {
		char c = (char)sig_seen;
		ssize_t n = write(sig_pipe[1], &c, 1);

		(void)n;
	}
	return fd;
}

int proc_interrupted(void)
{
	return sig_seen;
}
