/* What the host and the guest agree on: the console marker init prints once
 * the guest agent runs, where disks appear, and the environment variables
 * guest tools see. Included by guest/ and harness/ alike. */
#ifndef KTB_GUEST_PROTOCOL_H
#define KTB_GUEST_PROTOCOL_H

/* init prints this line on the console when qemu-ga has been started. */
#define KTB_READY_MARKER "ktb: guest ready"
/* init prints this line when it cannot go on (missing agent, no virtio port). */
#define KTB_INIT_FAIL_MARKER "ktb: init failed:"
/* Disk with scenario id ID is reachable as KTB_DISK_DIR "/ID". */
#define KTB_DISK_DIR "/dev/ktb"
/* The serial of the disk holding the guest's root (a Debian root's image,
 * kernel argument ktb.root=disk:SERIAL): no disk of the machine's, so the
 * guest's disk lists leave it out. hw/share.h's SHARE_ROOT_TAG. */
#define KTB_ROOT_SERIAL "ktbroot"
/* The virtio-serial port name the agent listens on. */
#define KTB_QGA_PORT "org.qemu.guest_agent.0"
/* Module list in load order, written by the image builder. */
#define KTB_MODULES_LIST "/etc/ktb/modules"
/* What each module the recipe names needs, one line each: "NAME FILE...",
 * the files in load order, NAME's own last (written by the image builder).
 * The kernel argument ktb.nomod=A,B leaves A and B out, with what only
 * they need. */
#define KTB_MODULES_NEEDS "/etc/ktb/modules.needs"
/* With the kernel argument "ktb.probe", init prints this and powers off at
 * once: the KVM probe only needs to know userspace was reached. */
#define KTB_PROBE_MARKER "ktb: probe reached userspace"

#endif
