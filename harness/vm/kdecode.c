#include "kdecode.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spawn.h"
#include "util.h"

/* addr2line over a whole report's stack: a large vmlinux takes a few
 * seconds to load its DWARF under a busy host. */
#define KDECODE_TIMEOUT_MS 60000

struct kdecode_sym {
	const char *name; /* into strtab */
	uint64_t addr;
};

struct kdecode {
	char *vmlinux;
	char *strtab;
	struct kdecode_sym *syms; /* sorted by name */
	size_t nsyms;
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

/* Is there a section named name (the section names' table read once)? */
static bool elf_has_section(FILE *f, const Elf64_Ehdr *eh, const Elf64_Shdr *sh, const char *name)
{
	const Elf64_Shdr *ss = &sh[eh->e_shstrndx];
	char *names;
	bool found = false;

	if (ss->sh_size > (64u << 20))
		return false;
	names = xcalloc(1, ss->sh_size + 1);
	if (read_at(f, ss->sh_offset, names, ss->sh_size))
		for (unsigned i = 0; i < eh->e_shnum && !found; i++)
			found = sh[i].sh_name < ss->sh_size && !strcmp(names + sh[i].sh_name, name);
	free(names);
	return found;
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
	for (size_t i = 0; i < n; i++)
		if (ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC && syms[i].st_name < str->sh_size &&
		    syms[i].st_value)
			d->syms[d->nsyms++] =
			    (struct kdecode_sym){ d->strtab + syms[i].st_name, syms[i].st_value };
	free(syms);
	qsort(d->syms, d->nsyms, sizeof(*d->syms), sym_cmp);
	return d->nsyms ? 0 : -ENOENT;
}

struct kdecode *kdecode_open(const char *vmlinux, char *why, size_t whylen)
{
	FILE *f = vmlinux ? fopen(vmlinux, "rb") : NULL;
	struct kdecode *d = NULL;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;

	if (!f) {
		snprintf(why, whylen, "%s: %s", vmlinux ? vmlinux : "no vmlinux",
			 vmlinux ? strerror(errno) : "none given");
		return NULL;
	}
	sh = elf_sections(f, &eh);
	if (!sh) {
		snprintf(why, whylen, "%s is not a 64-bit ELF file", vmlinux);
		goto out;
	}
	if (!elf_has_section(f, &eh, sh, ".debug_info")) {
		snprintf(why, whylen, "%s has no debug information (.debug_info)", vmlinux);
		goto out;
	}
	d = xcalloc(1, sizeof(*d));
	if (load_symbols(d, f, &eh, sh)) {
		snprintf(why, whylen, "%s has no symbol table with functions", vmlinux);
		kdecode_free(d);
		d = NULL;
		goto out;
	}
	d->vmlinux = xstrdup(vmlinux);
out:
	free(sh);
	fclose(f);
	return d;
}

void kdecode_free(struct kdecode *d)
{
	if (!d)
		return;
	free(d->vmlinux);
	free(d->strtab);
	free(d->syms);
	free(d);
}

static int sym_name_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct kdecode_sym *)elem)->name);
}

uint64_t kdecode_address(const struct kdecode *d, const char *func, const char *off)
{
	struct kdecode_sym *s;
	char *end;
	uint64_t o;

	if (!func || !off)
		return 0;
	errno = 0;
	o = strtoull(off, &end, 16);
	if (errno || end == off || (*end && *end != '/'))
		return 0;
	s = bsearch(func, d->syms, d->nsyms, sizeof(*d->syms), sym_name_cmp);
	/* bsearch found one of the name's entries; the lowest is the first */
	while (s && s > d->syms && !strcmp(s[-1].name, func))
		s--;
	return s ? s->addr + o : 0;
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

int kdecode_frames(const struct kdecode *d, const char *const *func, const char *const *off,
		   const char *const *module, size_t n, struct kdecode_frame *out, char *why,
		   size_t whylen)
{
	char **argv = xcalloc(n + 8, sizeof(char *));
	int *frame_of = xcalloc(n + 1, sizeof(int));
	struct spawn_buf so = { 0 }, se = { 0 };
	struct child_process cp = { 0 };
	size_t naddr = 0, k = 0;
	int ret = 0;

	memset(out, 0, n * sizeof(*out));
	argv[k++] = "addr2line";
	argv[k++] = "-f";
	argv[k++] = "-i";
	argv[k++] = "-a";
	argv[k++] = "-e";
	argv[k++] = d->vmlinux;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = module[i] ? 0 : kdecode_address(d, func[i], off[i]);

		if (!a)
			continue;
		argv[k++] = xasprintf("0x%" PRIx64, a);
		frame_of[naddr++] = (int)i;
	}
	if (!naddr)
		goto out;
	cp.argv = argv;
	cp.in.how = SPAWN_NULL;
	ret = pipe_command(&cp, NULL, 0, &so, &se, KDECODE_TIMEOUT_MS);
	if (ret) {
		snprintf(why, whylen, "addr2line %s: %s", ret < 0 ? "could not run" : "failed",
			 ret < 0 ? strerror(-ret) : (se.buf && *se.buf ? se.buf : "no message"));
		ret = ret < 0 ? ret : -EIO;
		goto out;
	}
	parse_output(so.buf ? so.buf : (char *)"", frame_of, naddr, out);
out:
	for (size_t i = 6; i < k; i++)
		free(argv[i]);
	free(argv);
	free(frame_of);
	free(so.buf);
	free(se.buf);
	if (ret)
		for (size_t i = 0; i < n; i++)
			kdecode_frame_free(&out[i]);
	return ret;
}
