/* One running VM: the QEMU process, its console, QMP and guest-agent
 * clients, all on one event loop. The VM owns everything it starts and
 * vm_stop() leaves no process, socket or temporary file behind. */
#ifndef KTB_VM_H
#define KTB_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "machine.h"
#include "hybrid.h"
#include "proc.h"

struct vm_config {
	const struct machine *machine;
	const char *kernel, *initrd, *append;
	bool kvm;
	const char *workdir;     /* sockets and disk images (removed by the caller) */
	const char *artifacts;   /* console.log, qmp.jsonl, qga.jsonl, qemu.log */
	int sig_fd;              /* self-pipe of proc_signals_install(), or -1 */
	bool restart;            /* the same machine again (after S4): keep the disks,
				    append to the artifacts */
	const char *libvirt_uri; /* NULL: run QEMU directly; else a libvirt domain on
				    this connection (backend_libvirt.c) */
};

struct vm_libvirt;

struct vm {
	struct vm_config cfg;
	struct loop *loop;
	struct console *console;
	struct qmp *qmp;
	struct qga *qga;
	struct proc proc;
	struct hybrid_procs hybrid; /* back ends of hybrid disks, started before QEMU */
	FILE *console_log, *qmp_log, *qga_log;
	char *qmp_path, *qga_path, *qemu_log_path;
	int64_t start_ms;        /* QEMU started (loop clock) */
	int64_t ready_ms;        /* first guest command accepted, 0 until then */
	bool qemu_gone;
	bool init_failed;        /* init printed KTB_INIT_FAIL_MARKER */
	struct vm_libvirt *lv;   /* the libvirt backend's state, NULL on the qemu one */
	bool host_failed;        /* vm_start failed for the host's reasons (libvirt:
				    no connection, daemon error): worth another host */
	char err[1024];          /* why the last call failed */
};

/* Create disks, start QEMU and complete the QMP handshake. 0, or -errno with
 * vm->err saying why (-ENOENT: QEMU missing). Call vm_stop() either way. */
int vm_start(struct vm *vm, const struct vm_config *c, int64_t deadline);
/* Wait until the guest agent answers (boot done). Sets ready_ms. */
int vm_wait_agent(struct vm *vm, int64_t deadline);
/* Read what the console still holds (a panic's last lines) without blocking. */
void vm_drain_console(struct vm *vm);
/* Where QEMU and the back ends find the disks (for hybrid_ctl). */
struct hw_launch vm_launch(const struct vm *vm);
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

/* For backends: console bytes, and the end of the VM's process. */
void vm_console_feed(struct vm *vm, const char *buf, size_t n);
void vm_gone(struct vm *vm, const char *reason);

#endif
