#include "memcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "size.h"

uint64_t memcheck_tag(uint64_t seed, uint64_t addr)
{
	/* splitmix64's finaliser: nearby addresses give unrelated tags */
	uint64_t z = seed ^ (addr * 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ? z : 1; /* never all-zero, whatever the seed */
}

void memcheck_fill(void *p, uint64_t idx, uint64_t seed)
{
	uint64_t *w = p, tag = memcheck_tag(seed, (uint64_t)(uintptr_t)p);

	w[0] = idx;
	for (size_t i = 1; i < MEMCHECK_PAGE / 8; i++)
		w[i] = tag;
}

bool memcheck_page_ok(const uint64_t *w, uint64_t idx, uint64_t tag)
{
	if (w[0] != idx)
		return false;
	for (size_t i = 1; i < MEMCHECK_PAGE / 8; i++)
		if (w[i] != tag)
			return false;
	return true;
}

bool memcheck_ok(const void *p, uint64_t idx, uint64_t seed)
{
	return memcheck_page_ok(p, idx, memcheck_tag(seed, (uint64_t)(uintptr_t)p));
}

/* The number after "name" at the start of a line, name followed by sep:
 * true with it in *out, false when no line has name. */
static bool line_value(const char *text, const char *name, char sep, uint64_t *out)
{
	size_t len = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, name, len) && l[len] == sep) {
			*out = strtoull(l + len + 1, NULL, 10);
			return true;
		}
	return false;
}

bool memcheck_vmstat(const char *text, const char *name, uint64_t *out)
{
	return line_value(text, name, ' ', out);
}

uint64_t memcheck_meminfo_kb(const char *text, const char *name)
{
	uint64_t v = 0;

	return line_value(text, name, ':', &v) ? v : 0;
}

bool memcheck_meminfo_line(const char *text, const char *name, uint64_t *kb)
{
	return line_value(text, name, ':', kb);
}

/* One zone line: "Node 0, zone   DMA32  c0 c1 ... c10"; true with the
 * 2M units in *n. */
static bool buddy_line(const char *l, uint64_t *n)
{
	const char *z = strstr(l, "zone");
	const char *nl = strchr(l, '\n');
	unsigned long long c[11];

	if (!z || (nl && z > nl))
		return false;
	z += 4;
	while (*z == ' ')
		z++;
	while (*z && *z != ' ' && *z != '\n')
		z++; /* the zone's name */
	if (sscanf(z, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &c[0], &c[1], &c[2],
		   &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9], &c[10]) != 11)
		return false;
	*n = c[9] + 2 * c[10];
	return true;
}

bool memcheck_buddy_free_2m(const char *text, uint64_t *n)
{
	bool any = false;
	uint64_t z;

	*n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (buddy_line(l, &z)) {
			*n += z;
			any = true;
		}
	return any;
}

bool memcheck_compact_again(int rounds, int max, uint64_t before, uint64_t now, uint64_t need)
{
	if (rounds >= max || now >= need)
		return false;
	return rounds == 0 || now > before;
}

uint64_t memcheck_huge_pct_possible(uint64_t free_2m, uint64_t try_2m)
{
	if (!try_2m)
		return 0;
	return free_2m >= try_2m ? 100 : free_2m * 100 / try_2m;
}

int memcheck_psi(const char *text, const char *kind, struct psi_line *out)
{
	size_t len = strlen(kind);
	unsigned long long total;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, kind, len) || l[len] != ' ')
			continue;
		if (sscanf(l + len, " avg10=%lf avg60=%lf avg300=%lf total=%llu", &out->avg10,
			   &out->avg60, &out->avg300, &total) != 4)
			return -EINVAL;
		out->total_us = total;
		return 0;
	}
	return -EINVAL;
}

int memcheck_size(const char *s, uint64_t memtotal, uint64_t *out)
{
	size_t len = s ? strlen(s) : 0;
	char *end;
	double r;

	if (!len)
		return -EINVAL;
	if (s[len - 1] != 'x')
		return size_parse(s, out);
	errno = 0;
	r = strtod(s, &end);
	if (errno || end != s + len - 1 || !(r > 0) || !isfinite(r))
		return -EINVAL;
	if (r * (double)memtotal >= 18446744073709551615.0)
		return -ERANGE;
	*out = (uint64_t)(r * (double)memtotal) & ~(uint64_t)(MEMCHECK_PAGE - 1);
	return *out ? 0 : -EINVAL;
}

int64_t memcheck_saved_pct(uint64_t before, uint64_t after)
{
	if (!before)
		return 0;
	return (int64_t)(((double)before - (double)after) * 100.0 / (double)before);
}

int memcheck_smaps_huge_kb(FILE *f, uintptr_t addr, uint64_t *kb)
{
	char line[256], want[32];
	bool in = false;

	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		/* an entry's first line is "START-END perms ..." */
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' ') && line[0] != ' ' &&
		    strncmp(line, "AnonHuge", 8))
			in = !strncmp(line, want, strlen(want));
		if (in && sscanf(line, "AnonHugePages: %" SCNu64, kb) == 1)
			return 0;
	}
	return -ENOENT;
}

int memcheck_fail_json(const char *op, const char *fmt, ...)
{
	struct json_out j;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", op);
	json_kv_str(&j, "error", msg);
	json_obj_end(&j);
	json_finish(&j);
	fprintf(stderr, "ktb-mem %s: %s\n", op, msg);
	return 1;
}

int memcheck_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}
