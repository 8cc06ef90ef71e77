#include "kdecode.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

/* addr2line over a whole report's stack: a large vmlinux takes a few
 * seconds to load its DWARF under a busy host. */
#define KDECODE_TIMEOUT_MS 60000

struct kdecode_sym {
	const char *name; /* into strtab */
	uint64_t addr;	  /* a module's: the offset in its section */
	unsigned shndx;
};

/* The vmlinux, or (rel) a module's .ko. */
struct kdecode {
	char *path;
	char *modules; /* the folder of the modules' .ko files, or NULL */
	bool rel;
	char *strtab;
	struct kdecode_sym *syms; /* sorted by name */
	size_t nsyms;
	char *secnames;	   /* the section names' table */
	uint32_t *secname; /* each section's name: its offset in secnames */
	unsigned nsecs;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct kdecode_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* one name twice (static functions of many files): the lowest first */
	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

static bool read_at(FILE *f, uint64_t off, void *buf, size_t len)
{
	return !fseek(f, (long)off, SEEK_SET) && fread(buf, 1, len, f) == len;
}

/* The section headers of an ELF64 file; NULL when it is none. */
static Elf64_Shdr *elf_sections(FILE *f, Elf64_Ehdr *eh)
{
	Elf64_Shdr *sh;

	if (!read_at(f, 0, eh, sizeof(*eh)) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = xcalloc(eh->e_shnum, sizeof(*sh));
	if (!read_at(f, eh->e_shoff, sh, eh->e_shnum * sizeof(*sh))) {
		free(sh);
		return NULL;
	}
	return sh;
}

/* The section names' table into d, and where each section's name is in it. */
static bool load_section_names(struct kdecode *d, FILE *f, const Elf64_Ehdr *eh,
			       const Elf64_Shdr *sh)
{
	const Elf64_Shdr *ss = &sh[eh->e_shstrndx];

	if (ss->sh_size > (64u << 20))
		return false;
	d->secnames = xcalloc(1, ss->sh_size + 1);
	d->secname = xcalloc(eh->e_shnum, sizeof(*d->secname));
	d->nsecs = eh->e_shnum;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		d->secname[i] = sh[i].sh_name < ss->sh_size ? sh[i].sh_name : (uint32_t)ss->sh_size;
	return read_at(f, ss->sh_offset, d->secnames, ss->sh_size);
}

static const char *section_name(const struct kdecode *d, unsigned i)
{
	return i < d->nsecs ? d->secnames + d->secname[i] : "";
}

static bool has_section(const struct kdecode *d, const char *name)
{
	for (unsigned i = 0; i < d->nsecs; i++)
		if (!strcmp(section_name(d, i), name))
			return true;
	return false;
}

/* The function symbols of the symbol table into d, sorted by name. */
static int load_symbols(struct kdecode *d, FILE *f, const Elf64_Ehdr *eh, const Elf64_Shdr *sh)
{
	const Elf64_Shdr *st = NULL, *str;
	Elf64_Sym *syms;
	size_t n;

	for (unsigned i = 0; i < eh->e_shnum && !st; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			st = &sh[i];
	if (!st || st->sh_link >= eh->e_shnum || st->sh_entsize != sizeof(Elf64_Sym))
		return -ENOENT;
	str = &sh[st->sh_link];
	if (st->sh_size > (512u << 20) || str->sh_size > (512u << 20))
		return -EFBIG;
	n = st->sh_size / sizeof(Elf64_Sym);
	syms = xcalloc(n ? n : 1, sizeof(*syms));
	d->strtab = xcalloc(1, str->sh_size + 1);
	if (!read_at(f, st->sh_offset, syms, n * sizeof(*syms)) ||
	    !read_at(f, str->sh_offset, d->strtab, str->sh_size)) {
		free(syms);
		return -EIO;
	}
	d->syms = xcalloc(n ? n : 1, sizeof(*d->syms));
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *y = &syms[i];

		if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_name >= str->sh_size)
			continue;
		/* a module's first function is at offset 0 of its section */
		if (d->rel ? y->st_shndx == SHN_UNDEF || y->st_shndx >= eh->e_shnum : !y->st_value)
			continue;
		d->syms[d->nsyms++] =
		    (struct kdecode_sym){ d->strtab + y->st_name, y->st_value, y->st_shndx };
	}
	free(syms);
	qsort(d->syms, d->nsyms, sizeof(*d->syms), sym_cmp);
	return d->nsyms ? 0 : -ENOENT;
}

/* path as the vmlinux or (rel) a module's .ko: NULL with why filled when
 * it cannot serve. */
static struct kdecode *elf_open(const char *path, bool rel, char *why, size_t whylen)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	struct kdecode *d = NULL;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;

