#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"

static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t sig_seen;

void proc_child_policy(pid_t parent, bool own_group)
{
	/* PDEATHSIG fires when the thread that forked us ends: ktb forks from
	 * its main thread only. The parent may have died before the prctl, in
	 * which case nothing would ever fire: then go at once. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (own_group)
		setpgid(0, 0);
}

void proc_child_adopt(pid_t pid, bool own_group)
{
	if (pid <= 0)
		return;
	/* also here: whoever runs first makes the group */
	if (own_group) {
		setpgid(pid, pid);
		guard_track(pid);
	}
}

void proc_child_reaped(pid_t pid)
{
	guard_untrack(pid);
}

static void child_setup(int out_pipe[2], const struct proc_opts *o, pid_t parent)
{
	int fd;

	/* a stop of our own group reaches every helper QEMU might start */
	proc_child_policy(parent, !o->interactive);
	/* the flag survives exec: QEMU's guest RAM then faults in 4 KiB pages */
	if (o->no_thp)
		prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (!o->interactive) {
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
	}
	if (o->capture_stdout) {
		dup2(out_pipe[1], STDOUT_FILENO);
		close(out_pipe[0]);
		close(out_pipe[1]);
	}
	if (o->stderr_path) {
		fd = open(o->stderr_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
	}
	signal(SIGINT, o->interactive ? SIG_IGN : SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

static void proc_reaped(struct proc *p)
{
	p->exited = true;
	proc_child_reaped(p->pid);
}

int proc_spawn(struct proc *p, char *const argv[], const struct proc_opts *o)
{
	int out_pipe[2] = {-1, -1};
	int err_pipe[2];
	int child_errno = 0;
	pid_t parent = getpid();
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->out_fd = -1;
	if (o->capture_stdout && pipe2(out_pipe, O_CLOEXEC) < 0)
		return -errno;
	/* a CLOEXEC pipe tells the parent whether exec worked */
	if (pipe2(err_pipe, O_CLOEXEC) < 0)
		goto fail_errno;
	p->pid = fork();
	if (p->pid < 0) {
		close(err_pipe[0]);
		close(err_pipe[1]);
		goto fail_errno;
	}
	if (p->pid == 0) {
		close(err_pipe[0]);
		child_setup(out_pipe, o, parent);
		execvp(argv[0], argv);
		child_errno = errno;
		n = write(err_pipe[1], &child_errno, sizeof(child_errno));
		(void)n;
		_exit(127);
	}
	proc_child_adopt(p->pid, !o->interactive);
	close(err_pipe[1]);
	n = read(err_pipe[0], &child_errno, sizeof(child_errno));
	close(err_pipe[0]);
	if (n == sizeof(child_errno)) {
		waitpid(p->pid, &p->status, 0);
		proc_reaped(p);
		if (out_pipe[0] >= 0) {
			close(out_pipe[0]);
			close(out_pipe[1]);
		}
		return -child_errno;
	}
	if (o->capture_stdout) {
		close(out_pipe[1]);
		p->out_fd = out_pipe[0];
	}
	return 0;
fail_errno:
	child_errno = errno;
	if (out_pipe[0] >= 0) {
		close(out_pipe[0]);
		close(out_pipe[1]);
	}
	return -child_errno;
}

int proc_poll(struct proc *p)
{
	if (p->pid <= 0 || p->exited)
		return 1;
	if (waitpid(p->pid, &p->status, WNOHANG) == p->pid)
		proc_reaped(p);
	return p->exited;
}

int proc_wait(struct proc *p, int timeout_ms)
{
	struct timespec ts = {0, 10 * 1000000};

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		if (proc_poll(p))
			return 1;
		nanosleep(&ts, NULL);
	}
	return proc_poll(p);
}

void proc_stop(struct proc *p, int grace_ms)
{
	if (p->pid > 0 && !proc_poll(p)) {
		kill(-p->pid, SIGTERM);
		kill(p->pid, SIGTERM);
		if (!proc_wait(p, grace_ms)) {
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &p->status, 0);
			proc_reaped(p);
		}
	}
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
	else if (WIFEXITED(p->status))
		snprintf(buf, sizeof(buf), "exited with status %d", WEXITSTATUS(p->status));
	else if (WIFSIGNALED(p->status))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(p->status));
	else
		snprintf(buf, sizeof(buf), "ended (status 0x%x)", p->status);
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
