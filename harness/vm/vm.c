#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "protocol.h"
#include "console.h"
#include "loop.h"
#include "qga.h"
#include "qmp.h"
#include "util.h"
#include "backend_libvirt.h"

#define CONSOLE_TAIL_LINES 200

static char *qemu_stderr_tail(const struct vm *vm)
{
	size_t len = 0;
	char *s = vm->qemu_log_path ? read_file(vm->qemu_log_path, &len) : NULL;
	char *start;

	if (!s)
		return xstrdup("");
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		s[--len] = '\0';
	start = len > 400 ? s + len - 400 : s;
	start = xstrdup(start);
	free(s);
	return start;
}

void vm_gone(struct vm *vm, const char *reason)
{
	console_flush(vm->console);
	vm->qemu_gone = true;
	if (!console_fatal(vm->console))
		loop_abort(vm->loop, reason);
}

void vm_console_feed(struct vm *vm, const char *buf, size_t n)
{
	if (console_feed(vm->console, buf, n) == 1) {
		char reason[600];

		snprintf(reason, sizeof(reason), "kernel %s on the console: %s",
			 console_fatal_kind(vm->console), console_fatal(vm->console));
		loop_abort(vm->loop, reason);
	}
	/* init says so when the guest cannot come up: no point waiting */
	if (!vm->ready_ms && !vm->init_failed &&
	    console_seen(vm->console, KTB_INIT_FAIL_MARKER)) {
		vm->init_failed = true;
		loop_abort(vm->loop, "the guest's init failed (see the console)");
	}
}

/* QEMU's stdout is the guest console: feed it, and treat EOF as QEMU gone. */
static int vm_on_console(void *ctx, int fd)
{
	struct vm *vm = ctx;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		char *tail;
		char reason[700];

		console_flush(vm->console);
		proc_wait(&vm->proc, 2000);
		tail = qemu_stderr_tail(vm);
		snprintf(reason, sizeof(reason), "QEMU %s%s%s", proc_describe(&vm->proc),
			 *tail ? ": " : "", tail);
		free(tail);
		vm_gone(vm, reason);
		return -EPIPE;
	}
	vm_console_feed(vm, buf, (size_t)n);
	return 0;
}

static int vm_on_signal(void *ctx, int fd)
{
	struct vm *vm = ctx;
	char c;

	while (read(fd, &c, 1) == 1)
		;
	loop_abort(vm->loop, "interrupted by a signal");
	return 0;
}

/* QEMU creates its sockets a moment after it starts: retry until then. */
static int vm_connect(struct vm *vm, const char *path, int64_t deadline)
{
	for (;;) {
		int fd = unix_connect(path);

		if (fd >= 0)
			return fd;
		if (loop_now(vm->loop) >= deadline)
			return -ETIMEDOUT;
		int r = loop_run_until(vm->loop, NULL, NULL, loop_now(vm->loop) + 20);

		if (r == -ECANCELED)
			return r;
	}
}

static FILE *open_artifact(const struct vm *vm, const char *name)
{
	char *path;
	FILE *f;

	if (!vm->cfg.artifacts)
		return NULL;
	path = xasprintf("%s/%s", vm->cfg.artifacts, name);
	f = fopen(path, vm->cfg.restart ? "a" : "w");
	free(path);
	if (f)
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

struct hw_launch vm_launch(const struct vm *vm)
{
	return (struct hw_launch){
		.kernel = vm->cfg.kernel,
		.initrd = vm->cfg.initrd,
		.append = vm->cfg.append,
		.qmp_path = vm->qmp_path,
		.qga_path = vm->qga_path,
		.disk_dir = vm->cfg.workdir,
		.kvm = vm->cfg.kvm,
		.run = spawn_tool,
	};
}

static int vm_spawn(struct vm *vm, int64_t deadline)
{
	struct hw_launch l = vm_launch(vm);
	/* a machine with a balloon is watched through QEMU's RSS (measure:
	 * qemu_rss): without huge pages it moves with what the guest touches,
	 * not with the 2 MiB pages the host happened to back it with */
	struct proc_opts po = {.capture_stdout = true,
			       .stderr_path = vm->qemu_log_path,
			       .no_thp = vm->cfg.machine->balloon != NULL};
	struct hw_error he = {{0}, {0}};
	struct argv a;
	int ret;

	if (vm->cfg.libvirt_uri)
		return vm_libvirt_spawn(vm, &l);
	argv_init(&a);
	ret = vm->cfg.restart ? 0 : machine_create_disks(vm->cfg.machine, &l, &he);
	if (!ret)
		ret = machine_to_argv(vm->cfg.machine, &l, &a, &he);
	if (ret) {
		snprintf(vm->err, sizeof(vm->err), "%s: %s", he.field, he.msg);
		goto out;
	}
	/* QEMU connects to the hybrid disks' back ends as it starts */
	ret = hybrid_start(&vm->hybrid, vm->cfg.machine, &l,
			   vm->cfg.artifacts ? vm->cfg.artifacts : vm->cfg.workdir, deadline,
			   vm->err, sizeof(vm->err));
	if (ret)
		goto out;
	ret = proc_spawn(&vm->proc, a.v, &po);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "cannot start %s: %s", a.v[0], strerror(-ret));
out:
	argv_free(&a);
	return ret;
}