	if (!f) {
		snprintf(why, whylen, "%s: %s", path ? path : "no vmlinux",
			 path ? strerror(errno) : "none given");
		return NULL;
	}
	sh = elf_sections(f, &eh);
	if (!sh || (eh.e_type == ET_REL) != rel) {
		snprintf(why, whylen, "%s is not a 64-bit ELF %s", path,
			 rel ? "relocatable file (a module)" : "file");
		goto out;
	}
	d = xcalloc(1, sizeof(*d));
	d->rel = rel;
	if (!load_section_names(d, f, &eh, sh)) {
		snprintf(why, whylen, "%s: its section names cannot be read", path);
		goto fail;
	}
	if (!has_section(d, ".debug_info")) {
		snprintf(why, whylen, "%s has no debug information (.debug_info)", path);
		goto fail;
	}
	if (load_symbols(d, f, &eh, sh)) {
		snprintf(why, whylen, "%s has no symbol table with functions", path);
		goto fail;
	}
	d->path = xstrdup(path);
	goto out;
fail:
	kdecode_free(d);
	d = NULL;
out:
	free(sh);
	fclose(f);
	return d;
}

struct kdecode *kdecode_open(const char *vmlinux, const char *modules, char *why, size_t whylen)
{
	struct kdecode *d = elf_open(vmlinux, false, why, whylen);

	if (d)
		d->modules = xstrdup(modules);
	return d;
}

void kdecode_free(struct kdecode *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->modules);
	free(d->strtab);
	free(d->syms);
	free(d->secnames);
	free(d->secname);
	free(d);
}

static int sym_name_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct kdecode_sym *)elem)->name);
}

static const struct kdecode_sym *sym_find(const struct kdecode *d, const char *func)
{
	struct kdecode_sym *s;

	if (!func)
		return NULL;
	s = bsearch(func, d->syms, d->nsyms, sizeof(*d->syms), sym_name_cmp);
	/* bsearch found one of the name's entries; the lowest is the first */
	while (s && s > d->syms && !strcmp(s[-1].name, func))
		s--;
	return s;
}

/* "0x1a/0x2b" (or "0x1a"): 0x1a. */
static bool parse_off(const char *off, uint64_t *o)
{
	char *end;

	if (!off)
		return false;
	errno = 0;
	*o = strtoull(off, &end, 16);
	return !errno && end != off && (!*end || *end == '/');
}

uint64_t kdecode_address(const struct kdecode *d, const char *func, const char *off)
{
	const struct kdecode_sym *s = sym_find(d, func);
	uint64_t o;

	return s && parse_off(off, &o) ? s->addr + o : 0;
}

void kdecode_frame_free(struct kdecode_frame *f)
{
	for (size_t i = 0; i < f->count; i++) {
		free(f->locs[i].func);
		free(f->locs[i].file);
	}
	free(f->locs);
	f->locs = NULL;
	f->count = 0;
}

static bool is_address_line(const char *s)
{
	return s[0] == '0' && s[1] == 'x' && s[2] &&
	       strspn(s + 2, "0123456789abcdef") == strlen(s + 2);
}

/* "file:line" (addr2line's "??:0" and "file:?" are no line), with a
 * " (discriminator N)" cut off. */
static void loc_place(struct kdecode_loc *l, char *s)
{
	char *colon, *disc = strstr(s, " (discriminator");

	if (disc)
		*disc = '\0';
	colon = strrchr(s, ':');
	if (!colon)
		return;
	*colon = '\0';
	l->line = (unsigned)strtoul(colon + 1, NULL, 10);
	if (strcmp(s, "??"))
		l->file = xstrdup(s);
}

