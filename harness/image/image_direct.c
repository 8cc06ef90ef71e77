/* The direct bzImage: the bzImage's setup, then a payload of the loader
 * (guest/boot/direct.S), its table and the vmlinux's segments. */
#include "image_direct.h"
#include "image.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the boot protocol's header in a bzImage (Documentation/x86/boot.rst) */
#define BZ_SETUP_SECTS 0x1f1
#define BZ_SYSSIZE 0x1f4
#define BZ_MAGIC 0x202 /* "HdrS" */
#define BZ_VERSION 0x206
#define BZ_LOADFLAGS 0x211
#define BZ_CODE32_START 0x214
#define BZ_LOADED_HIGH 0x01
#define BZ_HEADER_END 0x268

/* ELF64 (elf.h's Elf64_Ehdr and Elf64_Phdr offsets) */
#define EH_PHOFF 0x20
#define EH_PHENTSIZE 0x36
#define EH_PHNUM 0x38
#define PH_SIZE 56
#define PT_LOAD_ 1
#define PT_NOTE_ 4
#define XEN_ELFNOTE_PHYS32_ENTRY 18

/* the table the loader reads at IMAGE_DIRECT_TABLE (direct.S's T_*) */
#define T_SEGS 16
#define T_SEG_SIZE 16
#define TABLE_SIZE 0x1000u
#define DATA_START (IMAGE_DIRECT_TABLE + TABLE_SIZE)

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

struct seg {
	uint64_t off, dest, filesz, memsz;
};

/* the PVH entry from a PT_NOTE's notes: 0 and *entry, or -ENOENT */
static int note_entry(const unsigned char *n, uint64_t len, uint64_t *entry)
{
	uint64_t o = 0;

	while (o + 12 <= len) {
		uint32_t namesz = get32(n + o), descsz = get32(n + o + 4), type = get32(n + o + 8);
		uint64_t desc = o + 12 + (((uint64_t)namesz + 3) & ~3ULL);

		if (desc + descsz > len)
			break;
		if (type == XEN_ELFNOTE_PHYS32_ENTRY && namesz == 4 &&
		    !memcmp(n + o + 12, "Xen", 4) && (descsz == 4 || descsz == 8)) {
			*entry = descsz == 4 ? get32(n + desc) : get64(n + desc);
			return 0;
		}
		o = desc + (((uint64_t)descsz + 3) & ~3ULL);
	}
	return -ENOENT;
}

/* vmlinux's segments (in file order, which must be address order) and PVH
 * entry: their count, or -errno with why */
static int read_elf(const unsigned char *v, size_t len, struct seg *segs, uint64_t *entry,
		    char *why, size_t whylen)
{
	unsigned n = 0;
	uint64_t phoff;
	unsigned phnum, phentsize;
	bool have_entry = false;

	if (len < 64 || memcmp(v, "\177ELF", 4) || v[4] != 2 || v[5] != 1 || get16(v + 18) != 62)
		return say_err(why, whylen, -EINVAL, "not a little-endian x86-64 ELF file");
	phoff = get64(v + EH_PHOFF);
	phentsize = get16(v + EH_PHENTSIZE);
	phnum = get16(v + EH_PHNUM);
	if (phentsize < PH_SIZE || phoff > len || (uint64_t)phnum * phentsize > len - phoff)
		return say_err(why, whylen, -EINVAL, "its program headers lie outside the file");
	for (unsigned i = 0; i < phnum; i++) {
		const unsigned char *ph = v + phoff + (uint64_t)i * phentsize;
		uint32_t type = get32(ph);
		uint64_t off = get64(ph + 8), paddr = get64(ph + 24), filesz = get64(ph + 32),
			 memsz = get64(ph + 40);

		if (filesz > len || off > len - filesz)
			return say_err(why, whylen, -EINVAL,
				       "program header %u lies outside the file", i);
		if (type == PT_NOTE_ && !have_entry)
			have_entry = note_entry(v + off, filesz, entry) == 0;
		if (type != PT_LOAD_ || !memsz)
			continue;
		if (n == IMAGE_DIRECT_MAX_SEGS)
			return say_err(why, whylen, -E2BIG, "more than %u PT_LOAD segments",
				       IMAGE_DIRECT_MAX_SEGS);
		if (filesz > memsz || paddr + memsz > 0xffffffffULL || paddr + memsz < paddr)
			return say_err(why, whylen, -EINVAL,
				       "segment %u is not a 32-bit physical range", n);
		if (n && paddr < segs[n - 1].dest + segs[n - 1].memsz)
			return say_err(why, whylen, -EINVAL,
				       "segment %u lies below or over the one before it", n);
		segs[n++] = (struct seg){ off, paddr, filesz, memsz };
	}
	if (!have_entry)
		return say_err(why, whylen, -ENOENT,
			       "no PVH entry (no Xen PHYS32_ENTRY note: CONFIG_PVH is off)");
	if (!n)
		return say_err(why, whylen, -EINVAL, "no PT_LOAD segment");
	return (int)n;
}

