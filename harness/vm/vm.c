/* The generic VM: the loop, the console model and its logs, the QMP and
 * guest-agent clients over the two unix sockets. Everything that depends on
 * how the machine runs goes through vm->ops (vm_backend.h). */
#include "vm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol.h"
#include "console.h"
#include "image_direct.h"
#include "loop.h"
#include "memmap.h"
#include "qga.h"
#include "qmp.h"
#include "spawn.h"
#include "util.h"

#define CONSOLE_TAIL_LINES 200

const char *vm_pick_kernel(const struct machine *m, struct image *img)
{
	const char *direct;
	uint64_t top = 0;
	struct stat st;
	char why[512];

	if (!machine_needs_bios_boot(m))
		return img->vmlinux ? img->vmlinux : img->bzimage;
	direct = image_direct(img, &top, why, sizeof(why));
	if (direct && !stat(img->initrd, &st) &&
	    image_direct_fits(top, memmap_low_bytes(m->memory_bytes), (uint64_t)st.st_size))
		return direct;
	return img->bzimage;
}

void vm_gone(struct vm *vm, const char *reason)
{
	console_flush(vm->console);
	vm->qemu_gone = true;
	if (!console_fatal(vm->console) || vm->cfg.reports_expected)
		loop_abort(vm->loop, reason);
}

long vm_console_offset(const struct vm *vm)
{
	struct stat st;

	if (!vm->console_log || fflush(vm->console_log) || fstat(fileno(vm->console_log), &st))
		return -1;
	return (long)st.st_size;
}

/* init's line saying why it cannot go on, once whole: the boot ends with
 * it, so the user reads the cause (a root that does not mount, a missing
 * agent) without the console. */
static void vm_init_failed(struct vm *vm)
{
	/* console_tail(, 0): the unfinished line alone */
	char *partial = console_tail(vm->console, 0), *tail = NULL, *p = NULL, *end, reason[600];

	if (strstr(partial, KTB_INIT_FAIL_MARKER))
		goto out; /* the rest of the line is still on its way */
	tail = console_tail(vm->console, 40);
	for (char *q = tail; (q = strstr(q, KTB_INIT_FAIL_MARKER)); q++)
		p = q; /* the last one */
	vm->init_failed = true;
	if (p) {
		p += strlen(KTB_INIT_FAIL_MARKER);
		p += strspn(p, " ");
		end = p + strcspn(p, "\r\n");
		*end = '\0';
	}
	snprintf(reason, sizeof(reason), "the guest's init failed: %s",
		 p && *p ? p : "(see the console)");
	loop_abort(vm->loop, reason);
out:
	free(partial);
	free(tail);
}

void vm_console_feed(struct vm *vm, const char *buf, size_t n)
{
	if (console_feed(vm->console, buf, n) == 1 && !vm->cfg.reports_expected) {
		char reason[600];

		snprintf(reason, sizeof(reason), "kernel %s on the console: %s",
			 console_fatal_kind(vm->console), console_fatal(vm->console));
		loop_abort(vm->loop, reason);
	}
	/* init says so when the guest cannot come up: no point waiting */
	if (!vm->ready_ms && !vm->init_failed && console_seen(vm->console, KTB_INIT_FAIL_MARKER))
		vm_init_failed(vm);
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

/* Why the loop stopped, else what the errno says. */
static const char *vm_why(struct vm *vm, int ret)
{
	const char *r = loop_abort_reason(vm->loop);

	return r ? r : strerror(-ret);
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
		.gdb_port = vm->cfg.gdb_port,
		.gdb_wait = vm->cfg.gdb_port && vm->cfg.gdb_wait,
		.dump_ready = vm->cfg.dump_ready,
		.run = spawn_tool,
	};
}

/* A panicked guest that pvpanic paused (-action panic=pause) will do
 * nothing more: end what waits on it, as QEMU's end would. */
static void vm_on_qmp_event(void *ctx, const struct qmp_event *ev)
{
	struct vm *vm = ctx;

	if (strcmp(ev->name, "GUEST_PANICKED"))
		return;
	vm->guest_panicked = true;
	console_flush(vm->console);
	loop_abort(vm->loop, "the guest panicked (pvpanic): QEMU paused it");
}

