/* A dump of guest memory through QMP (dump-guest-memory), kdump-compressed
 * (zlib), the form crash and drgn read: the guest stopped first, the file
 * written beside its final name and renamed once QEMU says it is complete,
 * so a dump in the artifacts is always whole. docs/debugging.md, "A dump of
 * the guest". */
#ifndef KTB_VM_DUMP_H
#define KTB_VM_DUMP_H

#include <stddef.h>
#include <stdint.h>

struct vm;

#define VM_DUMP_FORMAT "kdump-zlib"

/* What the kdump header should say of the kernel: QEMU fills only the
 * machine ("x86_64") of its utsname, and libkdumpfile (drgn) takes a
 * utsname without sysname "Linux", a release and a version for none, and
 * then knows no architecture. Empty fields are filled from these. */
struct vm_dump_uts {
	const char *release; /* uname -r of the guest */
	const char *version; /* uname -v */
};

struct vm_dump {
	char *file;	/* the complete dump; NULL when none was written */
	uint64_t bytes; /* its size */
	int64_t ms;	/* from the request to QEMU's "completed" */
	char *note;	/* why there is no file; NULL with one */
};

/* The most a dump of a guest of guest_bytes can take: every page stored
 * uncompressed (zlib keeps a page raw when it does not shrink) plus its
 * 24-byte page descriptor and the two 1-bit-per-page bitmaps, rounded up
 * (guest_bytes / 64), plus 16 MiB for the headers and VMCOREINFO. */
uint64_t vm_dump_bound(uint64_t guest_bytes);

/* Dump the guest to path (QEMU writes path.flat, vm_dump_unflatten makes
 * path.part of it, renamed to path when whole). Skipped with a note when
 * QEMU is gone, when the file system holding path has less room than twice
 * vm_dump_bound(guest_bytes) (both files exist for a moment);
 * ended with a note (no file) when the partial file grows past limit
 * (0: none), QEMU reports a failure, the deadline passes or a signal comes
 * (QEMU is then killed: it has no way to cancel a dump). The loop's abort
 * reason, if any, is kept. Always fills out; free it with vm_dump_free. */
void vm_dump_memory(struct vm *vm, const char *path, uint64_t guest_bytes, uint64_t limit,
		    const struct vm_dump_uts *uts, int64_t deadline, struct vm_dump *out);
void vm_dump_free(struct vm_dump *d);

/* QEMU (before 8.2) writes a kdump file in makedumpfile's "flattened" form,
 * for pipes: a 4096-byte header that begins "makedumpfile", then records of
 * a big-endian 64-bit file offset and size followed by that many bytes, and
 * an end record of offset -1. crash reads it; drgn (libkdumpfile) does not.
 * Write the file it stands for (what `makedumpfile -R` does): each record's
 * bytes at its offset; then a kdump header's empty utsname fields from uts
 * (may be NULL). 0, or -errno with why filled (a short, malformed or
 * unreadable input, a failed write); out is then removed. */
int vm_dump_unflatten(const char *flat, const char *out, const struct vm_dump_uts *uts, char *why,
		      size_t whylen);

#endif