int image_direct_make(const char *bzimage, const char *vmlinux, const char *out, uint64_t *top,
		      char *why, size_t whylen)
{
	size_t bzlen = 0, vlen = 0, setup, at, plen, k;
	unsigned char *bz = (unsigned char *)read_file(bzimage, &bzlen), *v = NULL, *file = NULL;
	struct seg segs[IMAGE_DIRECT_MAX_SEGS];
	uint64_t entry = 0, hi;
	char *tmp = NULL;
	int n, ret;

	if (!bz) {
		ret = say_err(why, whylen, -errno, "%s: %s", bzimage, strerror(errno));
		goto out;
	}
	if (bzlen < BZ_HEADER_END || memcmp(bz + BZ_MAGIC, "HdrS", 4) ||
	    get16(bz + BZ_VERSION) < 0x0206) {
		ret = say_err(why, whylen, -EINVAL,
			      "%s: not a bzImage of boot protocol 2.06 or later", bzimage);
		goto out;
	}
	if (!(bz[BZ_LOADFLAGS] & BZ_LOADED_HIGH) ||
	    get32(bz + BZ_CODE32_START) != IMAGE_DIRECT_BASE) {
		ret = say_err(why, whylen, -EINVAL,
			      "%s: its protected-mode code does not start at 1 MiB", bzimage);
		goto out;
	}
	setup = ((size_t)(bz[BZ_SETUP_SECTS] ? bz[BZ_SETUP_SECTS] : 4) + 1) * 512;
	if (setup > bzlen) {
		ret =
		    say_err(why, whylen, -EINVAL, "%s: its setup is longer than the file", bzimage);
		goto out;
	}
	v = (unsigned char *)read_file(vmlinux, &vlen);
	if (!v) {
		ret = say_err(why, whylen, -errno, "%s: %s", vmlinux, strerror(errno));
		goto out;
	}
	/* why names the file, then what read_elf says of it */
	k = (size_t)snprintf(why, whylen, "%s: ", vmlinux);
	n = read_elf(v, vlen, segs, &entry, why + (k < whylen ? k : 0),
		     k < whylen ? whylen - k : whylen);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (entry >= 0xffffffffULL) {
		ret = say_err(why, whylen, -EINVAL, "%s: its PVH entry is above 4 GiB", vmlinux);
		goto out;
	}
	/* the payload: each segment page-aligned, its copy a multiple of 4 */
	plen = DATA_START;
	for (int i = 0; i < n; i++) {
		uint64_t copy = (segs[i].filesz + 3) & ~3ULL;

		plen = (plen + 4095) & ~(size_t)4095;
		if (copy > segs[i].memsz) {
			ret = say_err(why, whylen, -EINVAL,
				      "%s: segment %d's file part does not end on 4 bytes", vmlinux,
				      i);
			goto out;
		}
		/* copied backwards, last segment first: a segment only moves up */
		if (segs[i].dest < IMAGE_DIRECT_BASE + plen) {
			ret = say_err(why, whylen, -EINVAL,
				      "%s: segment %d at %#llx would move down from %#llx", vmlinux,
				      i, (unsigned long long)segs[i].dest,
				      (unsigned long long)(IMAGE_DIRECT_BASE + plen));
			goto out;
		}
		plen += copy;
	}
	plen = (plen + 15) & ~(size_t)15;
	if (image_direct_loader_size > IMAGE_DIRECT_TABLE) {
		ret = say_err(why, whylen, -E2BIG, "the loader is larger than its %#x bytes",
			      IMAGE_DIRECT_TABLE);
		goto out;
	}
	file = xcalloc(1, setup + plen);
	memcpy(file, bz, setup);
	put32(file + BZ_SYSSIZE, (uint32_t)(plen / 16));
	memcpy(file + setup, image_direct_loader, image_direct_loader_size);
	hi = IMAGE_DIRECT_BASE + plen;
	at = DATA_START;
	for (int i = 0; i < n; i++) {
		unsigned char *t =
		    file + setup + IMAGE_DIRECT_TABLE + T_SEGS + (size_t)i * T_SEG_SIZE;
		uint64_t copy = (segs[i].filesz + 3) & ~3ULL;

		at = (at + 4095) & ~(size_t)4095;
		memcpy(file + setup + at, v + segs[i].off, segs[i].filesz);
		put32(t, (uint32_t)at);
		put32(t + 4, (uint32_t)segs[i].dest);
		put32(t + 8, (uint32_t)copy);
		put32(t + 12, (uint32_t)segs[i].memsz);
		if (segs[i].dest + segs[i].memsz > hi)
			hi = segs[i].dest + segs[i].memsz;
		at += copy;
	}
	put32(file + setup + IMAGE_DIRECT_TABLE, IMAGE_DIRECT_MAGIC);
	put32(file + setup + IMAGE_DIRECT_TABLE + 4, (uint32_t)entry);
	put32(file + setup + IMAGE_DIRECT_TABLE + 8, (uint32_t)n);
	put32(file + setup + IMAGE_DIRECT_TABLE + 12, (uint32_t)hi);
	tmp = xasprintf("%s.tmp-%ld", out, (long)getpid());
	ret = write_file(tmp, (const char *)file, setup + plen);
	if (!ret && rename(tmp, out))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		say_err(why, whylen, ret, "%s: %s", out, strerror(-ret));
		goto out;
	}
	*top = hi;