/* addr2line -f -i -a output: an address line, then (function, file:line)
 * pairs, the innermost first; into the frames the addresses belong to. */
static void parse_output(char *text, const int *frame_of, size_t naddr, struct kdecode_frame *out)
{
	char *save = NULL, *line, *func = NULL;
	long cur = -1;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (is_address_line(line)) {
			cur++;
			func = NULL;
			continue;
		}
		if (cur < 0 || (size_t)cur >= naddr)
			break;
		if (!func) {
			func = line;
			continue;
		}
		struct kdecode_frame *f = &out[frame_of[cur]];
		struct kdecode_loc *l;

		f->locs = xrealloc(f->locs, (f->count + 1) * sizeof(*f->locs));
		l = &f->locs[f->count++];
		memset(l, 0, sizeof(*l));
		l->func = strcmp(func, "??") ? xstrdup(func) : NULL;
		loc_place(l, line);
		func = NULL;
	}
}

/* One run of addr2line on path for naddr addresses (with section: relative
 * to that section of a relocatable file), each into out[frame_of[i]]. */
static int addr2line(const char *path, const char *section, char **addrs, size_t naddr,
		     const int *frame_of, struct kdecode_frame *out, char *why, size_t whylen)
{
	const char **argv = xcalloc(naddr + 9, sizeof(char *));
	struct spawn_buf so = { 0 }, se = { 0 };
	struct child_process cp = { 0 };
	size_t k = 0;
	int ret;

	argv[k++] = "addr2line";
	argv[k++] = "-f";
	argv[k++] = "-i";
	argv[k++] = "-a";
	argv[k++] = "-e";
	argv[k++] = path;
	if (section) {
		argv[k++] = "-j";
		argv[k++] = section;
	}
	for (size_t i = 0; i < naddr; i++)
		argv[k++] = addrs[i];
	cp.argv = (char **)argv;
	cp.in.how = SPAWN_NULL;
	ret = pipe_command(&cp, NULL, 0, &so, &se, KDECODE_TIMEOUT_MS);
	if (ret) {
		snprintf(why, whylen, "addr2line %s: %s", ret < 0 ? "could not run" : "failed",
			 ret < 0 ? strerror(-ret) : (se.buf && *se.buf ? se.buf : "no message"));
		ret = ret < 0 ? ret : -EIO;
	} else {
		parse_output(so.buf ? so.buf : (char *)"", frame_of, naddr, out);
	}
	free(argv);
	free(so.buf);
	free(se.buf);
	return ret;
}

struct frames {
	const char *const *func, *const *off, *const *module;
	size_t n;
};

/* A module's name as the kernel prints it against a file's stem of len
 * bytes: "dm_multipath" is dm-multipath.ko ('-' and '_' alike, as the
 * kernel makes its module names). */
static bool same_module(const char *a, const char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len && a[i]; i++)
		if ((a[i] == '-' ? '_' : a[i]) != (b[i] == '-' ? '_' : b[i]))
			return false;
	return i == len && !a[i];
}

static bool frame_of_module(const struct frames *fr, size_t i, const char *mod)
{
	const char *m = fr->module[i];

	return mod ? m && same_module(mod, m, strlen(m)) : !m;
}

/* The length of name's stem without .ko (or .o: modules.order from 6.2
 * on), or 0 when it is neither. */
static size_t ko_stem(const char *name)
{
	size_t n = strlen(name);

	if (n > 3 && !strcmp(name + n - 3, ".ko"))
		return n - 3;
	if (n > 2 && !strcmp(name + n - 2, ".o"))
		return n - 2;
	return 0;
}

/* The .ko of module mod: a kernel build tree's modules.order names it
 * (path/x.ko, or path/x.o), else it is in dir itself. NULL: none. */
