/* The fake back end (fake_vm.h): a QMP server and a guest agent on the
 * VM's loop, answering from the test's tables. */
#include "fake_vm.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "loop.h"
#include "util.h"
#include "vm.h"

#define FAKE_MAX_PROCS 64
#define FAKE_PID0 1000

enum { FAKE_QMP, FAKE_QGA };

struct fake_conn {
	int fd;
	char *buf;
	size_t len;
};

struct fake_proc {
	const struct fake_cmd *c; /* NULL: unknown, exits 127 */
	int64_t end;		  /* loop clock; INT64_MAX: never */
};

struct fake_state {
	struct vm *vm;
	int lfd[2];
	struct fake_conn conn[2];
	int timer_fd; /* FAKE_POWEROFF's */
	int later_fd; /* console_later's */
	const char *later;
	struct fake_proc procs[FAKE_MAX_PROCS];
	unsigned nprocs;
	bool off; /* FAKE_POWEROFF: the machine ended by itself, cleanly */
};

static struct fake_vm *fake;

void fake_vm_use(struct fake_vm *f)
{
	fake = f;
}

void fake_vm_clear(struct fake_vm *f)
{
	for (unsigned i = 0; i < f->guest_n; i++)
		free(f->guest[i]);
	for (unsigned i = 0; i < f->monitor_n; i++)
		free(f->monitor[i]);
	f->guest_n = f->monitor_n = 0;
}

int fake_vm_asked(const struct fake_vm *f, const char *cmd)
{
	for (unsigned i = 0; i < f->guest_n; i++)
		if (!strcmp(f->guest[i], cmd))
			return (int)i;
	return -1;
}

static void record(char **list, unsigned *n, const char *s)
{
	if (*n < FAKE_MAX_REC)
		list[(*n)++] = xstrdup(s);
}

static char *base64(const char *s)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), o = 0;
	char *out = xcalloc(1, 4 * (n / 3 + 1) + 1);

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;

		v |= i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0;
		v |= i + 2 < n ? (unsigned char)s[i + 2] : 0;
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? tab[v & 63] : '=';
	}
	return out;
}

static void fake_send(struct fake_conn *c, const char *prefix, json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT);
	char *line = xasprintf("%s%s\n", prefix, s);

	if (c->fd >= 0 && send(c->fd, line, strlen(line), MSG_NOSIGNAL) < 0)
		fprintf(stderr, "fake_vm: send: %s\n", strerror(errno));
	free(line);
	free(s);
	json_decref(msg);
}

static void fake_close(struct fake_state *st)
{
	if (st->timer_fd >= 0) {
		loop_del(st->vm->loop, st->timer_fd);
		close(st->timer_fd);
		st->timer_fd = -1;
	}
	if (st->later_fd >= 0) {
		loop_del(st->vm->loop, st->later_fd);
		close(st->later_fd);
		st->later_fd = -1;
	}
	for (int i = 0; i < 2; i++) {
		if (st->conn[i].fd >= 0) {
			loop_del(st->vm->loop, st->conn[i].fd);
			close(st->conn[i].fd);
			st->conn[i].fd = -1;
		}
		free(st->conn[i].buf);
		st->conn[i].buf = NULL;
		st->conn[i].len = 0;
		if (st->lfd[i] >= 0) {
			loop_del(st->vm->loop, st->lfd[i]);
			close(st->lfd[i]);
			st->lfd[i] = -1;
		}
	}
}

static bool fake_match(const char *pattern, const char *cmd)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, cmd, n - 1);
	return !strcmp(pattern, cmd);
}

/* The row that answers cmd: the first whose command matches and that is
 * not a `once` row already used. */
static const struct fake_cmd *fake_find(const char *cmd)
{
	for (unsigned i = 0; fake->cmds && fake->cmds[i].cmd; i++) {
		const struct fake_cmd *c = &fake->cmds[i];

		if (!fake_match(c->cmd, cmd) || (c->once && i < FAKE_MAX_REC && fake->used[i]))
			continue;
		if (c->once && i < FAKE_MAX_REC)
			fake->used[i] = true;
		return c;
	}
	return NULL;
}

static int fake_on_timer(void *ctx, int fd)
{
	struct fake_state *st = ctx;

	(void)fd;
	st->off = true;
	fake_close(st);
	vm_gone(st->vm, "QEMU exited with status 0");
	return -EPIPE;
}

/* A timerfd that fires once, ms from now, on the VM's loop. */
static int fake_timer(struct fake_state *st, int ms, loop_read_fn fn)
{
	struct itimerspec its = { .it_value = { .tv_sec = ms / 1000,
						.tv_nsec = (ms % 1000) * 1000000L + 1 } };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd >= 0) {
		timerfd_settime(fd, 0, &its, NULL);
		loop_add(st->vm->loop, fd, fn, st);
	}
	return fd;
}

static bool fake_poweroff_later(struct fake_state *st, int ms)
{
	st->timer_fd = fake_timer(st, ms, fake_on_timer);
	return true;
}

