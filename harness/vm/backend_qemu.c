/* The qemu back end of struct vm: QEMU as a child process of ktb, started
 * under the one process policy (proc.h), its stdout the guest console, its
 * stderr qemu.log, the back ends of hybrid disks and the virtiofsd of
 * virtiofs shares started before it (and stopped after it). On
 * `ktb boot` (cfg.interactive) it has the terminal instead. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "console.h"
#include "hybrid.h"
#include "loop.h"
#include "proc.h"
#include "qmp.h"
#include "sidecar.h"
#include "util.h"
#include "virtiofs.h"
#include "vm.h"

/* vm->be: QEMU and the helpers started before it. */
struct qemu_be {
	struct proc proc;
	struct sidecars sidecars; /* hybrid disks' back ends, then virtiofsd */
	int hybrid_n;		  /* how many of them serve hybrid disks */
};

static struct qemu_be *qbe(const struct vm *vm)
{
	return vm->be;
}

static char *qemu_stderr_tail(const struct vm *vm)
{
	size_t len = 0;
	char *s = vm->qemu_log_path ? read_file(vm->qemu_log_path, &len) : NULL;
	char *start;

	if (!s)
		return xstrdup("");
	len = str_trim_len(s, len, "\n ");
	s[len] = '\0';
	start = len > 400 ? s + len - 400 : s;
	start = xstrdup(start);
	free(s);
	return start;
}

/* QEMU's stdout is the guest console: feed it, and treat EOF as QEMU gone. */
static int qemu_on_console(void *ctx, int fd)
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
		proc_wait(&qbe(vm)->proc, 2000);
		tail = qemu_stderr_tail(vm);
		snprintf(reason, sizeof(reason), "QEMU %s%s%s", proc_describe(&qbe(vm)->proc),
			 *tail ? ": " : "", tail);
		free(tail);
		vm_gone(vm, reason);
		return -EPIPE;
	}
	vm_console_feed(vm, buf, (size_t)n);
	return 0;
}

static int qemu_spawn(struct vm *vm, const struct hw_launch *launch, int64_t deadline)
{
	struct hw_launch l = *launch;
	/* a machine with a balloon is watched through QEMU's RSS (measure:
	 * qemu_rss): without huge pages it moves with what the guest touches,
	 * not with the 2 MiB pages the host happened to back it with */
	struct proc_opts po = { .capture_stdout = !vm->cfg.interactive,
				.stderr_path = vm->cfg.interactive ? NULL : vm->qemu_log_path,
				.interactive = vm->cfg.interactive,
				.no_thp = !vm->cfg.interactive && vm->cfg.machine->balloon };
	struct hw_error he = { { 0 }, { 0 } };
	const char *logs = vm->cfg.artifacts ? vm->cfg.artifacts : vm->cfg.workdir;
	struct qemu_be *be = xcalloc(1, sizeof(*be));
	struct argv a;
	int ret;

	be->proc = (struct proc){ .pid = -1, .out_fd = -1 };
	vm->be = be;
	l.interactive = vm->cfg.interactive;
	argv_init(&a);
	ret = vm->cfg.restart ? 0 : machine_create_disks(vm->cfg.machine, &l, &he);
	if (!ret)
		ret = machine_to_argv(vm->cfg.machine, &l, &a, &he);
	if (ret) {
		snprintf(vm->err, sizeof(vm->err), "%s: %s", he.field, he.msg);
		vm->bad_config = true;
		goto out;
	}
	/* QEMU connects to the hybrid disks' back ends and the virtiofsd as
	 * it starts */
	ret = hybrid_start(&be->sidecars, vm->cfg.machine, &l, logs, deadline, vm->err,
			   sizeof(vm->err));
	if (ret >= 0) {
		be->hybrid_n = ret;
		ret = virtiofs_start(&be->sidecars, vm->cfg.machine, &l, logs, deadline, vm->err,
				     sizeof(vm->err));
	}
	if (ret)
		goto out;
	if (vm->cfg.banner)
		fprintf(stderr, "%s\n", vm->cfg.banner);
	ret = proc_spawn(&be->proc, a.v, &po);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "cannot start %s: %s", a.v[0], strerror(-ret));
	else if (be->proc.out_fd >= 0)
		loop_add(vm->loop, be->proc.out_fd, qemu_on_console, vm);
