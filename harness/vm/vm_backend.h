/* What a back end of struct vm supplies: the machine's process (QEMU as our
 * child, a libvirt domain, or a test's fake), its console, its end, and the
 * calls that differ between them. vm.c does everything else (the loop, the
 * console model, the QMP and guest-agent clients over the two unix sockets,
 * the logs) and reaches the back end only through these operations, so a
 * test can hand in its own (vm_config.backend) and run the real vm.c, steps
 * and runner above it.
 *
 * A back end keeps its state in vm->be. It tells vm.c about console bytes
 * with vm_console_feed() and about the machine's end with vm_gone() (vm.h). */
#ifndef KTB_VM_BACKEND_H
#define KTB_VM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct vm;
struct hw_launch;

struct vm_backend_ops {
	const char *name;
	/* Create the machine from l (disks, helper processes, the process or
	 * domain) so that it serves QMP on l->qmp_path and the agent on
	 * l->qga_path. 0, or -errno with vm->err (vm->bad_config when the
	 * machine itself was refused). stop() is called either way. */
	int (*spawn)(struct vm *vm, const struct hw_launch *l, int64_t deadline);
	/* Feed what the console holds now, without blocking. */
	void (*drain)(struct vm *vm);
	/* End the machine (politely first, while vm->qmp still works) and free
	 * vm->be. Safe after a failed or partial spawn. */
	void (*stop)(struct vm *vm);
	/* A scenario's monitor command. 0 with *ret (may be NULL), -EREMOTEIO
	 * with *err for a QMP error, other -errno when it did not get through. */
	int (*qmp)(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err,
		   int64_t deadline);
	/* Optional. S3 wake through the back end's own call; NULL: -ENOTSUP
	 * (the caller uses QMP system_wakeup). */
	int (*pm_wakeup)(struct vm *vm, char **err);
	/* Optional. Pull the plug now, no flush (power_loss). NULL: nothing
	 * to do before stop(), which ends the machine just as hard. */
	void (*power_cut)(struct vm *vm);
	/* Optional. After vm_gone(): did the machine power itself off (exit
	 * status 0)? false with *how ("exited with status 1"). NULL: yes. */
	bool (*exited_ok)(const struct vm *vm, const char **how);
	/* Optional. The QEMU process on this host, for its RSS; NULL: -1. */
	int (*pid)(const struct vm *vm);
	/* Optional. Interactive machines: wait until it ends by itself. 0 when
	 * it exited with status 0, -EIO with vm->err otherwise. NULL: -ENOTSUP. */
	int (*wait_exit)(struct vm *vm);
	/* Optional. Write a kdump-zlib dump of the stopped guest to path, in
	 * QEMU's flattened form, and return when it is written: 0, or -errno
	 * with err filled. NULL: vm_dump.c asks QEMU itself over QMP. */
	int (*dump)(struct vm *vm, const char *path, char *err, size_t errlen);
	/* Optional. What the back end measured of the run, a JSON object
	 * whose members go into the result's metrics (the qemu back end:
	 * "hybrid", each hybrid disk's cache stats), or NULL. Asked before
	 * stop(). */
	json_t *(*metrics)(struct vm *vm);
};

/* QEMU as a child process of ktb (backend_qemu.c). */
extern const struct vm_backend_ops vm_backend_qemu;
/* A transient libvirt domain on cfg.libvirt_uri (backend_libvirt.c). */
extern const struct vm_backend_ops vm_backend_libvirt;

#endif