static int fake_on_later(void *ctx, int fd)
{
	struct fake_state *st = ctx;

	loop_del(st->vm->loop, fd);
	close(fd);
	st->later_fd = -1;
	vm_console_feed(st->vm, st->later, strlen(st->later));
	return 0;
}

/* What happens the moment a command starts; false: no answer (QEMU died). */
static bool fake_start(struct fake_state *st, const struct fake_cmd *c)
{
	if (!c)
		return true;
	if (c->console)
		vm_console_feed(st->vm, c->console, strlen(c->console));
	if (c->console_later && st->later_fd < 0) {
		st->later = c->console_later;
		st->later_fd = fake_timer(st, c->console_later_ms, fake_on_later);
	}
	switch (c->act) {
	case FAKE_DIE:
		fake_close(st);
		vm_gone(st->vm, fake->die_reason ? fake->die_reason : "QEMU killed by signal 9");
		return false;
	case FAKE_PANIC:
		vm_console_feed(st->vm, "Kernel panic - not syncing: fake\n", 33);
		return false;
	case FAKE_POWEROFF:
		return fake_poweroff_later(st, c->delay_ms);
	default:
		return true;
	}
}

static json_t *fake_exec(struct fake_state *st, json_t *args)
{
	const char *cmd = json_string_value(json_array_get(json_object_get(args, "arg"), 1));
	const struct fake_cmd *c;
	struct fake_proc *p;

	if (!cmd || st->nprocs >= FAKE_MAX_PROCS)
		return json_pack("{s:{s:s,s:s}}", "error", "class", "GenericError", "desc",
				 "fake: bad guest-exec");
	record(fake->guest, &fake->guest_n, cmd);
	c = fake_find(cmd);
	if (!fake_start(st, c))
		return NULL;
	p = &st->procs[st->nprocs];
	p->c = c;
	p->end =
	    c && c->act == FAKE_HANG ? INT64_MAX : loop_now(st->vm->loop) + (c ? c->delay_ms : 0);
	return json_pack("{s:{s:I}}", "return", "pid", (json_int_t)(FAKE_PID0 + st->nprocs++));
}

static json_t *fake_exec_status(struct fake_state *st, json_t *args)
{
	json_int_t i = json_integer_value(json_object_get(args, "pid")) - FAKE_PID0;
	const struct fake_proc *p;
	char *out, *err;
	json_t *r;

	if (i < 0 || i >= (json_int_t)st->nprocs)
		return json_pack("{s:{s:s,s:s}}", "error", "class", "GenericError", "desc",
				 "Invalid parameter 'pid'");
	p = &st->procs[i];
	if (loop_now(st->vm->loop) < p->end)
		return json_pack("{s:{s:b}}", "return", "exited", 0);
	out = base64(p->c && p->c->out ? p->c->out : "");
	err = base64(p->c && p->c->err ? p->c->err : "");
	r = json_pack("{s:{s:b,s:i,s:s,s:s}}", "return", "exited", 1, "exitcode",
		      p->c ? p->c->exit_code : 127, "out-data", out, "err-data", err);
	free(out);
	free(err);
	return r;
}

static void fake_on_qga(struct fake_state *st, json_t *msg)
{
	const char *cmd = json_string_value(json_object_get(msg, "execute"));
	json_t *args = json_object_get(msg, "arguments"), *r;

	if (fake->agent_silent || !cmd)
		return;
	if (!strcmp(cmd, "guest-sync-delimited")) {
		fake_send(&st->conn[FAKE_QGA], "\xff",
			  json_pack("{s:O}", "return", json_object_get(args, "id")));
		return;
	}
	if (!strcmp(cmd, "guest-exec"))
		r = fake_exec(st, args);
	else if (!strcmp(cmd, "guest-exec-status"))
		r = fake_exec_status(st, args);
	else
		r = json_pack("{s:{s:s,s:s}}", "error", "class", "CommandNotFound", "desc", cmd);
	if (r)
		fake_send(&st->conn[FAKE_QGA], "", r);
}

static void fake_on_qmp(struct fake_state *st, json_t *msg)
{
	const char *cmd = json_string_value(json_object_get(msg, "execute"));
	json_t *r = NULL;

	if (!cmd)
		return;
	if (!strcmp(cmd, "qmp_capabilities")) {
		r = json_pack("{s:{}}", "return");
	} else {
		record(fake->monitor, &fake->monitor_n, cmd);
		for (unsigned i = 0; !r && fake->qmp && fake->qmp[i].cmd; i++)
			if (!strcmp(fake->qmp[i].cmd, cmd))
				r = json_loads(fake->qmp[i].reply, 0, NULL);
	}
	if (!r)
		r = json_pack("{s:{s:s,s:s}}", "error", "class", "CommandNotFound", "desc",
			      "The command is not in the fake's table");
	json_object_set(r, "id", json_object_get(msg, "id"));
	fake_send(&st->conn[FAKE_QMP], "", r);
}