out:
	argv_free(&a);
	return ret;
}

static void qemu_drain(struct vm *vm)
{
	struct qemu_be *be = qbe(vm);
	char buf[4096];

	if (!be || be->proc.out_fd < 0 || vm->qemu_gone)
		return;
	int fl = fcntl(be->proc.out_fd, F_GETFL);

	fcntl(be->proc.out_fd, F_SETFL, fl | O_NONBLOCK);
	for (;;) {
		ssize_t n = read(be->proc.out_fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		console_feed(vm->console, buf, (size_t)n);
	}
	console_flush(vm->console);
}

static void qemu_quit(struct vm *vm)
{
	struct qemu_be *be = qbe(vm);

	if (be->proc.pid <= 0 || proc_poll(&be->proc))
		return;
	if (vm->qmp && !vm->qemu_gone) {
		loop_clear_abort(vm->loop);
		qmp_execute(vm->qmp, "quit", NULL, NULL, NULL, loop_now(vm->loop) + 1000);
		if (proc_wait(&be->proc, 2000))
			return;
	}
	proc_stop(&be->proc, 2000);
}

static void qemu_stop(struct vm *vm)
{
	struct qemu_be *be = qbe(vm);

	if (!be)
		return;
	qemu_quit(vm);
	proc_stop(&be->proc, 1000);
	sidecars_stop(&be->sidecars);
	free(be);
	vm->be = NULL;
}

static void qemu_power_cut(struct vm *vm)
{
	struct qemu_be *be = qbe(vm);

	if (be && be->proc.pid > 0 && !proc_poll(&be->proc)) {
		kill(be->proc.pid, SIGKILL);
		proc_wait(&be->proc, 5000);
	}
}

static bool qemu_exited_ok(const struct vm *vm, const char **how)
{
	const struct qemu_be *be = qbe(vm);

	if (!be) {
		*how = "never started";
		return false;
	}
	if (WIFEXITED(be->proc.status) && WEXITSTATUS(be->proc.status) == 0)
		return true;
	*how = proc_describe(&be->proc);
	return false;
}

static int qemu_pid(const struct vm *vm)
{
	return qbe(vm) ? (int)qbe(vm)->proc.pid : -1;
}

static int qemu_wait_exit(struct vm *vm)
{
	struct qemu_be *be = qbe(vm);

	if (!be)
		return -ECHILD;
	while (!proc_wait(&be->proc, 1000))
		;
	if (WIFEXITED(be->proc.status) && WEXITSTATUS(be->proc.status) == 0)
		return 0;
	snprintf(vm->err, sizeof(vm->err), "QEMU %s", proc_describe(&be->proc));
	return -EIO;
}

/* The hybrid disks' cache stats, asked of their back ends at the end. */
static json_t *qemu_metrics(struct vm *vm)
{
	struct hw_launch l;
	json_t *all;

	if (!qbe(vm) || !qbe(vm)->hybrid_n)
		return NULL;
	l = vm_launch(vm);
	all = hybrid_stats_all(vm->cfg.machine, &l);
	return all ? json_pack("{s:o}", "hybrid", all) : NULL;
}

const struct vm_backend_ops vm_backend_qemu = {
	.name = "qemu",
	.spawn = qemu_spawn,
	.drain = qemu_drain,
	.stop = qemu_stop,
	.qmp = vm_qmp_socket,
	.power_cut = qemu_power_cut,
	.exited_ok = qemu_exited_ok,
	.pid = qemu_pid,
	.wait_exit = qemu_wait_exit,
	.metrics = qemu_metrics,
};