static const struct vm_backend_ops *vm_choose(const struct vm_config *c)
{
	if (c->backend)
		return c->backend;
	return c->libvirt_uri ? &vm_backend_libvirt : &vm_backend_qemu;
}

int vm_start(struct vm *vm, const struct vm_config *c, int64_t deadline)
{
	struct hw_launch l;
	int fd, ret;

	memset(vm, 0, sizeof(*vm));
	vm->cfg = *c;
	vm->ops = vm_choose(c);
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
	l = vm_launch(vm);
	ret = vm->ops->spawn(vm, &l, deadline);
	if (ret || c->interactive)
		return ret;
	fd = vm_connect(vm, vm->qmp_path, deadline);
	if (fd < 0) {
		snprintf(vm->err, sizeof(vm->err), "no QMP socket: %s", vm_why(vm, fd));
		return fd;
	}
	vm->qmp = qmp_new(vm->loop, fd, vm->qmp_log);
	qmp_on_events(vm->qmp, vm_on_qmp_event, vm);
	ret = qmp_handshake(vm->qmp, deadline);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "QMP handshake failed: %s", vm_why(vm, ret));
	return ret;
}

const char *vm_hold(struct vm *vm, int64_t ms)
{
	int ret;

	if (vm->qga) {
		qga_free(vm->qga);
		vm->qga = NULL;
	}
	if (vm->qmp) {
		qmp_free(vm->qmp);
		vm->qmp = NULL;
	}
	loop_clear_abort(vm->loop);
	ret = loop_run_until(vm->loop, NULL, NULL, loop_now(vm->loop) + ms);
	return ret ? vm_why(vm, ret) : "its time passed";
}

/* How long a debugger may take to let the CPUs go: a day, the longest a
 * scenario may run; a signal ends the wait sooner. */
#define VM_DEBUGGER_WAIT_MS (24LL * 3600 * 1000)

int vm_wait_debugger(struct vm *vm)
{
	int ret;

	if (!vm->cfg.gdb_port || !vm->cfg.gdb_wait)
		return 0;
	ret = vm_qmp_event(vm, "RESUME", NULL, loop_now(vm->loop) + VM_DEBUGGER_WAIT_MS);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "waiting for a debugger on 127.0.0.1:%u: %s",
			 vm->cfg.gdb_port, vm_why(vm, ret));
	return ret;
}

int vm_wait_agent(struct vm *vm, int64_t deadline)
{
	int fd, ret;

	fd = vm_connect(vm, vm->qga_path, deadline);
	if (fd < 0) {
		snprintf(vm->err, sizeof(vm->err), "no guest agent socket: %s", vm_why(vm, fd));
		return fd;
	}
	vm->qga = qga_new(vm->loop, fd, vm->qga_log);
	ret = qga_sync(vm->qga, 500, deadline);
	if (ret == -ETIMEDOUT)
		snprintf(vm->err, sizeof(vm->err),
			 "the guest agent did not answer within the deadline");
	else if (ret)
		snprintf(vm->err, sizeof(vm->err), "%s", vm_why(vm, ret));
	else
		vm->ready_ms = loop_now(vm->loop);
	return ret;
}

int vm_wait_exit(struct vm *vm)
{
	if (!vm->ops->wait_exit)
		return -ENOTSUP;
	return vm->ops->wait_exit(vm);
}

/* Drain what the console still has (a panic's last lines) without blocking. */
void vm_drain_console(struct vm *vm)
{
	if (vm->ops && vm->console)
		vm->ops->drain(vm);
}

void vm_metrics(struct vm *vm, json_t *metrics)
{
	json_t *m = vm->ops && vm->ops->metrics ? vm->ops->metrics(vm) : NULL;

	if (m)
		json_object_update(metrics, m);
	json_decref(m);
}

