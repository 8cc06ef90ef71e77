#include "backend_libvirt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../hw/libvirt_xml.h"
#include "jsonstream.h"
#include "loop.h"
#include "util.h"

#ifdef KTB_HAVE_LIBVIRT
#include <libvirt/libvirt-qemu.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#define TICK_MS 50	    /* how often the console file is read */
#define STATE_EVERY 10	    /* ticks between two domain state checks */
#define PMSUSPENDED_MS 5000 /* for libvirt to see the SUSPEND event too */

struct vm_libvirt {
	virConnectPtr conn;
	virDomainPtr dom;
	char *name, *console_path;
	int console_fd, tick_fd, notify_fd;
	unsigned ticks;
};

static void lv_quiet(void *ctx, virErrorPtr e)
{
	(void)ctx;
	(void)e;
}

static const char *lv_why(void)
{
	const char *m = virGetLastErrorMessage();

	return m ? m : "unknown libvirt error";
}

/* Errors that say the host failed (its daemon, the connection to it, its
 * resources) rather than the domain we asked for: worth another host. A
 * QEMU that will not start is the scenario's problem: on another host it
 * would fail the same way. */
static bool lv_host_error(void)
{
	virErrorPtr e = virGetLastError();

	if (!e)
		return true;
	if (e->domain == VIR_FROM_RPC || e->domain == VIR_FROM_REMOTE ||
	    e->domain == VIR_FROM_SSH || e->domain == VIR_FROM_LIBSSH)
		return true;
	switch (e->code) {
	case VIR_ERR_NO_CONNECT:
	case VIR_ERR_INVALID_CONN:
	case VIR_ERR_RPC:
	case VIR_ERR_AUTH_FAILED:
	case VIR_ERR_AUTH_CANCELLED:
	case VIR_ERR_AUTH_UNAVAILABLE:
	case VIR_ERR_OPERATION_TIMEOUT:
	case VIR_ERR_NO_MEMORY:
	case VIR_ERR_SYSTEM_ERROR:
		return true;
	default:
		return false;
	}
}

static void lv_read_console(struct vm *vm)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(vm->lv->console_fd, buf, sizeof(buf))) > 0)
		vm_console_feed(vm, buf, (size_t)n);
}

static const char *lv_state_word(int st)
{
	switch (st) {
	case VIR_DOMAIN_RUNNING:
		return "running";
	case VIR_DOMAIN_BLOCKED:
		return "blocked";
	case VIR_DOMAIN_PAUSED:
		return "paused";
	case VIR_DOMAIN_SHUTDOWN:
		return "shutting down";
	case VIR_DOMAIN_SHUTOFF:
		return "shut off";
	case VIR_DOMAIN_CRASHED:
		return "crashed";
	case VIR_DOMAIN_PMSUSPENDED:
		return "pmsuspended";
	default:
		return "in no known state";
	}
}

/* QEMU gone: the domain is shut off or crashed, or no longer exists. A
 * connection that broke is the host failing: the scenario goes elsewhere. */
static void lv_check_state(struct vm *vm)
{
	int st = -1, reason = 0;
	char msg[300];

	if (virDomainGetState(vm->lv->dom, &st, &reason, 0) == 0 && st != VIR_DOMAIN_SHUTOFF &&
	    st != VIR_DOMAIN_CRASHED)
		return;
	lv_read_console(vm);
	if (st < 0 && lv_host_error()) {
		vm->host_failed = true;
		snprintf(msg, sizeof(msg), "lost the libvirt host %s: %s", vm->cfg.libvirt_uri,
			 lv_why());
	} else if (st < 0) {
		snprintf(msg, sizeof(msg), "QEMU is gone: libvirt: %s", lv_why());
	} else {
		snprintf(msg, sizeof(msg), "QEMU exited: libvirt reports the domain %s (reason %d)",
			 lv_state_word(st), reason);
	}
	vm_gone(vm, msg);
}