out:
	free(tmp);
	free(file);
	free(v);
	free(bz);
	return ret;
}

int image_direct_top(const char *path, uint64_t *top)
{
	unsigned char head[BZ_HEADER_END], *loader = NULL;
	unsigned char table[16];
	size_t setup;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -EINVAL;

	if (fd < 0)
		return -errno;
	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head + BZ_MAGIC, "HdrS", 4))
		goto out;
	setup = ((size_t)(head[BZ_SETUP_SECTS] ? head[BZ_SETUP_SECTS] : 4) + 1) * 512;
	loader = xcalloc(1, image_direct_loader_size);
	/* made by this ktb's loader: an older one's table may differ */
	if (pread(fd, loader, image_direct_loader_size, (off_t)setup) !=
		(ssize_t)image_direct_loader_size ||
	    memcmp(loader, image_direct_loader, image_direct_loader_size) ||
	    pread(fd, table, sizeof(table), (off_t)(setup + IMAGE_DIRECT_TABLE)) !=
		(ssize_t)sizeof(table) ||
	    get32(table) != IMAGE_DIRECT_MAGIC)
		goto out;
	*top = get32(table + 12);
	ret = 0;
out:
	free(loader);
	close(fd);
	return ret;
}

/* QEMU's x86_load_linux: the initrd ends below the RAM under 4 GiB less
 * the ACPI tables' room (acpi_data_size, 0x28000 for the pc and q35
 * machines), its start rounded down to a page */
#define QEMU_ACPI_DATA_SIZE 0x28000ULL

bool image_direct_fits(uint64_t top, uint64_t low_bytes, uint64_t initrd_bytes)
{
	if (low_bytes < QEMU_ACPI_DATA_SIZE + initrd_bytes + 1)
		return false;
	return ((low_bytes - QEMU_ACPI_DATA_SIZE - 1 - initrd_bytes) & ~4095ULL) >= top;
}

const char *image_direct(struct image *img, uint64_t *top, char *why, size_t whylen)
{
	const char *env = getenv("KTB_DIRECT_BOOT");
	char *path;

	if (env && !strcmp(env, "0")) {
		snprintf(why, whylen, "KTB_DIRECT_BOOT=0");
		return NULL;
	}
	if (img->direct) {
		*top = img->direct_top;
		return img->direct;
	}
	if (!img->bzimage || !img->vmlinux) {
		snprintf(why, whylen, "the image has no %s",
			 img->bzimage ? "vmlinux with a PVH entry" : "bzImage");
		return NULL;
	}
	path = xasprintf("%s/" IMAGE_DIRECT_FILE, img->dir);
	if (image_direct_top(path, top) &&
	    image_direct_make(img->bzimage, img->vmlinux, path, top, why, whylen)) {
		free(path);
		return NULL;
	}
	img->direct = path;
	img->direct_top = *top;
	return path;
}