void vm_stop(struct vm *vm)
{
	vm_drain_console(vm);
	if (vm->ops)
		vm->ops->stop(vm);
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
	return vm->ops->pm_wakeup ? vm->ops->pm_wakeup(vm, err) : -ENOTSUP;
}

int vm_qmp_socket(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
		  int64_t deadline)
{
	return qmp_execute(vm->qmp, cmd, args, ret, err, deadline);
}

int vm_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err, int64_t deadline)
{
	return vm->ops->qmp(vm, cmd, args, ret, err, deadline);
}

int vm_qmp_event(struct vm *vm, const char *name, int64_t *host_ms, int64_t deadline)
{
	struct qmp_event *ev = NULL;
	int ret = qmp_wait_event(vm->qmp, name, &ev, deadline);

	if (!ret && host_ms)
		*host_ms = ev->host_ms;
	if (!ret)
		qmp_event_free(ev);
	return ret;
}

bool vm_qmp_has_event(struct vm *vm, const char *name)
{
	return qmp_has_event(vm->qmp, name);
}

void vm_qmp_drop_events(struct vm *vm)
{
	while (!vm_qmp_event(vm, NULL, NULL, loop_now(vm->loop)))
		;
}

/* qga.c's result into ours (the strings move). */
static void vm_exec_take(struct vm_exec_result *res, struct qga_exec_result *q)
{
	res->exit_code = q->exit_code;
	res->signal = q->signal;
	res->out = q->out;
	res->err = q->err;
	res->out_len = q->out_len;
	res->err_len = q->err_len;
	res->out_truncated = q->out_truncated;
	res->err_truncated = q->err_truncated;
	q->out = q->err = NULL;
}

int vm_exec(struct vm *vm, const char *cmd, const char *const *env, struct vm_exec_result *res,
	    int64_t deadline)
{
	struct qga_exec_result q = { 0 };
	int ret;

	memset(res, 0, sizeof(*res));
	if (!vm->qga)
		return -ENOTCONN;
	ret = qga_exec(vm->qga, cmd, env, &q, deadline);
	vm_exec_take(res, &q);
	return ret;
}

int vm_exec_start(struct vm *vm, const char *cmd, const char *const *env, long long *pid,
		  char **err, int64_t deadline)
{
	if (!vm->qga)
		return -ENOTCONN;
	return qga_exec_start(vm->qga, cmd, env, pid, err, deadline);
}

int vm_exec_wait(struct vm *vm, long long pid, struct vm_exec_result *res, int64_t deadline)
{
	struct qga_exec_result q = { 0 };
	int ret;

	memset(res, 0, sizeof(*res));
	if (!vm->qga)
		return -ENOTCONN;
	ret = qga_exec_wait(vm->qga, pid, &q, deadline);
	vm_exec_take(res, &q);
	return ret;
}

int vm_exec_start_until(struct vm *vm, const char *cmd, const char *const *env, long long *pid,
			char **err, int64_t deadline, loop_cond_fn stop, void *stop_ctx)
{
	if (!vm->qga)
		return -ENOTCONN;
	return qga_exec_start_until(vm->qga, cmd, env, pid, err, deadline, stop, stop_ctx);
}

int vm_exec_start_finish(struct vm *vm, long long *pid, char **err, int64_t deadline)
{
	if (!vm->qga)
		return -ENOTCONN;
	return qga_exec_start_finish(vm->qga, pid, err, deadline);
}

void vm_exec_result_free(struct vm_exec_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

int vm_guest_sync(struct vm *vm, int retry_ms, int64_t deadline)
{
	if (!vm->qga)
		return -ENOTCONN;
	return qga_sync(vm->qga, retry_ms, deadline);
}

void vm_power_cut(struct vm *vm)
{
	if (vm->ops && vm->ops->power_cut)
		vm->ops->power_cut(vm);
	vm->qemu_gone = true;
}

bool vm_exited_ok(const struct vm *vm, const char **how)
{
	return vm->ops && vm->ops->exited_ok ? vm->ops->exited_ok(vm, how) : true;
}

int vm_pid(const struct vm *vm)
{
	return vm->ops && vm->ops->pid ? vm->ops->pid(vm) : -1;
}
