#include "backend_libvirt.h"
#include "vm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "libvirt_xml.h"
#include "jsonstream.h"
#include "loop.h"
#include "pool.h"
#include "proc.h"
#include "remote.h"
#include "sha256.h"
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
	/* a remote (qemu+ssh) host: NULL on a local one */
	struct remote *rem;
	char *rdir;	       /* the run's directory there, once created */
	struct proc tail, fwd; /* ssh: the console file, the two sockets */
};

/* The back end's state (vm_backend.h: vm->be). */
static struct vm_libvirt *LV(const struct vm *vm)
{
	return vm->be;
}

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

	while ((n = read(LV(vm)->console_fd, buf, sizeof(buf))) > 0)
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

	if (virDomainGetState(LV(vm)->dom, &st, &reason, 0) == 0 && st != VIR_DOMAIN_SHUTOFF &&
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

/* The ssh processes that carry the console and the sockets must live as
 * long as the domain: one that ended means the host (or the way to it) is
 * lost, and the scenario goes elsewhere. */
static void lv_check_ssh(struct vm *vm)
{
	struct vm_libvirt *lv = LV(vm);
	struct proc *p = proc_poll(&lv->fwd) ? &lv->fwd : proc_poll(&lv->tail) ? &lv->tail : NULL;
	char msg[400];

	if (!p)
		return;
	lv_read_console(vm);
	vm->host_failed = true;
	snprintf(msg, sizeof(msg), "lost the libvirt host %s: ssh %s %s (see ssh.log)",
		 vm->cfg.libvirt_uri,
		 p == &lv->fwd ? "forwarding the monitor and agent" : "following the console",
		 proc_describe(p));
	vm_gone(vm, msg);
}

/* The console through ssh: read what arrived; at its end, leave the loop
 * (lv_check_ssh says why). */
static int lv_on_console_pipe(void *ctx, int fd)
{
	struct vm *vm = ctx;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -EPIPE;
	vm_console_feed(vm, buf, (size_t)n);
	return 0;
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
	if (++LV(vm)->ticks % STATE_EVERY == 0)
		lv_check_state(vm);
	if (!vm->qemu_gone && LV(vm)->rem)
		lv_check_ssh(vm);
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
		.it_interval = { .tv_nsec = TICK_MS * 1000000L },
		.it_value = { .tv_nsec = TICK_MS * 1000000L },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return -e;
	}
	LV(vm)->tick_fd = fd;
	if (!LV(vm)->rem)
		LV(vm)->notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (LV(vm)->notify_fd >= 0 &&
	    inotify_add_watch(LV(vm)->notify_fd, LV(vm)->console_path, IN_MODIFY) >= 0)
		loop_add(vm->loop, LV(vm)->notify_fd, lv_on_notify, vm);
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
	struct hw_domain d = { .name = LV(vm)->name, .console_path = LV(vm)->console_path };
	struct hw_error he = { { 0 }, { 0 } };
	/* a remote host's disks were made there (lv_remote_prepare) */
	int ret =
	    vm->cfg.restart || LV(vm)->rem ? 0 : machine_create_disks(vm->cfg.machine, l, &he);

	if (!ret)
		ret = machine_to_domain_xml(vm->cfg.machine, l, &d, xml, &he);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "%s: %s", he.field, he.msg);
	if (ret == -ENOMEM)
		snprintf(vm->err, sizeof(vm->err), "out of memory rendering the domain XML");
	return ret;
}

static int lv_remote_fail(struct vm *vm, int ret, const char *why)
{
	snprintf(vm->err, sizeof(vm->err), "remote libvirt host %s: %s", vm->cfg.libvirt_uri, why);
	vm->host_failed = true;
	return ret;
}

/* Upload one file into the host's cache under its hash; the copy is checked
 * there before it takes the name, so a broken upload is never used. */
static int lv_upload(struct vm *vm, const char *path, const char *hash)
{
	char err[600];
	char *cmd =
	    xasprintf("set -e; umask 022; t=$(mktemp %s/.upload.XXXXXX); trap 'rm -f \"$t\"' EXIT; "
		      "cat >\"$t\"; echo \"%s  $t\" | sha256sum -c --status || "
		      "{ echo 'the upload arrived damaged' >&2; exit 1; }; "
		      "chmod 644 \"$t\"; mv -f \"$t\" %s/%s; trap - EXIT",
		      REMOTE_CACHE_DIR, hash, REMOTE_CACHE_DIR, hash);
	int ret = remote_run(LV(vm)->rem, cmd, path, NULL, 600000, err, sizeof(err));

	free(cmd);
	if (ret) {
		char why[800];

		snprintf(why, sizeof(why), "uploading %s: %s", path, err);
		return lv_remote_fail(vm, -EIO, why);
	}
	return 0;
}

