/* The one place ktb forks and execs: see spawn.h for the policy. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "leakcheck.h"
#include "util.h"

#define SPAWN_TICK_MS 10
/* how often pipe_command looks at cp->cancel while nothing happens */
#define SPAWN_CANCEL_TICK_MS 200

static void (*group_started)(pid_t);
static void (*group_reaped)(pid_t);

void spawn_set_group_observer(void (*started)(pid_t pgid), void (*reaped)(pid_t pgid))
{
	group_started = started;
	group_reaped = reaped;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* --- the child side ---------------------------------------------------------- */

/* The policy, between fork and exec. PDEATHSIG fires when the thread that
 * forked us ends: ktb forks from its main thread only. The parent may have
 * died before the prctl, in which case nothing would ever fire: go at once. */
static void child_policy(const struct child_process *cp, pid_t parent)
{
	if (!cp->no_death_signal) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
	}
	/* a stop of our own group reaches every helper the child starts */
	if (cp->own_group)
		setpgid(0, 0);
	/* the flag survives exec: QEMU's guest RAM then faults in 4 KiB pages */
	if (cp->no_thp)
		prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

/* Put fd on target; fd == target keeps it but must lose close-on-exec. */
static void child_dup(int fd, int target)
{
	if (fd < 0)
		return;
	if (fd == target)
		fcntl(fd, F_SETFD, 0);
	else
		dup2(fd, target);
}

static void child_env(const char *const *env)
{
	/* after fork, single-threaded: the environment is ours to change */
	for (size_t i = 0; env && env[i]; i++) {
		if (strchr(env[i], '='))
			putenv((char *)env[i]);
		else
			unsetenv(env[i]);
	}
}

/* Tell the parent why we could not start, and go. */
static _Noreturn void child_fail(int errfd)
{
	int e = errno;
	ssize_t n = write(errfd, &e, sizeof(e));

	(void)n;
	_exit(127);
}

static void child_streams(const struct child_process *cp, const int fds[3])
{
	child_dup(fds[0], STDIN_FILENO);
	child_dup(fds[1], STDOUT_FILENO);
	if (cp->err.how == SPAWN_STDOUT)
		dup2(STDOUT_FILENO, STDERR_FILENO);
	else
		child_dup(fds[2], STDERR_FILENO);
}

static _Noreturn void child_exec(const struct child_process *cp, const int fds[3], pid_t parent,
				 int errfd)
{
	child_policy(cp, parent);
	child_streams(cp, fds);
	if (cp->dir && chdir(cp->dir) < 0)
		child_fail(errfd);
	child_env(cp->env);
	/* a program starts with default dispositions: ktb ignores SIGPIPE */
	signal(SIGINT, cp->interactive ? SIG_IGN : SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(cp->argv[0], cp->argv);
	child_fail(errfd);
}

/* --- the parent side --------------------------------------------------------- */

/* The child's end of one stream into *child, the parent's (a pipe) into
 * *mine. 0 or -errno. */
static int stream_open(const struct spawn_stream *s, int target, int *child, int *mine)
{
	int p[2];

	*child = *mine = -1;
	switch (s->how) {
	case SPAWN_NULL:
		*child = open("/dev/null", (target ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
		break;
	case SPAWN_FILE:
		*child = target ? open(s->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
				: open(s->path, O_RDONLY | O_CLOEXEC);
		break;
	case SPAWN_PIPE:
		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		*child = target ? p[1] : p[0];
		*mine = target ? p[0] : p[1];
		return 0;
	case SPAWN_FD:
		return s->fd >= 0 ? 0 : -EBADF;
	default: /* inherit; SPAWN_STDOUT is done in the child */
		return 0;
	}
	return *child < 0 ? -errno : 0;
}

static void reaped(struct child_process *cp, int status)
{
	cp->exited = true;
	cp->status = status;
	if (cp->own_group && group_reaped)
		group_reaped(cp->pid);
}

/* Right after the fork: the group made here too, and told. */
static void adopt(const struct child_process *cp)
{
	if (!cp->own_group)
		return;
	setpgid(cp->pid, cp->pid);
	if (group_started)
		group_started(cp->pid);
}

static int open_streams(struct child_process *cp, int fds[3])
{
	const struct spawn_stream *s[3] = { &cp->in, &cp->out, &cp->err };
	int *mine[3] = { &cp->in_fd, &cp->out_fd, &cp->err_fd };
	int ret = 0;

	for (int i = 0; i < 3; i++)
		fds[i] = *mine[i] = -1;
	for (int i = 0; i < 3 && !ret; i++)
		ret = stream_open(s[i], i, &fds[i], mine[i]);
	return ret;
}

/* Close the child's ends; SPAWN_FD ones are the caller's. */
static void close_child_ends(const struct child_process *cp, int fds[3])
{
	const struct spawn_stream *s[3] = { &cp->in, &cp->out, &cp->err };

	for (int i = 0; i < 3; i++) {
		if (s[i]->how == SPAWN_FD)
			fds[i] = -1;
		close_fd(&fds[i]);
	}
}

static void close_parent_ends(struct child_process *cp)
{
	close_fd(&cp->in_fd);
	close_fd(&cp->out_fd);
	close_fd(&cp->err_fd);
}

static void reap_blocking(struct child_process *cp)
{
	int st = 0;

	while (waitpid(cp->pid, &st, 0) < 0 && errno == EINTR)
		;
	reaped(cp, st);
}

/* What the child said through the close-on-exec pipe: 0 when exec worked. */
static int exec_result(struct child_process *cp, int errfd)
{
	int e = 0;
	ssize_t n;

	do
		n = read(errfd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(e))
		return 0;
	reap_blocking(cp);
	close_parent_ends(cp);
	return -(e ? e : ENOEXEC);
}

static void fds_of_streams(struct child_process *cp, int fds[3])
{
	if (cp->in.how == SPAWN_FD)
		fds[0] = cp->in.fd;
	if (cp->out.how == SPAWN_FD)
		fds[1] = cp->out.fd;
	if (cp->err.how == SPAWN_FD)
		fds[2] = cp->err.fd;
}

static void reset_result(struct child_process *cp)
{
	cp->pid = -1;
	cp->in_fd = cp->out_fd = cp->err_fd = -1;
	cp->exited = false;
	cp->status = 0;
}

int start_command(struct child_process *cp)
{
	int fds[3], ep[2] = { -1, -1 }, ret;
	pid_t parent = getpid();

	reset_result(cp);
	if (!cp->argv || !cp->argv[0])
		return -EINVAL;
	ret = open_streams(cp, fds);
	fds_of_streams(cp, fds);
	/* a close-on-exec pipe tells the parent whether exec worked */
	if (!ret && pipe2(ep, O_CLOEXEC) < 0)
		ret = -errno;
	if (!ret) {
		cp->pid = fork();
		if (cp->pid < 0)
			ret = -errno;
	}
	if (!ret && cp->pid == 0) {
		close(ep[0]);
		child_exec(cp, fds, parent, ep[1]);
	}
	close_child_ends(cp, fds);
	close_fd(&ep[1]);
	if (!ret) {
		adopt(cp);
		ret = exec_result(cp, ep[0]);
	} else {
		close_parent_ends(cp);
	}
	close_fd(&ep[0]);
	return ret;
}

int start_async(struct child_process *cp, int (*fn)(void *arg), void *arg)
{
	int fds[3], ret;
	pid_t parent = getpid();

	reset_result(cp);
	if (cp->argv)
		return -EINVAL;
	ret = open_streams(cp, fds);
	fds_of_streams(cp, fds);
	/* our stdio buffers would otherwise be written by the child too */
	fflush(NULL);
	if (!ret) {
		cp->pid = fork();
		if (cp->pid < 0)
			ret = -errno;
	}
	if (!ret && cp->pid == 0) {
		child_policy(cp, parent);
		child_streams(cp, fds);
		/* no exec closes them for us: all but what is now 0, 1 or 2 */
		for (int i = 0; i < 3; i++)
			if (fds[i] > STDERR_FILENO)
				close(fds[i]);
		close_parent_ends(cp);
		/* _exit skips LeakSanitizer's exit-time check: run it first */
		ret = fn(arg);
		leak_check_now();
		_exit(ret);
	}
	close_child_ends(cp, fds);
	if (ret)
		close_parent_ends(cp);
	else
		adopt(cp);
	return ret;
}

/* --- waiting and stopping ---------------------------------------------------- */

int poll_command(struct child_process *cp)
{
	int st;
	pid_t w;

	if (cp->pid <= 0 || cp->exited)
		return 1;
	w = waitpid(cp->pid, &st, WNOHANG);
	if (w == cp->pid)
		reaped(cp, st);
	else if (w < 0 && errno == ECHILD)
		reaped(cp, 0); /* reaped behind our back: nothing left to wait for */
	return cp->exited;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

int wait_command(struct child_process *cp, int timeout_ms)
{
	int64_t until = now_ms() + timeout_ms;

	while (!poll_command(cp)) {
		if (now_ms() >= until)
			return 0;
		sleep_ms(SPAWN_TICK_MS);
	}
	return 1;
}

void signal_command(const struct child_process *cp, int sig)
{
	if (cp->pid <= 0 || cp->exited)
		return;
	if (cp->own_group)
		kill(-cp->pid, sig);
	kill(cp->pid, sig);
}

/* The deadline has passed: the whole group goes, and is reaped. */
static void kill_command(struct child_process *cp)
{
	signal_command(cp, SIGKILL);
	if (cp->pid > 0 && !cp->exited)
		reap_blocking(cp);
}

void stop_command(struct child_process *cp, int grace_ms)
{
	if (!poll_command(cp)) {
		signal_command(cp, SIGTERM);
		if (!wait_command(cp, grace_ms))
			kill_command(cp);
	}
	close_parent_ends(cp);
}

int command_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

int finish_command(struct child_process *cp, int timeout_ms)
{
	int ret = 0;

	close_fd(&cp->in_fd);
	if (cp->pid <= 0)
		ret = -ECHILD;
	else if (timeout_ms < 0 && !cp->exited)
		reap_blocking(cp);
	else if (!wait_command(cp, timeout_ms)) {
		kill_command(cp);
		ret = -ETIMEDOUT;
	}
	close_parent_ends(cp);
	return ret ? ret : command_exit_code(cp->status);
}

int run_command(struct child_process *cp, int timeout_ms)
{
	int ret = start_command(cp);

	return ret ? ret : finish_command(cp, timeout_ms);
}

void spawn_describe(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "ended (status 0x%x)", status);
}

/* --- pipe_command ------------------------------------------------------------ */

struct pump {
	const char *in;
	size_t in_len, in_off;
	struct spawn_buf *buf[2]; /* stdout, stderr */
	bool epipe;
};

static int buf_read(int *fd, struct spawn_buf *b)
{
	char chunk[8192];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close_fd(fd);
		return 0;
	}
	b->buf = xrealloc(b->buf, b->len + (size_t)n + 1);
	memcpy(b->buf + b->len, chunk, (size_t)n);
	b->len += (size_t)n;
	b->buf[b->len] = '\0';
	return 0;
}

static void pump_write(struct child_process *cp, struct pump *pm)
{
	ssize_t n = write(cp->in_fd, pm->in + pm->in_off, pm->in_len - pm->in_off);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		/* the child closed its stdin: what it did not read is its business */
		pm->epipe = pm->epipe || errno == EPIPE;
		close_fd(&cp->in_fd);
		return;
	}
	pm->in_off += (size_t)n;
	if (pm->in_off == pm->in_len)
		close_fd(&cp->in_fd);
}

/* One poll over the pipes still open. 0, or -errno. */
static int pump_once(struct child_process *cp, struct pump *pm, int wait_ms)
{
	struct pollfd pf[3] = { { cp->in_fd, POLLOUT, 0 },
				{ cp->out_fd, POLLIN, 0 },
				{ cp->err_fd, POLLIN, 0 } };
	int *rfd[2] = { &cp->out_fd, &cp->err_fd };

	if (poll(pf, 3, wait_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	if (pf[0].revents & (POLLOUT | POLLERR | POLLHUP))
		pump_write(cp, pm);
	for (int i = 0; i < 2; i++)
		if (pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
			buf_read(rfd[i], pm->buf[i]);
	return 0;
}

static bool pipes_open(const struct child_process *cp)
{
	return cp->in_fd >= 0 || cp->out_fd >= 0 || cp->err_fd >= 0;
}

/* Until the pipes are closed and the child has exited: 0, -ETIMEDOUT past
 * until (< 0: none), -EINTR when cp->cancel says so, or -errno. */
static int pump(struct child_process *cp, struct pump *pm, int64_t until)
{
	int ret = 0;

	if (cp->in_fd >= 0)
		fcntl(cp->in_fd, F_SETFL, fcntl(cp->in_fd, F_GETFL) | O_NONBLOCK);
	while (!ret && (pipes_open(cp) || !poll_command(cp))) {
		/* with every pipe closed, poll() only sleeps till the next look */
		int tick = pipes_open(cp) ? SPAWN_CANCEL_TICK_MS : SPAWN_TICK_MS;
		int64_t left = until < 0 ? tick : until - now_ms();

		if (left <= 0)
			return -ETIMEDOUT;
		if (cp->cancel && cp->cancel())
			return -EINTR;
		ret = pump_once(cp, pm, (int)(left < tick ? left : tick));
	}
	return ret;
}

/* SIGPIPE blocked while we write to the child (ktb ignores it, a unit test
 * may not), and one that our writes raised taken back. */
static void sigpipe_block(sigset_t *old, bool *pending)
{
	sigset_t s, p;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	sigprocmask(SIG_BLOCK, &s, old);
	sigpending(&p);
	*pending = sigismember(&p, SIGPIPE);
}

static void sigpipe_restore(const sigset_t *old, bool pending, bool raised)
{
	sigset_t s;
	struct timespec zero = { 0, 0 };

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	if (raised && !pending)
		sigtimedwait(&s, NULL, &zero);
	sigprocmask(SIG_SETMASK, old, NULL);
}

int pipe_command(struct child_process *cp, const char *in, size_t in_len, struct spawn_buf *out,
		 struct spawn_buf *err, int timeout_ms)
{
	struct spawn_buf none[2] = { { 0 } };
	struct pump pm = { in, in_len, 0, { out ? out : &none[0], err ? err : &none[1] }, false };
	int64_t until = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	sigset_t old;
	bool pending;
	int ret;

	if (in)
		cp->in.how = SPAWN_PIPE;
	if (out)
		cp->out.how = SPAWN_PIPE;
	if (err)
		cp->err.how = SPAWN_PIPE;
	ret = start_command(cp);
	if (ret)
		return ret;
	if (in && !in_len)
		close_fd(&cp->in_fd);
	sigpipe_block(&old, &pending);
	ret = pump(cp, &pm, until);
	sigpipe_restore(&old, pending, pm.epipe);
	for (int i = 0; i < 2; i++)
		if (pm.buf[i]->buf == NULL)
			pm.buf[i]->buf = xcalloc(1, 1);
	free(none[0].buf);
	free(none[1].buf);
	if (ret) {
		kill_command(cp);
		close_parent_ends(cp);
		return ret;
	}
	return finish_command(cp, -1); /* it has exited: only the status is left */
}

int spawn_tool(char *const argv[], char *why, size_t len, void *ctx)
{
	struct child_process cp = { .argv = argv, .out.how = SPAWN_NULL, .own_group = true };
	struct spawn_buf err = { 0 };
	int ret = pipe_command(&cp, NULL, 0, NULL, &err, -1);

	(void)ctx;
	if (ret < 0)
		snprintf(why, len, "cannot run %s: %s", argv[0], strerror(-ret));
	else
		snprintf(why, len, "%.*s", (int)strcspn(err.buf, "\n"), err.buf);
	free(err.buf);
	return ret > 0 ? -EIO : ret;
}
