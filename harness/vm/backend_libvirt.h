/* The libvirt backend of struct vm: the machine becomes a transient libvirt
 * domain (hw/libvirt_xml.c) instead of a QEMU child process. The harness's
 * QMP monitor and guest-agent sockets are the same unix sockets as on the
 * qemu backend (passed through as QEMU arguments), so qmp.c and qga.c do not
 * change; the console is the serial port written to a file the loop follows;
 * QEMU's end is seen through virDomainGetState. Scenario monitor commands go
 * through virDomainQemuMonitorCommand, S3 wake through virDomainPMWakeup.
 * On a qemu+ssh:// host (remote.c) the disks, sockets and console file are
 * in a run directory there, the kernel and initrd in a cache there, and ssh
 * carries the console (tail -F) and the two sockets (-L) to this machine. */
#ifndef KTB_BACKEND_LIBVIRT_H
#define KTB_BACKEND_LIBVIRT_H

#include <jansson.h>

#include "vm.h"

/* Connect to vm->cfg.libvirt_uri and create the domain; sets vm->lv (even on
 * failure, for vm_libvirt_stop) and vm->host_failed when the host, not the
 * scenario, is at fault. 0 or -errno with vm->err. */
int vm_libvirt_spawn(struct vm *vm, const struct hw_launch *l);
/* Read what the console file holds now. */
void vm_libvirt_drain(struct vm *vm);
/* Destroy the domain (it is transient: it vanishes), close the connection,
 * keep QEMU's log as qemu.log in the artifacts. No-op without vm->lv. */
void vm_libvirt_stop(struct vm *vm);
/* virDomainPMWakeup, once libvirt reports the domain pmsuspended. */
int vm_libvirt_wakeup(struct vm *vm, char **err);
/* One QMP command through virDomainQemuMonitorCommand: 0 with *ret (may be
 * NULL), -EREMOTEIO with *err for a QMP error, -EIO when libvirt failed. */
int vm_libvirt_qmp(struct vm *vm, const char *cmd, json_t *args, json_t **ret, char **err);

/* Is the libvirt backend built in? (false: ktb was built without libvirt-dev) */
bool backend_libvirt_available(void);

#endif
