/* Does KVM really work here? /dev/kvm may accept VMs and then hang them
 * (nested virtualisation), so a probe guest must reach userspace through it
 * within a short deadline. The verdict is cached per host kernel and QEMU. */
#ifndef KTB_KVM_H
#define KTB_KVM_H

#include <stdbool.h>
#include <stddef.h>

enum kvm_verdict { KVM_ABSENT, KVM_BROKEN, KVM_WORKS };

const char *kvm_verdict_name(enum kvm_verdict v);

/* Probe (or read the cached verdict unless force). kernel/initrd: a PVH
 * vmlinux and the testbed initramfs (init answers the "ktb.probe" kernel
 * argument by printing KTB_PROBE_MARKER and powering off). why gets a
 * one-line explanation. Honours KTB_ACCEL=tcg|kvm as an override.
 * Returns 0 (verdict set) or -errno when nothing could be decided. */
int kvm_detect(const char *kernel, const char *initrd, bool force, enum kvm_verdict *v,
	       char *why, size_t whylen);

#endif
