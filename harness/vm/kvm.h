/* Does KVM really work here? /dev/kvm may accept VMs and then hang them
 * (nested virtualisation), so a probe guest must reach userspace through it
 * within a short deadline. The verdict is cached per host kernel and QEMU. */
#ifndef KTB_KVM_H
#define KTB_KVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kvm_verdict { KVM_ABSENT, KVM_BROKEN, KVM_WORKS };

const char *kvm_verdict_name(enum kvm_verdict v);

/* Probe (or read the cached verdict unless force). kernel/initrd: a PVH
 * vmlinux and the testbed initramfs (init answers the "ktb.probe" kernel
 * argument by printing KTB_PROBE_MARKER and powering off). why gets a
 * one-line explanation. Honours KTB_ACCEL=tcg|kvm as an override.
 * Returns 0 (verdict set) or -errno when nothing could be decided. */
int kvm_detect(const char *kernel, const char *initrd, bool force, enum kvm_verdict *v, char *why,
	       size_t whylen);
/* kvm_detect with the cache kept in cache_dir/kvm.json instead of
 * ktb_cache_dir(). */
int kvm_detect_in(const char *cache_dir, const char *kernel, const char *initrd, bool force,
		  enum kvm_verdict *v, char *why, size_t whylen);

/* What a cached verdict depends on: if any of it changes, probe again. */
struct kvm_cache_key {
	char host_release[65];	/* uname -r */
	char qemu_version[160]; /* first line of "qemu-system-x86_64 --version" */
	long long kernel_size, kernel_mtime;
	long long initrd_size, initrd_mtime;
};

/* Fill k for this host. 0, or -errno (why says what: a missing kernel, no
 * QEMU). */
int kvm_cache_key_fill(struct kvm_cache_key *k, const char *kernel, const char *initrd, char *why,
		       size_t whylen);
/* 0 and the verdict when dir/kvm.json holds one for exactly k; -ENOENT when
 * it holds none (missing, unreadable, or for another key). */
int kvm_cache_load(const char *dir, const struct kvm_cache_key *k, enum kvm_verdict *v, char *why,
		   size_t whylen);
/* Replace dir/kvm.json atomically (temporary file, then rename). 0/-errno. */
int kvm_cache_store(const char *dir, const struct kvm_cache_key *k, enum kvm_verdict v,
		    const char *why, int64_t probe_ms);

/* Judge the probe guest's console output so far. 1 when decided (*v and why
 * set): the marker means KVM_WORKS; "KVM internal error", "emulation
 * failure", or QEMU gone (exited true) without the marker mean KVM_BROKEN.
 * 0 while it is still undecided. */
int kvm_probe_classify(const char *out, bool exited, enum kvm_verdict *v, char *why, size_t whylen);

#endif
