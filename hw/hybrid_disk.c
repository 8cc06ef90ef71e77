/* Disks on bus hybrid: their settings, the shared guest RAM their back end
 * needs, and the command line of that back end (ktb-hybrid). */
#include "hybrid_disk.h"
#include "share.h"

#include "disk_bus.h"
#include "disk_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HYBRID_DEFAULT_CACHE "64M"
#define HYBRID_DEFAULT_WCACHE "8M"
#define HYBRID_DEFAULT_RPM 5400
#define HYBRID_DEFAULT_PROMOTE 2
#define HYBRID_MAX_PINS 8
#define HYBRID_CHUNK (64 * HW_KIB)

bool machine_has_hybrid(const struct machine *m)
{
	for (unsigned i = 0; i < m->disks_count; i++)
		if (disk_bus_info(m->disks[i].bus)->backend)
			return true;
	return false;
}

/* "OFFSET+LENGTH", both sizes, inside the disk. */
static int range_check(const struct disk *d, const char *s, const char *f, struct hw_error *err)
{
	char a[64];
	const char *plus = s ? strchr(s, '+') : NULL;
	uint64_t off, len;

	if (!plus || (size_t)(plus - s) >= sizeof(a))
		return hw_fail(err, f, "\"%s\" is not a range; write OFFSET+LENGTH, e.g. 0+16M",
			       s ? s : "");
	memcpy(a, s, (size_t)(plus - s));
	a[plus - s] = '\0';
	if (hw_parse_size(a, &off) < 0 || hw_parse_size(plus + 1, &len) < 0 || !len)
		return hw_fail(err, f,
			       "\"%s\" is not a range; write OFFSET+LENGTH with sizes "
			       "such as 1M+4M",
			       s);
	if (off > d->size_bytes || len > d->size_bytes - off)
		return hw_fail(err, f, "%s reaches past the end of the %s disk", s, d->size);
	return 0;
}

static int hybrid_sizes(struct disk *d, struct hybrid *h, const char *base, struct hw_error *err)
{
	char f[96];
	int ret;

	snprintf(f, sizeof(f), "%s.cache", base);
	ret = hw_size_field(h->cache ? h->cache : HYBRID_DEFAULT_CACHE, &h->cache_bytes, f, err);
	if (ret < 0)
		return ret;
	if (h->cache_bytes % HYBRID_CHUNK || h->cache_bytes > d->size_bytes)
		return hw_fail(err, f,
			       "the flash tier is a multiple of 64K no larger than the "
			       "disk (%s)",
			       d->size);
	snprintf(f, sizeof(f), "%s.write_cache", base);
	if (h->write_cache && !strcmp(h->write_cache, "0")) { /* write-through */
		h->write_cache_bytes = 0;
		return 0;
	}
	ret = hw_size_field(h->write_cache ? h->write_cache : HYBRID_DEFAULT_WCACHE,
			    &h->write_cache_bytes, f, err);
	if (ret < 0)
		return ret;
	if (h->write_cache_bytes % (4 * HW_KIB))
		return hw_fail(err, f, "the write cache is a whole number of 4K blocks");
	return 0;
}

int hybrid_validate(struct disk *d, unsigned i, struct hw_error *err)
{
	struct hybrid *h = d->hybrid;
	char base[64], f[96];
	int ret;

	snprintf(base, sizeof(base), "machine.disks[%u].hybrid", i);
	if (!h)
		return 0;
	if (!disk_bus_info(d->bus)->backend)
		return hw_fail(err, base, "hybrid settings belong to a disk on bus: hybrid");
	ret = hybrid_sizes(d, h, base, err);
	if (ret < 0)
		return ret;
	snprintf(f, sizeof(f), "%s.model", base);
	if (!hybrid_model_name(h->model))
		return hw_fail(err, f, "unknown model");
	snprintf(f, sizeof(f), "%s.rpm", base);
	if (h->rpm && (h->rpm < 1000 || h->rpm > 20000))
		return hw_fail(err, f, "%u rpm; real drives spin at 1000 to 20000", h->rpm);
	snprintf(f, sizeof(f), "%s.promote_after", base);
	if (h->promote_after > 255)
		return hw_fail(err, f, "%u; give 1 to 255 reads", h->promote_after);
	snprintf(f, sizeof(f), "%s.pin", base);
	if (h->pin_count > HYBRID_MAX_PINS)
		return hw_fail(err, f, "%u ranges; at most %d", h->pin_count, HYBRID_MAX_PINS);
	for (unsigned k = 0; k < h->pin_count; k++) {
		snprintf(f, sizeof(f), "%s.pin[%u]", base, k);
		ret = range_check(d, h->pin[k], f, err);
		if (ret < 0)
			return ret;
	}
	snprintf(f, sizeof(f), "%s.fail_writes", base);
	ret = h->fail_writes ? range_check(d, h->fail_writes, f, err) : 0;
	if (ret < 0)
		return ret;
	snprintf(f, sizeof(f), "%s.fail_reads", base);
	return h->fail_reads ? range_check(d, h->fail_reads, f, err) : 0;
}

