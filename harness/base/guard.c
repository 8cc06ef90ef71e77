#include "guard.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "leakcheck.h"
#include "spawn.h"
#include "util.h"

/* how long the guardian waits for killed groups to be gone before it removes
 * the folder anyway, and how long ktb's end waits for the guardian */
#define GUARD_KILL_WAIT_MS 5000
#define GUARD_FINISH_WAIT_MS 15000

static int guard_wfd = -1;
static struct child_process guard_child = { .pid = -1 };

int guard_set_apply(struct guard_set *s, const struct guard_msg *m)
{
	if (m->pgid <= 1)
		return -EINVAL;
	if (m->op == GUARD_UNTRACK) {
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i] == m->pgid) {
				s->v[i] = s->v[--s->n];
				return 0;
			}
		return 0;
	}
	if (m->op != GUARD_TRACK)
		return -EINVAL;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == m->pgid)
			return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = m->pgid;
	return 0;
}

void guard_set_free(struct guard_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int guard_parse_stat(const char *line, char *state, pid_t *pgrp)
{
	/* "PID (NAME) S PPID PGRP ...": NAME may hold anything, so the last ')' */
	const char *p = strrchr(line, ')');
	int pg;

	if (!p || sscanf(p + 1, " %c %*d %d", state, &pg) != 2 || !isalpha((unsigned char)*state))
		return -EINVAL;
	*pgrp = pg;
	return 0;
}

static bool member(const struct guard_set *s, pid_t pgrp)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == pgrp)
			return true;
	return false;
}

bool guard_groups_alive(const struct guard_set *s, const char *proc)
{
	DIR *d = opendir(proc);
	struct dirent *e;
	bool alive = false;

	if (!d)
		return false;
	while (!alive && (e = readdir(d))) {
		char path[300], line[512], state;
		pid_t pgrp;
		ssize_t n;
		int fd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", proc, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		line[n > 0 ? n : 0] = '\0';
		if (!guard_parse_stat(line, &state, &pgrp) && member(s, pgrp))
			alive = state != 'Z' && state != 'X';
	}
	closedir(d);
	return alive;
}

/* The guardian's own set-up: no terminal, no signal but SIGKILL stops it, its
 * own session (a kill of ktb's process group or session misses it), and no
 * fd but the pipe's read end -- holding a write end it would wait forever. */
static int guardian_detach(int rfd)
{
	static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
				    SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	int null;

	rfd = fcntl(rfd, F_DUPFD, 3); /* off 0-2 before they become /dev/null */
	null = open("/dev/null", O_RDWR);
	setsid();
	prctl(PR_SET_NAME, "ktb-guard");
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_IGN);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		dup2(null, fd);
	if (rfd < 0 || (rfd != 3 && dup2(rfd, 3) < 0))
		return -1;
	closefrom(4);
	return 3;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

struct guardian_args {
	int rfd, wfd;
	const char *dir;
};

static _Noreturn void guardian(int rfd, const char *dir)
{
	struct guard_set set = { 0 };
	struct guard_msg m;
	size_t got = 0;
	int64_t until;

	rfd = guardian_detach(rfd);
	while (rfd >= 0) {
		ssize_t n = read(rfd, (char *)&m + got, sizeof(m) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* every writer is gone: ktb has ended */
		got += (size_t)n;
		if (got == sizeof(m)) {
			guard_set_apply(&set, &m);
			got = 0;
		}
	}
	for (size_t i = 0; i < set.n; i++)
		kill(-set.v[i], SIGKILL);
	/* a process killed in the middle of creating a file may still finish it */
	until = now_ms() + GUARD_KILL_WAIT_MS;
	while (guard_groups_alive(&set, "/proc") && now_ms() < until)
		sleep_ms(20);
	rm_rf(dir);
	guard_set_free(&set);
	leak_check_now();
	_exit(0);
}

static int guardian_main(void *arg)
{
	const struct guardian_args *a = arg;

	close(a->wfd); /* holding a write end it would wait for ever */
	guardian(a->rfd, a->dir);
}

int guard_start(const char *dir)
{
	struct guardian_args a = { -1, -1, dir };
	int p[2], ret;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* a guardian gone early must not take ktb with it */
	signal(SIGPIPE, SIG_IGN);
	a.rfd = p[0];
	a.wfd = p[1];
	/* No death signal: the guardian's whole job is to outlive ktb, however
	 * ktb ends, and clean up after it. Nor a group of its own to tell: it
	 * makes a session of its own (guardian_detach). */
	guard_child = (struct child_process){ .no_death_signal = true };
	ret = start_async(&guard_child, guardian_main, &a);
	close(p[0]);
	if (ret) {
		close(p[1]);
		return ret;
	}
	guard_wfd = p[1];
	spawn_set_group_observer(guard_track, guard_untrack);
	return 0;
}

static void guard_send(int32_t op, pid_t pgid)
{
	struct guard_msg m = { op, (int32_t)pgid };
	ssize_t n;

	if (guard_wfd < 0 || pgid <= 1)
		return;
	do
		n = write(guard_wfd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
}

void guard_track(pid_t pgid)
{
	guard_send(GUARD_TRACK, pgid);
}

void guard_untrack(pid_t pgid)
{
	guard_send(GUARD_UNTRACK, pgid);
}

void guard_finish(void)
{
	int64_t until = now_ms() + GUARD_FINISH_WAIT_MS;

	if (guard_wfd < 0)
		return;
	close(guard_wfd);
	guard_wfd = -1;
	/* bounded: should anything still hold a write end, the guardian does its
	 * work when that goes, and ktb need not wait for it */
	while (!poll_command(&guard_child) && now_ms() < until)
		sleep_ms(10);
	guard_child.pid = -1;
}