/* One line from a client (0xFF bytes, the agent's resync marker, dropped). */
static void fake_line(struct fake_state *st, int which, char *line)
{
	json_t *msg;
	char *o = line;

	for (char *i = line; *i; i++)
		if ((unsigned char)*i != 0xff)
			*o++ = *i;
	*o = '\0';
	msg = json_loads(line, 0, NULL);
	if (msg && which == FAKE_QGA)
		fake_on_qga(st, msg);
	else if (msg)
		fake_on_qmp(st, msg);
	json_decref(msg);
}

static int fake_on_conn(struct fake_state *st, int which)
{
	struct fake_conn *c = &st->conn[which];
	char buf[4096], *nl;
	ssize_t n = read(c->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -EPIPE;
	c->buf = xrealloc(c->buf, c->len + (size_t)n + 1);
	memcpy(c->buf + c->len, buf, (size_t)n);
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	while (c->fd >= 0 && (nl = memchr(c->buf, '\n', c->len))) {
		size_t used = (size_t)(nl - c->buf) + 1;

		*nl = '\0';
		fake_line(st, which, c->buf);
		if (!c->buf) /* fake_close() ran: the machine is gone */
			return -EPIPE;
		memmove(c->buf, c->buf + used, c->len - used + 1);
		c->len -= used;
	}
	return 0;
}

static int fake_on_qmp_fd(void *ctx, int fd)
{
	(void)fd;
	return fake_on_conn(ctx, FAKE_QMP);
}

static int fake_on_qga_fd(void *ctx, int fd)
{
	(void)fd;
	return fake_on_conn(ctx, FAKE_QGA);
}

static int fake_accept(struct fake_state *st, int which)
{
	int fd = accept4(st->lfd[which], NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return 0;
	if (st->conn[which].fd >= 0) { /* a second client: QEMU takes one */
		close(fd);
		return 0;
	}
	st->conn[which].fd = fd;
	loop_add(st->vm->loop, fd, which == FAKE_QMP ? fake_on_qmp_fd : fake_on_qga_fd, st);
	if (which == FAKE_QMP)
		fake_send(&st->conn[FAKE_QMP], "",
			  json_pack("{s:{s:{s:{s:i,s:i,s:i}},s:[]}}", "QMP", "version", "qemu",
				    "major", 8, "minor", 0, "micro", 0, "capabilities"));
	return 0;
}

static int fake_on_qmp_listen(void *ctx, int fd)
{
	(void)fd;
	return fake_accept(ctx, FAKE_QMP);
}

static int fake_on_qga_listen(void *ctx, int fd)
{
	(void)fd;
	return fake_accept(ctx, FAKE_QGA);
}

static int fake_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4)) {
		int e = -errno;

		if (fd >= 0)
			close(fd);
		return e;
	}
	return fd;
}

static int fake_spawn(struct vm *vm, const struct hw_launch *l, int64_t deadline)
{
	struct fake_state *st = xcalloc(1, sizeof(*st));

	(void)deadline;
	st->vm = vm;
	st->lfd[0] = st->lfd[1] = st->conn[0].fd = st->conn[1].fd = st->timer_fd = st->later_fd =
	    -1;
	vm->be = st;
	fake->spawns++;
	if (fake->spawn_ret) {
		snprintf(vm->err, sizeof(vm->err), "cannot start qemu-fake: %s",
			 strerror(-fake->spawn_ret));
		return fake->spawn_ret;
	}
	st->lfd[FAKE_QMP] = fake_listen(l->qmp_path);
	st->lfd[FAKE_QGA] = fake_listen(l->qga_path);
	if (st->lfd[FAKE_QMP] < 0 || st->lfd[FAKE_QGA] < 0) {
		snprintf(vm->err, sizeof(vm->err), "fake: cannot listen in %s", l->disk_dir);
		return -EIO;
	}
	loop_add(vm->loop, st->lfd[FAKE_QMP], fake_on_qmp_listen, st);
	loop_add(vm->loop, st->lfd[FAKE_QGA], fake_on_qga_listen, st);
	if (fake->boot_console)
		vm_console_feed(vm, fake->boot_console, strlen(fake->boot_console));
	return 0;
}

static void fake_drain(struct vm *vm)
{
	(void)vm;
}

static void fake_stop(struct vm *vm)
{
	struct fake_state *st = vm->be;

	if (!st)
		return;
	fake->stops++;
	fake_close(st);
	free(st);
	vm->be = NULL;
}

static bool fake_exited_ok(const struct vm *vm, const char **how)
{
	const struct fake_state *st = vm->be;

	if (st && st->off)
		return true;
	*how = "killed by signal 9";
	return false;
}

const struct vm_backend_ops fake_vm_ops = {
	.name = "fake",
	.spawn = fake_spawn,
	.drain = fake_drain,
	.stop = fake_stop,
	.qmp = vm_qmp_socket,
	.exited_ok = fake_exited_ok,
};
