/* A finding's frames in file:line: each "func+0xOFF/0xSIZE" frame of the
 * kernel itself becomes an address (the symbol's, from the vmlinux's
 * symbol table, plus the offset) that binutils' addr2line turns into the
 * function, file and line, inlined functions included, from the vmlinux's
 * DWARF. A module's frame ("func+0xOFF/0xSIZE [mod]") is decoded the same
 * way from the module's .ko with DWARF, found in a modules folder: the .ko
 * is relocatable, so the symbol gives a section and an offset in it, and
 * addr2line reads the address relative to that section (-j).
 * docs/debugging.md, "Stacks in file:line". */
#ifndef KTB_KDECODE_H
#define KTB_KDECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kdecode;

/* One place a frame's address stands for: the innermost first, then each
 * function it was inlined into, outwards. */
struct kdecode_loc {
	char *func;
	char *file; /* as the DWARF names it */
	unsigned line;
};

struct kdecode_frame {
	struct kdecode_loc *locs;
	size_t count; /* 0: not decoded (a module without its .ko, an unknown symbol) */
};

/* Open vmlinux for decoding: NULL with why filled when it cannot serve
 * (no such file, not an ELF, no symbol table, no DWARF: .debug_info).
 * modules (may be NULL: module frames stay undecoded) is the folder the
 * modules' .ko files are looked for in: those its modules.order lists (a
 * kernel build tree), then those directly in it (an image's debug/modules),
 * "dm-multipath.ko" serving the module dm_multipath. */
struct kdecode *kdecode_open(const char *vmlinux, const char *modules, char *why, size_t whylen);
void kdecode_free(struct kdecode *d);

/* The address of "func" plus off ("0x1a/0x2b": the part before '/'), or 0
 * when the symbol table has no such function. */
uint64_t kdecode_address(const struct kdecode *d, const char *func, const char *off);

/* Decode n frames (func, off, module each; module NULL: the kernel's) into
 * out[0..n): one run of addr2line for the kernel's frames, and one per
 * module and section for the modules'. 0, with why empty, or naming each
 * module whose frames stayed undecoded and why (no .ko for it, a .ko
 * without DWARF); or -errno (out then all undecoded) with why filled when
 * the vmlinux's run failed. Free each with kdecode_frame_free. */
int kdecode_frames(const struct kdecode *d, const char *const *func, const char *const *off,
		   const char *const *module, size_t n, struct kdecode_frame *out, char *why,
		   size_t whylen);
void kdecode_frame_free(struct kdecode_frame *f);

#endif