static char *module_find(const char *dir, const char *mod)
{
	char *p = xasprintf("%s/modules.order", dir), *line = NULL, *found = NULL;
	FILE *f = fopen(p, "r");
	struct dirent *e;
	size_t cap = 0, n;
	DIR *dh;

	free(p);
	while (f && !found && getline(&line, &cap, f) > 0) {
		const char *base;

		str_trim(line, " \r\n");
		base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
		n = ko_stem(base);
		if (n && same_module(mod, base, n))
			found = xasprintf("%s/%.*s.ko", dir, (int)(base - line + n), line);
	}
	if (f)
		fclose(f);
	free(line);
	dh = found ? NULL : opendir(dir);
	while (dh && !found && (e = readdir(dh))) {
		n = ko_stem(e->d_name);
		if (n && !strcmp(e->d_name + n, ".ko") && same_module(mod, e->d_name, n))
			found = xasprintf("%s/%s", dir, e->d_name);
	}
	if (dh)
		closedir(dh);
	if (found && access(found, R_OK)) {
		free(found);
		found = NULL;
	}
	return found;
}

/* The frames file f holds (mod NULL: the kernel's, f the vmlinux; else
 * module mod's, f its .ko) into out: one addr2line run for a vmlinux, one
 * per section the frames are in for a module. Unknown symbols stay
 * undecoded. */
static int decode_file(const struct kdecode *f, const char *mod, const struct frames *fr,
		       struct kdecode_frame *out, char *why, size_t whylen)
{
	char **addrs = xcalloc(fr->n + 1, sizeof(char *));
	int *frame_of = xcalloc(fr->n + 1, sizeof(int));
	bool *done = xcalloc(fr->n + 1, sizeof(bool));
	int ret = 0;

	while (!ret) {
		unsigned sec = 0;
		size_t naddr = 0;

		for (size_t i = 0; i < fr->n; i++) {
			const struct kdecode_sym *s;
			uint64_t o;

			if (done[i] || !frame_of_module(fr, i, mod))
				continue;
			s = sym_find(f, fr->func[i]);
			if (s && f->rel && naddr && s->shndx != sec)
				continue; /* another section: the next run */
			done[i] = true;
			if (!s || !parse_off(fr->off[i], &o))
				continue;
			sec = s->shndx;
			addrs[naddr] = xasprintf("0x%" PRIx64, s->addr + o);
			frame_of[naddr++] = (int)i;
		}
		if (!naddr)
			break;
		ret = addr2line(f->path, f->rel ? section_name(f, sec) : NULL, addrs, naddr,
				frame_of, out, why, whylen);
		for (size_t i = 0; i < naddr; i++)
			free(addrs[i]);
	}
	free(addrs);
	free(frame_of);
	free(done);
	return ret;
}

/* Add "; " and a formatted part to the note in buf. */
static void note_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used)
		used += (size_t)snprintf(buf + used, len - used, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Module mod's frames from its .ko in d's modules folder; why it cannot,
 * added to note. */
static void decode_module(const struct kdecode *d, const char *mod, const struct frames *fr,
			  struct kdecode_frame *out, char *note, size_t notelen)
{
	char why[300] = "", *path = d->modules ? module_find(d->modules, mod) : NULL;
	struct kdecode *m = NULL;

	if (!d->modules)
		snprintf(why, sizeof(why), "no folder of module debug files given");
	else if (!path)
		snprintf(why, sizeof(why), "no %s.ko in %s", mod, d->modules);
	else if ((m = elf_open(path, true, why, sizeof(why))))
		decode_file(m, mod, fr, out, why, sizeof(why));
	if (*why)
		note_add(note, notelen, "module %s: %s", mod, why);
	kdecode_free(m);
	free(path);
}

int kdecode_frames(const struct kdecode *d, const char *const *func, const char *const *off,
		   const char *const *module, size_t n, struct kdecode_frame *out, char *why,
		   size_t whylen)
{
	const struct frames fr = { func, off, module, n };
	int ret;

	memset(out, 0, n * sizeof(*out));
	if (whylen)
		why[0] = '\0';
	ret = decode_file(d, NULL, &fr, out, why, whylen);
	if (ret) {
		for (size_t i = 0; i < n; i++)
			kdecode_frame_free(&out[i]);
		return ret;
	}
	for (size_t i = 0; i < n; i++) {
		bool first = module[i] != NULL;

		/* each module once, where its first frame is */
		for (size_t j = 0; j < i && first; j++)
			first = !frame_of_module(&fr, j, module[i]);
		if (first)
			decode_module(d, module[i], &fr, out, why, whylen);
	}
	return 0;
}