static int lv_on_tick(void *ctx, int fd)
{
	struct vm *vm = ctx;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	if (vm->qemu_gone)
		return -EPIPE;
	lv_read_console(vm);
	if (++vm->lv->ticks % STATE_EVERY == 0)
		lv_check_state(vm);
	return vm->qemu_gone ? -EPIPE : 0;
}

/* QEMU wrote to the console file: read it now. QEMU writes a panic's lines
 * before it ends and its sockets close, and this fd is on the loop before the
 * agent's, so the panic is seen before the agent's hang-up. */
static int lv_on_notify(void *ctx, int fd)
{
	struct vm *vm = ctx;
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	lv_read_console(vm);
	return 0;
}

static int lv_tick_start(struct vm *vm)
{
	struct itimerspec its = {
	    .it_interval = {.tv_nsec = TICK_MS * 1000000L},
	    .it_value = {.tv_nsec = TICK_MS * 1000000L},
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return -e;
	}
	vm->lv->tick_fd = fd;
	vm->lv->notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (vm->lv->notify_fd >= 0 &&
	    inotify_add_watch(vm->lv->notify_fd, vm->lv->console_path, IN_MODIFY) >= 0)
		loop_add(vm->loop, vm->lv->notify_fd, lv_on_notify, vm);
	return loop_add(vm->loop, fd, lv_on_tick, vm);
}

static int lv_fail(struct vm *vm, bool host, int ret, const char *what)
{
	snprintf(vm->err, sizeof(vm->err), "%s %s: %s", what, vm->cfg.libvirt_uri, lv_why());
	vm->host_failed = host;
	return ret;
}

/* A domain name unique on the host: ktb-<pid>-<the workdir's suffix>. */
static char *lv_name(const struct vm *vm)
{
	const char *base = strrchr(vm->cfg.workdir, '/');

	base = base ? base + 1 : vm->cfg.workdir;
	return xasprintf("ktb-%d-%s", (int)getpid(), base);
}

static int lv_render(struct vm *vm, const struct hw_launch *l, char **xml)
{
	struct hw_domain d = {.name = vm->lv->name, .console_path = vm->lv->console_path};
	struct hw_error he = {{0}, {0}};
	int ret = vm->cfg.restart ? 0 : machine_create_disks(vm->cfg.machine, l, &he);

	if (!ret)
		ret = machine_to_domain_xml(vm->cfg.machine, l, &d, xml, &he);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "%s: %s", he.field, he.msg);
	if (ret == -ENOMEM)
		snprintf(vm->err, sizeof(vm->err), "out of memory rendering the domain XML");
	return ret;
}

int vm_libvirt_spawn(struct vm *vm, const struct hw_launch *l)
{
	struct vm_libvirt *lv = xcalloc(1, sizeof(*lv));
	char *xml = NULL, *path;
	int ret;

	lv->console_fd = lv->tick_fd = lv->notify_fd = -1;
	vm->lv = lv;
	lv->name = lv_name(vm);
	lv->console_path = xasprintf("%s/console.raw", vm->cfg.workdir);
	ret = lv_render(vm, l, &xml);
	if (ret)
		return ret;
	if (vm->cfg.artifacts) {
		char *where = xasprintf("uri: %s\ndomain: %s\n", vm->cfg.libvirt_uri, lv->name);

		path = xasprintf("%s/domain.xml", vm->cfg.artifacts);
		write_file(path, xml, strlen(xml));
		free(path);
		/* which host of a pool ran it, under which name */
		path = xasprintf("%s/libvirt.txt", vm->cfg.artifacts);
		write_file(path, where, strlen(where));
		free(path);
		free(where);
	}
	/* opened before QEMU writes a byte, so nothing of the boot is missed */
	lv->console_fd = open(lv->console_path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
	if (lv->console_fd < 0) {
		ret = -errno;
		snprintf(vm->err, sizeof(vm->err), "cannot create %s: %s", lv->console_path,
			 strerror(errno));
		goto out;
	}
	virSetErrorFunc(NULL, lv_quiet);
	lv->conn = virConnectOpen(vm->cfg.libvirt_uri);
	if (!lv->conn) {
		ret = lv_fail(vm, true, -EHOSTDOWN, "cannot connect to");
		goto out;
	}
	lv->dom = virDomainCreateXML(lv->conn, xml, 0);
	if (!lv->dom) {
		ret = lv_fail(vm, lv_host_error(), -EIO, "cannot create the domain on");
		goto out;
	}
	ret = lv_tick_start(vm);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "timerfd: %s", strerror(-ret));
out:
	free(xml);
	return ret;
}

