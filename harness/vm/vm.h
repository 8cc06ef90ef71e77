/* One running VM: its back end (vm_backend.h: QEMU as our child, a libvirt
 * domain, a test's fake), its console, the QMP and guest-agent clients, all
 * on one event loop. The VM owns everything it starts and vm_stop() leaves
 * no process, socket or temporary file behind. The steps and the runner
 * reach the guest and the monitor only through the calls below, so every
 * back end sees every request. */
#ifndef KTB_VM_H
#define KTB_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "image.h"
#include "loop.h"
#include "machine.h"
#include "vm_backend.h"

struct vm_config {
	const struct machine *machine;
	const char *kernel, *initrd, *append;
	bool kvm;
	const char *workdir;		      /* sockets and disk images (removed by the caller) */
	const char *artifacts;		      /* console.log, qmp.jsonl, qga.jsonl, qemu.log */
	int sig_fd;			      /* self-pipe of proc_signals_install(), or -1 */
	bool restart;			      /* the same machine again (after S4): keep the disks,
						 append to the artifacts */
	const char *libvirt_uri;	      /* NULL: run QEMU directly; else a libvirt domain on
						 this connection (backend_libvirt.c) */
	const struct vm_backend_ops *backend; /* NULL: chosen by libvirt_uri; tests
						 hand in their own */
	bool interactive;		      /* ktb boot: QEMU has the terminal (console and
						 monitor), nothing is captured, vm_start returns
						 once it runs; wait with vm_wait_exit (qemu only) */
	const char *banner;		      /* interactive: printed to stderr just before QEMU
						 starts, or NULL */
	unsigned gdb_port;     /* QEMU's gdb server on 127.0.0.1:PORT (qemu back end); 0: none */
	bool gdb_wait;	       /* with gdb_port: the CPUs start stopped until the
				  debugger lets them go (vm_wait_debugger) */
	bool dump_ready;       /* the machine can be dumped after a panic (hw_launch's
				  dump_ready; the qemu back end) */
	bool reports_expected; /* the scenario expects or tolerates kernel reports:
				  a report's first line on the console does not end
				  the run (QEMU going away still does) */
};

struct vm {
	struct vm_config cfg;
	const struct vm_backend_ops *ops;
	void *be; /* the back end's state (the qemu back end's QEMU and helpers) */
	struct loop *loop;
	struct console *console;
	struct qmp *qmp;
	struct qga *qga;
	FILE *console_log, *qmp_log, *qga_log;
	char *qmp_path, *qga_path, *qemu_log_path;
	int64_t start_ms; /* QEMU started (loop clock) */
	int64_t ready_ms; /* first guest command accepted, 0 until then */
	bool qemu_gone;
	bool init_failed;    /* init printed KTB_INIT_FAIL_MARKER */
	bool guest_panicked; /* QEMU said GUEST_PANICKED (pvpanic): the guest is
				paused, the loop aborted */
	bool host_failed;    /* vm_start failed for the host's reasons (libvirt:
				no connection, daemon error): worth another host */
	bool bad_config;     /* vm_start failed because the machine was refused */
	char err[1024];	     /* why the last call failed */
};

/* What the guest agent reports of a finished command. */
struct vm_exec_result {
	int exit_code;	 /* -1 when killed by a signal */
	int signal;	 /* 0 unless killed by a signal */
	char *out, *err; /* decoded, NUL-terminated (may contain NULs earlier) */
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
};

/* The kernel a machine boots from img: when its firmware must offer S3
 * (SeaBIOS), the direct bzImage (image_direct.h) where the kernel has a PVH
 * entry and QEMU's initrd lands above what it writes, else the bzImage;
 * other machines the vmlinux when there is one. NULL when the machine
 * needs a bzImage the image lacks. */
const char *vm_pick_kernel(const struct machine *m, struct image *img);

/* How many bytes console.log holds now (restarts append to it), or -1
 * without one: where the next console line will begin. */
long vm_console_offset(const struct vm *vm);

/* Create disks, start QEMU and complete the QMP handshake (interactive: only
 * start it). 0, or -errno with vm->err saying why (-ENOENT: QEMU missing).
 * Call vm_stop() either way. */
int vm_start(struct vm *vm, const struct vm_config *c, int64_t deadline);
/* Keep the machine running for ms (--keep-on-fail): ktb lets go of the
 * monitor and the agent (QEMU's sockets take the next client that
 * connects), and the console goes on into console.log. Ends after ms, on a
 * signal or when QEMU ends; says which ("10m passed", "interrupted by a
 * signal", "QEMU exited ..."). Call vm_stop after it as always. */