bool machine_shared_ram(const struct machine *m)
{
	return machine_has_hybrid(m) || machine_has_virtiofs(m);
}

int hybrid_memory_args(const struct machine *m, struct argv *a)
{
	if (!machine_shared_ram(m) || m->numa) /* NUMA nodes get memfd backends */
		return 0;
	argv_add(a, "-object");
	argv_addf(a, "memory-backend-memfd,id=ram0,size=%llu,share=on",
		  (unsigned long long)m->memory_bytes);
	return argv_add_list(a, (const char *const[]){ "-machine", "memory-backend=ram0", NULL });
}

/* opt, then path (owned; NULL after a failed allocation) */
static int add_path_opt(struct argv *a, const char *opt, char *path)
{
	argv_add(a, opt);
	return argv_take(a, path);
}

static int hybrid_model_args(const struct hybrid *h, struct argv *a)
{
	argv_add(a, "--model");
	argv_add(a, hybrid_model_name(h->model));
	argv_add(a, "--cache");
	argv_addf(a, "%llu", (unsigned long long)h->cache_bytes);
	argv_add(a, "--wcache");
	argv_addf(a, "%llu", (unsigned long long)h->write_cache_bytes);
	argv_add(a, "--rpm");
	argv_addf(a, "%u", h->rpm ? h->rpm : HYBRID_DEFAULT_RPM);
	argv_add(a, "--promote-after");
	argv_addf(a, "%u", h->promote_after ? h->promote_after : HYBRID_DEFAULT_PROMOTE);
	for (unsigned k = 0; k < h->pin_count; k++) {
		argv_add(a, "--pin");
		argv_add(a, h->pin[k]);
	}
	if (h->ignore_flushes)
		argv_add(a, "--ignore-flush");
	if (h->fail_writes) {
		argv_add(a, "--fail-writes");
		argv_add(a, h->fail_writes);
	}
	if (h->fail_reads) {
		argv_add(a, "--fail-reads");
		argv_add(a, h->fail_reads);
	}
	return a->err;
}

int hybrid_backend_argv(const struct disk *d, const struct hw_launch *l, const char *binary,
			struct argv *out)
{
	struct hybrid defaults = { .cache_bytes = 64 * HW_MIB, .write_cache_bytes = 8 * HW_MIB };
	int ret;

	/* with no settings the flash tier is at most half the disk */
	if (defaults.cache_bytes > d->size_bytes / 2)
		defaults.cache_bytes = d->size_bytes / 2 / HYBRID_CHUNK * HYBRID_CHUNK;
	argv_init(out);
	argv_add(out, binary);
	add_path_opt(out, "--socket", machine_hybrid_path(l, d, "vhost"));
	add_path_opt(out, "--ctl", machine_hybrid_path(l, d, "ctl"));
	add_path_opt(out, "--image", machine_disk_path(l, d));
	add_path_opt(out, "--flash", machine_hybrid_path(l, d, "flash"));
	argv_add_list(out, (const char *const[]){ "--serial", d->id, "--sector",
						  disk_sector_name(d->sector), NULL });
	ret = hybrid_model_args(d->hybrid ? d->hybrid : &defaults, out);
	if (ret < 0)
		argv_free(out);
	return ret;
}