int vm_start(struct vm *vm, const struct vm_config *c, int64_t deadline)
{
	int fd, ret;

	memset(vm, 0, sizeof(*vm));
	vm->cfg = *c;
	vm->proc.pid = -1;
	vm->proc.out_fd = -1;
	vm->loop = loop_new();
	vm->console_log = open_artifact(vm, "console.log");
	vm->qmp_log = open_artifact(vm, "qmp.jsonl");
	vm->qga_log = open_artifact(vm, "qga.jsonl");
	vm->console = console_new(vm->console_log, CONSOLE_TAIL_LINES);
	vm->qmp_path = xasprintf("%s/qmp.sock", c->workdir);
	vm->qga_path = xasprintf("%s/qga.sock", c->workdir);
	vm->qemu_log_path = c->artifacts ? xasprintf("%s/qemu.log", c->artifacts)
					 : xasprintf("%s/qemu.log", c->workdir);
	if (c->sig_fd >= 0)
		loop_add(vm->loop, c->sig_fd, vm_on_signal, vm);
	vm->start_ms = loop_now(vm->loop);
	ret = vm_spawn(vm, deadline);
	if (ret)
		return ret;
	if (vm->proc.out_fd >= 0)
		loop_add(vm->loop, vm->proc.out_fd, vm_on_console, vm);
	fd = vm_connect(vm, vm->qmp_path, deadline);
	if (fd < 0) {
		snprintf(vm->err, sizeof(vm->err), "no QMP socket: %s",
			 loop_abort_reason(vm->loop) ?: strerror(-fd));
		return fd;
	}
	vm->qmp = qmp_new(vm->loop, fd, vm->qmp_log);
	ret = qmp_handshake(vm->qmp, deadline);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "QMP handshake failed: %s",
			 loop_abort_reason(vm->loop) ?: strerror(-ret));
	return ret;
}

int vm_wait_agent(struct vm *vm, int64_t deadline)
{
	int fd, ret;

	fd = vm_connect(vm, vm->qga_path, deadline);
	if (fd < 0) {
		snprintf(vm->err, sizeof(vm->err), "no guest agent socket: %s",
			 loop_abort_reason(vm->loop) ?: strerror(-fd));
		return fd;
	}
	vm->qga = qga_new(vm->loop, fd, vm->qga_log);
	ret = qga_sync(vm->qga, 500, deadline);
	if (ret == -ETIMEDOUT)
		snprintf(vm->err, sizeof(vm->err), "the guest agent did not answer within the deadline");
	else if (ret)
		snprintf(vm->err, sizeof(vm->err), "%s",
			 loop_abort_reason(vm->loop) ?: strerror(-ret));
	else
		vm->ready_ms = loop_now(vm->loop);
	return ret;
}

/* Drain what the console still has (a panic's last lines) without blocking. */
void vm_drain_console(struct vm *vm)
{
	char buf[4096];

	if (vm->lv)
		vm_libvirt_drain(vm);
	if (vm->proc.out_fd < 0 || vm->qemu_gone)
		return;
	int fl = fcntl(vm->proc.out_fd, F_GETFL);

	fcntl(vm->proc.out_fd, F_SETFL, fl | O_NONBLOCK);
	for (;;) {
		ssize_t n = read(vm->proc.out_fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		console_feed(vm->console, buf, (size_t)n);
	}
	console_flush(vm->console);
}

static void vm_quit(struct vm *vm)
{
	if (vm->proc.pid <= 0 || proc_poll(&vm->proc))
		return;
	if (vm->qmp && !vm->qemu_gone) {
		loop_clear_abort(vm->loop);
		qmp_execute(vm->qmp, "quit", NULL, NULL, NULL, loop_now(vm->loop) + 1000);
		if (proc_wait(&vm->proc, 2000))
			return;
	}
	proc_stop(&vm->proc, 2000);
}

void vm_stop(struct vm *vm)
{
	vm_drain_console(vm);
	vm_quit(vm);
	proc_stop(&vm->proc, 1000);
	vm_libvirt_stop(vm);
	hybrid_stop(&vm->hybrid);
	if (vm->qga)
		qga_free(vm->qga);
	if (vm->qmp)
		qmp_free(vm->qmp);
	if (vm->console)
		console_free(vm->console);
	if (vm->loop)
		loop_free(vm->loop);
	if (vm->console_log)
		fclose(vm->console_log);
	if (vm->qmp_log)
		fclose(vm->qmp_log);
	if (vm->qga_log)
		fclose(vm->qga_log);
	if (vm->qmp_path)
		unlink(vm->qmp_path);
	if (vm->qga_path)
		unlink(vm->qga_path);
	free(vm->qmp_path);
	free(vm->qga_path);
	free(vm->qemu_log_path);
	vm->qga = NULL;
	vm->qmp = NULL;
	vm->console = NULL;
	vm->loop = NULL;
	vm->console_log = vm->qmp_log = vm->qga_log = NULL;
	vm->qmp_path = vm->qga_path = vm->qemu_log_path = NULL;
}

int vm_pm_wakeup(struct vm *vm, char **err)
{
	return vm->lv ? vm_libvirt_wakeup(vm, err) : -ENOTSUP;
}

int vm_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
	   int64_t deadline)
{
	if (vm->lv)
		return vm_libvirt_qmp(vm, cmd, args, ret, err);
	return qmp_execute(vm->qmp, cmd, args, ret, err, deadline);
}