void vm_libvirt_drain(struct vm *vm)
{
	if (vm->lv && vm->lv->console_fd >= 0)
		lv_read_console(vm);
}

/* libvirt keeps QEMU's stderr in its log directory; a copy goes with the
 * artifacts (a local daemon only: the file is on the daemon's host). */
static void lv_keep_log(struct vm *vm)
{
	char *src, *dst, *s;
	size_t len = 0;

	if (!vm->cfg.artifacts || !vm->lv->conn)
		return;
	src = xasprintf("/var/log/libvirt/qemu/%s.log", vm->lv->name);
	dst = xasprintf("%s/qemu.log", vm->cfg.artifacts);
	s = read_file(src, &len);
	if (s) {
		write_file(dst, s, len);
		unlink(src);
	}
	free(s);
	free(src);
	free(dst);
}

/* The daemon went away under a running domain (guests outlive it): end
 * QEMU through the pid file a local libvirtd keeps, if it is that domain's. */
static void lv_kill_orphan(const struct vm_libvirt *lv)
{
	char *path = xasprintf("/run/libvirt/qemu/%s.pid", lv->name), *s, *cmd, *want;
	size_t len = 0;
	long pid;

	s = read_file(path, &len);
	free(path);
	if (!s)
		return;
	pid = strtol(s, NULL, 10);
	free(s);
	if (pid <= 1)
		return;
	path = xasprintf("/proc/%ld/cmdline", pid);
	cmd = read_file(path, &len);
	want = xasprintf("guest=%s,", lv->name);
	/* cmdline's arguments are NUL-separated: look at each */
	for (size_t off = 0; cmd && off < len; off += strlen(cmd + off) + 1) {
		if (!strncmp(cmd + off, want, strlen(want))) {
			kill((pid_t)pid, SIGKILL);
			break;
		}
	}
	free(want);
	free(cmd);
	free(path);
}

/* Destroy the domain, through a fresh connection if this one broke. */
static void lv_destroy(struct vm *vm)
{
	struct vm_libvirt *lv = vm->lv;
	virConnectPtr c;
	virDomainPtr d;
	virErrorPtr e;

	if (virDomainDestroy(lv->dom) == 0)
		return;
	e = virGetLastError();
	if (e && e->code == VIR_ERR_NO_DOMAIN)
		return;
	c = virConnectOpen(vm->cfg.libvirt_uri);
	d = c ? virDomainLookupByName(c, lv->name) : NULL;
	if (!d || virDomainDestroy(d) < 0)
		lv_kill_orphan(lv);
	if (d)
		virDomainFree(d);
	if (c)
		virConnectClose(c);
}

void vm_libvirt_stop(struct vm *vm)
{
	struct vm_libvirt *lv = vm->lv;

	if (!lv)
		return;
	if (lv->dom) {
		/* transient: destroyed, it is gone from the host too */
		lv_destroy(vm);
		virDomainFree(lv->dom);
	}
	lv_keep_log(vm);
	if (lv->conn)
		virConnectClose(lv->conn);
	if (lv->tick_fd >= 0)
		close(lv->tick_fd);
	if (lv->notify_fd >= 0)
		close(lv->notify_fd);
	if (lv->console_fd >= 0)
		close(lv->console_fd);
	free(lv->name);
	free(lv->console_path);
	free(lv);
	vm->lv = NULL;
}