const char *vm_hold(struct vm *vm, int64_t ms);
/* With gdb_wait: wait, with no deadline (a signal ends it), until the
 * debugger lets the CPUs go (QEMU's RESUME event). 0 at once without;
 * -errno with vm->err when QEMU went away or a signal came. */
int vm_wait_debugger(struct vm *vm);
/* Wait until the guest agent answers (boot done). Sets ready_ms. */
int vm_wait_agent(struct vm *vm, int64_t deadline);
/* Interactive: wait until QEMU ends. 0 when it exited with status 0, else
 * -EIO with vm->err ("QEMU exited with status 1"); -ENOTSUP off the qemu
 * back end. */
int vm_wait_exit(struct vm *vm);
/* Read what the console still holds (a panic's last lines) without blocking. */
void vm_drain_console(struct vm *vm);
/* Where QEMU and the back ends find the disks (for hybrid_ctl). */
struct hw_launch vm_launch(const struct vm *vm);
/* What the back end measured (vm_backend_ops.metrics), its members added
 * to metrics; nothing when it measured nothing. */
void vm_metrics(struct vm *vm, json_t *metrics);
/* QMP quit, then SIGTERM, then SIGKILL; close and free everything. */
void vm_stop(struct vm *vm);
/* Wake a guest in S3 through the backend's own power-management call
 * (libvirt: virDomainPMWakeup). -ENOTSUP on the qemu backend (use QMP
 * system_wakeup); -EREMOTEIO with *err (malloc'd) when refused. */
int vm_pm_wakeup(struct vm *vm, char **err);
/* A monitor command: qmp_execute() on the qemu backend, libvirt's
 * virDomainQemuMonitorCommand on the libvirt one. Same returns. */
int vm_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
	   int64_t deadline);
/* Take the oldest QMP event named name (any when NULL) from the harness's
 * monitor, waiting until the deadline; its arrival (loop clock) into
 * *host_ms (may be NULL). 0, -ETIMEDOUT, -ECANCELED, -EPIPE. */
int vm_qmp_event(struct vm *vm, const char *name, int64_t *host_ms, int64_t deadline);
/* Whether an event named name is queued (nothing taken, nothing waits). */
bool vm_qmp_has_event(struct vm *vm, const char *name);
/* Drop every queued event. */
void vm_qmp_drop_events(struct vm *vm);

/* The guest agent (see qga.h for the protocol). env: NULL-terminated "K=V"
 * list or NULL. A command: vm_exec runs it to its end (-ETIMEDOUT at the
 * deadline); vm_exec_start and vm_exec_wait are its two halves, for
 * commands that outlive the agent's attention. -EREMOTEIO: the agent
 * refused (its message in res->err or *err). -ENOTCONN: no agent yet.
 * Free a result with vm_exec_result_free whatever the return. */
int vm_exec(struct vm *vm, const char *cmd, const char *const *env, struct vm_exec_result *res,
	    int64_t deadline);
int vm_exec_start(struct vm *vm, const char *cmd, const char *const *env, long long *pid,
		  char **err, int64_t deadline);
int vm_exec_wait(struct vm *vm, long long pid, struct vm_exec_result *res, int64_t deadline);
/* vm_exec_start that stops waiting for the agent's answer once
 * stop(stop_ctx) holds (-EINPROGRESS; the guest went to sleep first), and
 * the pid of such a start, collected once the guest is back. */
int vm_exec_start_until(struct vm *vm, const char *cmd, const char *const *env, long long *pid,
			char **err, int64_t deadline, loop_cond_fn stop, void *stop_ctx);
int vm_exec_start_finish(struct vm *vm, long long *pid, char **err, int64_t deadline);
void vm_exec_result_free(struct vm_exec_result *res);
/* Until the agent answers again (after a resume), resending every retry_ms
 * and backing off. 0, -ETIMEDOUT, -EPIPE, -ECANCELED. */
int vm_guest_sync(struct vm *vm, int retry_ms, int64_t deadline);

/* Pull the plug: the machine ends at once, without a flush; qemu_gone. */
void vm_power_cut(struct vm *vm);
/* After the machine ended by itself: did it exit with status 0? false with
 * *how saying how it ended. */
bool vm_exited_ok(const struct vm *vm, const char **how);
/* The QEMU process on this host (for its RSS), or -1 (libvirt's QEMU). */
int vm_pid(const struct vm *vm);

/* For back ends: console bytes, and the end of the machine (reason for the
 * loop's abort unless the console already saw a kernel failure). */
void vm_console_feed(struct vm *vm, const char *buf, size_t n);
void vm_gone(struct vm *vm, const char *reason);
/* The monitor command over the harness's own QMP socket (qmp_execute), for
 * back ends whose QEMU is reached through it. */
int vm_qmp_socket(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
		  int64_t deadline);

#endif
