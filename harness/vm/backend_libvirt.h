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

#include <stdbool.h>

/* The back end itself is vm_backend_libvirt (vm_backend.h): spawn connects
 * to vm->cfg.libvirt_uri and creates the domain, setting vm->host_failed
 * when the host, not the scenario, is at fault; stop destroys the domain
 * (it is transient: it vanishes), closes the connection and keeps QEMU's log
 * as qemu.log in the artifacts; pm_wakeup is virDomainPMWakeup once libvirt
 * reports the domain pmsuspended; qmp is virDomainQemuMonitorCommand (0 with
 * *ret, -EREMOTEIO with *err for a QMP error, -EIO when libvirt failed). */

/* Is the libvirt backend built in? (false: ktb was built without libvirt-dev) */
bool backend_libvirt_available(void);

#endif