static bool lv_safe_id(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* A remote host: its run directory (the disks, the sockets, the console
 * file) and the kernel and initrd in its cache, uploaded when missing. rl
 * gets the paths on the host. notes: what libvirt.txt says about it. */
static int lv_remote_prepare(struct vm *vm, const struct hw_launch *l, struct hw_launch *rl,
			     char **notes)
{
	const struct machine *m = vm->cfg.machine;
	struct vm_libvirt *lv = LV(vm);
	const char *files[2] = { l->kernel, l->initrd };
	char hash[2][SHA256_HEX_LEN + 1] = { "", "" }, err[600], *cmd, *t, *out = NULL;
	char *rdir = xasprintf("%s/%s", REMOTE_RUN_PARENT, lv->name), *up = xstrdup("");
	int ret = 0;

	for (unsigned i = 0; i < m->disks_count; i++) {
		if (m->disks[i].image || !lv_safe_id(m->disks[i].id)) {
			snprintf(vm->err, sizeof(vm->err),
				 "machine.disks[%u]%s: a remote libvirt host (%s) cannot use %s "
				 "yet; run it on a local host or with --backend qemu",
				 i, m->disks[i].image ? ".image" : ".id", vm->cfg.libvirt_uri,
				 m->disks[i].image ? "a base image" : "this disk id");
			free(rdir);
			free(up);
			return -EINVAL;
		}
	}
	for (int i = 0; i < 2; i++) {
		if (files[i] && (ret = remote_file_sha256(files[i], hash[i]))) {
			snprintf(vm->err, sizeof(vm->err), "cannot read %s: %s", files[i],
				 strerror(-ret));
			free(rdir);
			free(up);
			return ret;
		}
	}
	/* one round trip: the run directory with its disks and console file,
	 * and which of the two files the cache lacks */
	cmd =
	    xasprintf("set -e; umask 022; mkdir -p %s; mkdir %s; if ! { :", REMOTE_CACHE_DIR, rdir);
	for (unsigned i = 0; i < m->disks_count; i++) {
		t = xasprintf("%s && truncate -s %llu %s/%s.img", cmd,
			      (unsigned long long)m->disks[i].size_bytes, rdir, m->disks[i].id);
		free(cmd);
		cmd = t;
	}
	t = xasprintf("%s && : >%s/console.raw; }; then rm -rf %s; exit 1; fi; "
		      "for h in %s %s; do test -s %s/$h || echo $h; done",
		      cmd, rdir, rdir, hash[0], hash[1], REMOTE_CACHE_DIR);
	free(cmd);
	cmd = t;
	ret = remote_run(lv->rem, cmd, NULL, &out, 60000, err, sizeof(err));
	free(cmd);
	if (ret) {
		free(rdir);
		free(up);
		return lv_remote_fail(vm, -EIO, err);
	}
	lv->rdir = rdir;
	for (int i = 0; i < 2 && !ret; i++) {
		if (!files[i] || !strstr(out, hash[i]))
			continue;
		ret = lv_upload(vm, files[i], hash[i]);
		t = xasprintf("%s%s%s", up, *up ? " " : "", i ? "initrd" : "kernel");
		free(up);
		up = t;
	}
	free(out);
	if (!ret) {
		*rl = *l;
		rl->kernel = l->kernel ? xasprintf("%s/%s", REMOTE_CACHE_DIR, hash[0]) : NULL;
		rl->initrd = l->initrd ? xasprintf("%s/%s", REMOTE_CACHE_DIR, hash[1]) : NULL;
		rl->disk_dir = rdir;
		rl->qmp_path = xasprintf("%s/qmp.sock", rdir);
		rl->qga_path = xasprintf("%s/qga.sock", rdir);
		free(lv->console_path);
		lv->console_path = xasprintf("%s/console.raw", rdir);
		*notes = xasprintf("ssh: %s\nremote_dir: %s\nuploaded: %s\n", lv->rem->label, rdir,
				   *up ? up : "none (cached)");
	}
	free(up);
	return ret;
}

static void lv_remote_launch_free(struct hw_launch *rl)
{
	free((char *)rl->kernel);
	free((char *)rl->initrd);
	free((char *)rl->qmp_path);
	free((char *)rl->qga_path);
}

/* What the ssh processes say on standard error: with the artifacts. */
static char *lv_ssh_log(const struct vm *vm)
{
	return xasprintf("%s/ssh.log", vm->cfg.artifacts ? vm->cfg.artifacts : vm->cfg.workdir);
}

/* ssh: follow the console file on the host (tail ends with the ssh session,
 * --pid of its parent), into the loop. */
static int lv_remote_console(struct vm *vm)
{
	struct vm_libvirt *lv = LV(vm);
	char *cmd = xasprintf("exec tail -c +1 -F --pid=$PPID %s 2>/dev/null", lv->console_path);
	char **argv = remote_argv(lv->rem, NULL, cmd);
	char *log = lv_ssh_log(vm);
	struct proc_opts po = { .capture_stdout = true, .stderr_path = log };
	int ret = proc_spawn(&lv->tail, argv, &po);

	remote_argv_free(argv);
	free(cmd);
	free(log);
	if (ret)
		return lv_remote_fail(vm, ret, "cannot start ssh");
	fcntl(lv->tail.out_fd, F_SETFL, fcntl(lv->tail.out_fd, F_GETFL) | O_NONBLOCK);
	return loop_add(vm->loop, lv->tail.out_fd, lv_on_console_pipe, vm);
}

/* ssh: the harness's monitor and agent sockets here, QEMU's there. */
static int lv_remote_forward(struct vm *vm, const struct hw_launch *rl)
{
	struct vm_libvirt *lv = LV(vm);
	char *q = xasprintf("%s:%s", vm->qmp_path, rl->qmp_path);
	char *g = xasprintf("%s:%s", vm->qga_path, rl->qga_path);
	const char *opts[] = { "-N",
			       "-o",
			       "ExitOnForwardFailure=yes",
			       "-o",
			       "StreamLocalBindUnlink=yes",
			       "-L",
			       q,
			       "-L",
			       g,
			       NULL };
	char **argv = remote_argv(lv->rem, opts, NULL);
	char *log = lv_ssh_log(vm);
	struct proc_opts po = { .stderr_path = log };
	int ret = proc_spawn(&lv->fwd, argv, &po);

	remote_argv_free(argv);
	free(q);
	free(g);
	free(log);
	return ret ? lv_remote_fail(vm, ret, "cannot start ssh") : 0;
}

static int lv_spawn(struct vm *vm, const struct hw_launch *l, int64_t deadline)
{
	struct vm_libvirt *lv = xcalloc(1, sizeof(*lv));
	char *xml = NULL, *path, *notes = NULL;
	struct hw_launch rl = { 0 };
	int ret;

	(void)deadline; /* libvirt creates the domain synchronously */
	lv->console_fd = lv->tick_fd = lv->notify_fd = -1;
	lv->tail.pid = lv->fwd.pid = -1;
	lv->tail.out_fd = lv->fwd.out_fd = -1;
	vm->be = lv;
	lv->name = lv_name(vm);
	lv->console_path = xasprintf("%s/console.raw", vm->cfg.workdir);
	virSetErrorFunc(NULL, lv_quiet);
	if (!hosts_uri_local(vm->cfg.libvirt_uri)) {
		char err[300];

		lv->rem = xcalloc(1, sizeof(*lv->rem));
		if (remote_init(lv->rem, vm->cfg.libvirt_uri, err, sizeof(err))) {
			snprintf(vm->err, sizeof(vm->err), "%s", err);
			free(lv->rem);
			lv->rem = NULL;
			return -EINVAL;
		}
		/* an upload may be long: a signal ends it (not the clean-up) */
		lv->rem->stop_on_signal = true;
		/* libvirt first: a host that cannot be reached fails the same way
		 * as a local daemon that is not there */
		lv->conn = virConnectOpen(vm->cfg.libvirt_uri);
		if (!lv->conn)
			return lv_fail(vm, true, -EHOSTDOWN, "cannot connect to");
		ret = lv_remote_prepare(vm, l, &rl, &notes);
		if (ret)
			return ret;
		l = &rl;
	}
	ret = lv_render(vm, l, &xml);
	if (ret)
		goto out;
	if (vm->cfg.artifacts) {
		char *where = xasprintf("uri: %s\ndomain: %s\n%s", vm->cfg.libvirt_uri, lv->name,
					notes ? notes : "");

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
	if (lv->rem) {
		ret = lv_remote_console(vm);
		if (ret)
			goto out;
		lv->console_fd = lv->tail.out_fd;
	} else {
		lv->console_fd =
		    open(lv->console_path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
	}
	if (lv->console_fd < 0) {
		ret = -errno;
		snprintf(vm->err, sizeof(vm->err), "cannot create %s: %s", lv->console_path,
			 strerror(errno));
		goto out;
	}
	if (!lv->conn)
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
	/* QEMU made its sockets before libvirt's create returned */
	if (lv->rem && (ret = lv_remote_forward(vm, &rl)))
		goto out;
	ret = lv_tick_start(vm);
	if (ret)
		snprintf(vm->err, sizeof(vm->err), "timerfd: %s", strerror(-ret));
out:
	if (lv->rem && l == &rl)
		lv_remote_launch_free(&rl);
	free(notes);
	free(xml);
	return ret;
}

static void lv_drain(struct vm *vm)
{
	if (LV(vm) && LV(vm)->console_fd >= 0)
		lv_read_console(vm);
}

/* libvirt keeps QEMU's stderr in its log directory; a copy goes with the
 * artifacts (a local daemon only: the file is on the daemon's host). */
static void lv_keep_log(struct vm *vm)
{
	char *src, *dst, *s;
	size_t len = 0;

	if (!vm->cfg.artifacts || !LV(vm)->conn)
		return;
	src = xasprintf("/var/log/libvirt/qemu/%s.log", LV(vm)->name);
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
	struct vm_libvirt *lv = LV(vm);
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
	if ((!d || virDomainDestroy(d) < 0) && !lv->rem)
		lv_kill_orphan(lv);
	if (d)
		virDomainFree(d);
	if (c)
		virConnectClose(c);
}

/* A remote host: end the ssh processes, bring QEMU's log home, remove the
 * run directory there (the cache stays). */
static void lv_remote_stop(struct vm *vm)
{
	struct vm_libvirt *lv = LV(vm);
	char err[600], *out = NULL, *cmd;

	/* an ssh of ours that ended by itself: the way to the host broke, and
	 * what the scenario saw after that (a closed agent) is not its verdict */
	if (lv->fwd.pid > 0 && lv->tail.pid > 0 && (proc_poll(&lv->fwd) || proc_poll(&lv->tail)))
		vm->host_failed = true;
	if (lv->console_fd == lv->tail.out_fd)
		lv->console_fd = -1; /* proc_stop closes it */
	proc_stop(&lv->tail, 500);
	proc_stop(&lv->fwd, 500);
	lv->rem->stop_on_signal = false;
	if (lv->rdir) {
		cmd = xasprintf("f=/var/log/libvirt/qemu/%s.log; cat $f 2>/dev/null; rm -f $f; "
				"rm -rf %s",
				lv->name, lv->rdir);
		if (remote_run(lv->rem, cmd, NULL, &out, 60000, err, sizeof(err)))
			msg_err("%s could not be removed: %s", lv->rdir, err);
		else if (vm->cfg.artifacts && out && *out) {
			char *dst = xasprintf("%s/qemu.log", vm->cfg.artifacts);

			write_file(dst, out, strlen(out));
			free(dst);
		}
		free(cmd);
		free(out);
	}
	remote_free(lv->rem);
	free(lv->rem);
	free(lv->rdir);
	lv->rem = NULL;
	lv->rdir = NULL;
}

static void lv_stop(struct vm *vm)
{
	struct vm_libvirt *lv = LV(vm);

	if (!lv)
		return;
	if (lv->dom) {
		/* transient: destroyed, it is gone from the host too */
		lv_destroy(vm);
		virDomainFree(lv->dom);
	}
	if (lv->rem)
		lv_remote_stop(vm);
	else
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
	vm->be = NULL;
}

static bool lv_pmsuspended(void *ctx)
{
	struct vm *vm = ctx;
	int st = -1;

	return virDomainGetState(LV(vm)->dom, &st, NULL, 0) == 0 && st == VIR_DOMAIN_PMSUSPENDED;
}

static int lv_wakeup(struct vm *vm, char **err)
{
	int64_t until = loop_now(vm->loop) + PMSUSPENDED_MS;
	int st = -1;

	/* the SUSPEND event reached us; libvirt's own monitor sees it a moment later */
	while (!lv_pmsuspended(vm) && loop_now(vm->loop) < until)
		if (loop_run_until(vm->loop, NULL, NULL, loop_now(vm->loop) + 50) == -ECANCELED)
			return -ECANCELED;
	if (!lv_pmsuspended(vm)) {
		virDomainGetState(LV(vm)->dom, &st, NULL, 0);
		*err =
		    xasprintf("libvirt reports the domain %s, not pmsuspended", lv_state_word(st));
		return -EREMOTEIO;
	}
	{
		json_t *note = json_pack("{s:s}", "libvirt", "virDomainPMWakeup");

		jsonstream_log(vm->qmp_log, loop_now(vm->loop), "out", note, NULL, NULL);
		json_decref(note);
	}
	if (virDomainPMWakeup(LV(vm)->dom, 0) < 0) {
		*err = xasprintf("virDomainPMWakeup: %s", lv_why());
		return -EREMOTEIO;
	}
	return 0;
}

static int lv_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
		  int64_t deadline)
{
	json_t *msg = json_pack("{s:s}", "execute", cmd), *reply, *e;
	char *s, *out = NULL;
	int rc = 0;

	(void)deadline; /* virDomainQemuMonitorCommand has its own */
	if (ret)
		*ret = NULL;
	if (args)
		json_object_set(msg, "arguments", args);
	s = json_dumps(msg, JSON_COMPACT);
	/* in qmp.jsonl beside the harness's own monitor traffic */
	jsonstream_log(vm->qmp_log, loop_now(vm->loop), "out", msg, NULL, "via libvirt");
	json_decref(msg);
	if (virDomainQemuMonitorCommand(LV(vm)->dom, s, &out, 0) < 0) {
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

/* libvirt's own dump: libvirtd opens the file (QEMU, another user in its
 * own namespace, could not write into the artifacts) and hands QEMU the
 * descriptor; QEMU writes the flattened form, as over QMP. On a remote
 * host the file would be written there. */
static int lv_dump(struct vm *vm, const char *path, char *err, size_t errlen)
{
	if (LV(vm)->rem) {
		snprintf(err, errlen,
			 "the libvirt host is remote (%s): libvirt would write the "
			 "dump there",
			 vm->cfg.libvirt_uri);
		return -ENOTSUP;
	}
	if (virDomainCoreDumpWithFormat(LV(vm)->dom, path, VIR_DOMAIN_CORE_DUMP_FORMAT_KDUMP_ZLIB,
					VIR_DUMP_MEMORY_ONLY) < 0) {
		snprintf(err, errlen, "virDomainCoreDumpWithFormat: %s", lv_why());
		return -EIO;
	}
	return 0;
}

bool backend_libvirt_available(void)
{
	return true;
}

#else /* !KTB_HAVE_LIBVIRT */

static int lv_spawn(struct vm *vm, const struct hw_launch *l, int64_t deadline)
{
	(void)l, (void)deadline;
	snprintf(vm->err, sizeof(vm->err),
		 "this ktb was built without libvirt (install libvirt-dev and rebuild)");
	return -ENOTSUP;
}

static void lv_drain(struct vm *vm)
{
	(void)vm;
}

static void lv_stop(struct vm *vm)
{
	(void)vm;
}

static int lv_wakeup(struct vm *vm, char **err)
{
	(void)vm;
	*err = xstrdup("built without libvirt");
	return -ENOTSUP;
}

static int lv_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
		  int64_t deadline)
{
	(void)vm, (void)cmd, (void)args, (void)ret, (void)deadline;
	*err = xstrdup("built without libvirt");
	return -ENOTSUP;
}

static int lv_dump(struct vm *vm, const char *path, char *err, size_t errlen)
{
	(void)vm, (void)path;
	snprintf(err, errlen, "built without libvirt");
	return -ENOTSUP;
}

bool backend_libvirt_available(void)
{
	return false;
}
#endif

const struct vm_backend_ops vm_backend_libvirt = {
	.name = "libvirt",
	.spawn = lv_spawn,
	.drain = lv_drain,
	.stop = lv_stop,
	.qmp = lv_qmp,
	.pm_wakeup = lv_wakeup,
	.dump = lv_dump,
};