static bool lv_pmsuspended(void *ctx)
{
	struct vm *vm = ctx;
	int st = -1;

	return virDomainGetState(vm->lv->dom, &st, NULL, 0) == 0 && st == VIR_DOMAIN_PMSUSPENDED;
}

int vm_libvirt_wakeup(struct vm *vm, char **err)
{
	int64_t until = loop_now(vm->loop) + PMSUSPENDED_MS;
	int st = -1;

	/* the SUSPEND event reached us; libvirt's own monitor sees it a moment later */
	while (!lv_pmsuspended(vm) && loop_now(vm->loop) < until)
		if (loop_run_until(vm->loop, NULL, NULL, loop_now(vm->loop) + 50) == -ECANCELED)
			return -ECANCELED;
	if (!lv_pmsuspended(vm)) {
		virDomainGetState(vm->lv->dom, &st, NULL, 0);
		*err =
		    xasprintf("libvirt reports the domain %s, not pmsuspended", lv_state_word(st));
		return -EREMOTEIO;
	}
	{
		json_t *note = json_pack("{s:s}", "libvirt", "virDomainPMWakeup");

		jsonstream_log(vm->qmp_log, loop_now(vm->loop), "out", note, NULL, NULL);
		json_decref(note);
	}
	if (virDomainPMWakeup(vm->lv->dom, 0) < 0) {
		*err = xasprintf("virDomainPMWakeup: %s", lv_why());
		return -EREMOTEIO;
	}
	return 0;
}

int vm_libvirt_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err)
{
	json_t *msg = json_pack("{s:s}", "execute", cmd), *reply, *e;
	char *s, *out = NULL;
	int rc = 0;

	if (ret)
		*ret = NULL;
	if (args)
		json_object_set(msg, "arguments", args);
	s = json_dumps(msg, JSON_COMPACT);
	/* in qmp.jsonl beside the harness's own monitor traffic */
	jsonstream_log(vm->qmp_log, loop_now(vm->loop), "out", msg, NULL, "via libvirt");
	json_decref(msg);
	if (virDomainQemuMonitorCommand(vm->lv->dom, s, &out, 0) < 0) {
		*err = xasprintf("virDomainQemuMonitorCommand: %s", lv_why());
		free(s);
		return -EIO;
	}
	free(s);
	reply = json_loads(out, 0, NULL);
	jsonstream_log(vm->qmp_log, loop_now(vm->loop), "in", reply, reply ? NULL : out,
		       "via libvirt");
	free(out);
	e = json_object_get(reply, "error");
	if (!reply) {
		*err = xstrdup("libvirt returned a monitor reply that is not JSON");
		rc = -EIO;
	} else if (e) {
		const char *desc = json_string_value(json_object_get(e, "desc"));

		*err = xstrdup(desc ? desc : "error");
		rc = -EREMOTEIO;
	} else if (ret) {
		*ret = json_incref(json_object_get(reply, "return"));
	}
	json_decref(reply);
	return rc;
}

bool backend_libvirt_available(void)
{
	return true;
}

#else /* !KTB_HAVE_LIBVIRT */

int vm_libvirt_spawn(struct vm *vm, const struct hw_launch *l)
{
	(void)l;
	snprintf(vm->err, sizeof(vm->err),
		 "this ktb was built without libvirt (install libvirt-dev and rebuild)");
	return -ENOTSUP;
}

void vm_libvirt_drain(struct vm *vm)
{
	(void)vm;
}

void vm_libvirt_stop(struct vm *vm)
{
	(void)vm;
}

int vm_libvirt_wakeup(struct vm *vm, char **err)
{
	(void)vm;
	*err = xstrdup("built without libvirt");
	return -ENOTSUP;
}

int vm_libvirt_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err)
{
	(void)vm, (void)cmd, (void)args, (void)ret;
	*err = xstrdup("built without libvirt");
	return -ENOTSUP;
}

bool backend_libvirt_available(void)
{
	return false;
}
#endif
