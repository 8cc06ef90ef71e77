/* The machine model as the facts a guest must show: one function per part,
 * a table over them. Paths name members of `ktb-probe machine`'s document;
 * "disks.id=data" is the element of the disks array whose id is data. */
#include "expected.h"
#include "disk_bus.h"

#include "argv.h"
#include "display.h"
#include "memmap.h"
#include "share.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *machine_part_name(enum machine_part p)
{
	const char *n = machine_part_str(p);

	return n ? n : "?";
}

struct facts_ctx {
	const struct machine *m;
	struct machine_facts *out;
	enum machine_part part;
};

static struct machine_fact *fact_new(struct facts_ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static struct machine_fact *fact_new(struct facts_ctx *c, const char *path, const char *fmt, ...)
{
	struct machine_facts *o = c->out;
	struct machine_fact *f;
	va_list ap;

	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 32;
		struct machine_fact *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	f = &o->v[o->n++];
	memset(f, 0, sizeof(*f));
	f->part = c->part;
	snprintf(f->path, sizeof(f->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	return f;
}

/* A fact whose value is the JSON text want. */
static int fact_json(struct facts_ctx *c, const char *path, const char *what, const char *want)
{
	struct machine_fact *f = fact_new(c, path, "%s", what);

	if (!f)
		return -ENOMEM;
	snprintf(f->want, sizeof(f->want), "%s", want);
	return 0;
}

static int fact_uint(struct facts_ctx *c, const char *path, const char *what, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return fact_json(c, path, what, buf);
}

static int fact_bool(struct facts_ctx *c, const char *path, const char *what, bool v)
{
	return fact_json(c, path, what, v ? "true" : "false");
}

/* The memory present (KiB): what was declared, less at most what the
 * firmware keeps (memmap.h). */
static int fact_present(struct facts_ctx *c, const char *path, const char *what, uint64_t bytes,
			int node)
{
	struct machine_fact *f = fact_new(c, path, "%s", what);
	uint64_t kb = bytes / 1024, keep = memmap_reserve_kb(c->m, node);

	if (!f)
		return -ENOMEM;
	f->min = kb > keep ? (int64_t)(kb - keep) : 0;
	f->max = (int64_t)kb;
	return 0;
}

/* "[0,1,2]" */
static void uint_list(char *buf, size_t len, const unsigned *v, unsigned n)
{
	size_t at = (size_t)snprintf(buf, len, "[");

	for (unsigned i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? "," : "", v[i]);
	if (at < len)
		snprintf(buf + at, len - at, "]");
}

static unsigned machine_cpus(const struct machine *m)
{
	return m->cpus ? m->cpus : 1;
}

static int cpus_facts(struct facts_ctx *c)
{
	return fact_uint(c, "cpus.online", "CPUs online", machine_cpus(c->m));
}

/* Present pages, not MemTotal: a mem= cut lowers them, the kernel's own
 * allocations and a balloon do not. */
static int memory_facts(struct facts_ctx *c)
{
	return fact_present(c, "memory.present_kb", "memory present (KiB)", c->m->memory_bytes, -1);
}

static int node_facts(struct facts_ctx *c, const struct numa *nu, unsigned i)
{
	const struct numa_node *nd = &nu->nodes[i];
	char path[96], what[96], list[192];
	int ret;

	snprintf(path, sizeof(path), "numa.nodes.%u.cpus", i);
	snprintf(what, sizeof(what), "node %u CPUs%s", i,
		 nd->cpus_count ? "" : " (a memory-only node)");
	uint_list(list, sizeof(list), nd->cpus, nd->cpus_count);
	ret = fact_json(c, path, what, list);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "numa.nodes.%u.present_kb", i);
	snprintf(what, sizeof(what), "node %u memory present (KiB)", i);
	return fact_present(c, path, what, nd->memory_bytes, (int)i);
}

/* Without a matrix the guest gets the kernel's defaults: 10 local, 20 remote. */
static unsigned distance(const struct numa *nu, unsigned i, unsigned j)
{
	if (nu->distances)
		return nu->distances[i * nu->nodes_count + j];
	return i == j ? 10 : 20;
}

static int distance_facts(struct facts_ctx *c, const struct numa *nu)
{
	unsigned row[MACHINE_MAX_NODES];
	char path[96], what[96], list[192];
	int ret = 0;

	for (unsigned i = 0; i < nu->nodes_count && !ret; i++) {
		for (unsigned j = 0; j < nu->nodes_count; j++)
			row[j] = distance(nu, i, j);
		uint_list(list, sizeof(list), row, nu->nodes_count);
		snprintf(path, sizeof(path), "numa.distances.%u", i);
		snprintf(what, sizeof(what), "node %u distances%s", i,
			 nu->distances ? "" : " (the kernel's defaults)");
		ret = fact_json(c, path, what, list);
	}
	return ret;
}

/* No NUMA in the model: the guest has one node with every CPU. */
static int numa_facts(struct facts_ctx *c)
{
	const struct numa *nu = c->m->numa;
	int ret;

	if (!nu)
		return fact_uint(c, "numa.node_count", "NUMA nodes", 1);
	ret = fact_uint(c, "numa.node_count", "NUMA nodes", nu->nodes_count);
	for (unsigned i = 0; i < nu->nodes_count && !ret; i++)
		ret = node_facts(c, nu, i);
	return ret ? ret : distance_facts(c, nu);
}

/* The node the kernel reports access0 from for target t: t itself when it
 * has CPUs, else the first node with CPUs (QEMU names it the initiator). */
static unsigned local_initiator(const struct numa *nu, unsigned t)
{
	if (nu->nodes[t].cpus_count)
		return t;
	for (unsigned i = 0; i < nu->nodes_count; i++)
		if (nu->nodes[i].cpus_count)
			return i;
	return t;
}

static int hmat_lb_facts(struct facts_ctx *c, const struct hmat_lb *lb)
{
	static const char *const lat[] = { "read_latency", "write_latency" };
	static const char *const bw[] = { "read_bandwidth", "write_bandwidth" };
	char path[96], what[96];
	int ret = 0;

	for (unsigned k = 0; k < 2 && !ret; k++) {
		if (lb->latency) {
			snprintf(path, sizeof(path), "numa.nodes.%u.access0.%s", lb->target,
				 lat[k]);
			snprintf(what, sizeof(what), "node %u %s from node %u (ns)", lb->target,
				 lat[k], lb->initiator);
			ret = fact_uint(c, path, what, lb->latency);
		}
		if (!ret && lb->bandwidth) {
			snprintf(path, sizeof(path), "numa.nodes.%u.access0.%s", lb->target, bw[k]);
			snprintf(what, sizeof(what), "node %u %s from node %u (MB/s)", lb->target,
				 bw[k], lb->initiator);
			ret = fact_uint(c, path, what, lb->bandwidth_bytes / HW_MIB);
		}
	}
	return ret;
}

/* The kernel's codes for a cache's indexing and write policy. */
static unsigned word_code(const char *w, const char *const *words, unsigned dflt)
{
	for (unsigned i = 0; w && words[i]; i++)
		if (!strcmp(w, words[i]))
			return i;
	return dflt;
}

static int hmat_cache_facts(struct facts_ctx *c, const struct hmat_cache *hc)
{
	static const char *const indexing[] = { "direct", "complex", "none", NULL };
	static const char *const policy[] = { "write-back", "write-through", "none", NULL };
	const struct {
		const char *key;
		uint64_t v;
	} attrs[] = {
		{ "size", hc->size_bytes },
		{ "line_size", hc->line ? hc->line : 64 },
		{ "indexing", word_code(hc->associativity, indexing, 0) },
		{ "write_policy", word_code(hc->policy, policy, 0) },
	};
	char path[96], what[96];
	unsigned level = hc->level ? hc->level : 1;
	int ret = 0;

	for (size_t k = 0; k < sizeof(attrs) / sizeof(attrs[0]) && !ret; k++) {
		snprintf(path, sizeof(path), "numa.nodes.%u.caches.%u.%s", hc->node, level - 1,
			 attrs[k].key);
		snprintf(what, sizeof(what), "node %u level-%u memory-side cache %s", hc->node,
			 level, attrs[k].key);
		ret = fact_uint(c, path, what, attrs[k].v);
	}
	return ret;
}

/* The guest shows one initiator's view of each target, its local one. */
static int hmat_facts(struct facts_ctx *c)
{
	const struct numa *nu = c->m->numa;
	int ret = 0;

	if (!nu)
		return 0;
	for (unsigned k = 0; k < nu->hmat_count && !ret; k++)
		if (nu->hmat[k].target < nu->nodes_count &&
		    nu->hmat[k].initiator == local_initiator(nu, nu->hmat[k].target))
			ret = hmat_lb_facts(c, &nu->hmat[k]);
	for (unsigned k = 0; k < nu->caches_count && !ret; k++)
		ret = hmat_cache_facts(c, &nu->caches[k]);
	return ret;
}

/* paths > 1: native NVMe multipath is a head over N live controllers,
 * SCSI a dm-multipath device over N active paths; one path is no
 * multipath device at all. */
/* A dm-multipath disk's mode and no_path policy, as declared or by default
 * (rq, queue): the probe reads them from the dm device and its table. */
static int disk_dm_facts(struct facts_ctx *c, const struct disk *d, const char *base)
{
	const struct multipath *mp = d->multipath;
	const char *mode = multipath_mode_name(mp ? mp->mode : MULTIPATH_RQ);
	const char *no_path = multipath_no_path_name(mp ? mp->no_path : MULTIPATH_QUEUE);
	char path[96], what[96], want[32];
	int ret;

	snprintf(path, sizeof(path), "%s.multipath.mode", base);
	snprintf(what, sizeof(what), "disk %s multipath mode", d->id);
	snprintf(want, sizeof(want), "\"%s\"", mode ? mode : "?");
	ret = fact_json(c, path, what, want);
	snprintf(path, sizeof(path), "%s.multipath.no_path", base);
	snprintf(what, sizeof(what), "disk %s multipath no_path", d->id);
	snprintf(want, sizeof(want), "\"%s\"", no_path ? no_path : "?");
	return ret ? ret : fact_json(c, path, what, want);
}

static int disk_mp_facts(struct facts_ctx *c, const struct disk *d, const char *base)
{
	char path[96], what[96];
	int ret;

	snprintf(path, sizeof(path), "%s.multipath", base);
	if (d->paths <= 1) {
		snprintf(what, sizeof(what), "disk %s multipath device (one path: none)", d->id);
		return fact_json(c, path, what, "null");
	}
	snprintf(path, sizeof(path), "%s.multipath.kind", base);
	snprintf(what, sizeof(what), "disk %s multipath kind", d->id);
	ret = fact_json(c, path, what,
			disk_bus_info(d->bus)->multipath == DISK_MP_NVME ? "\"nvme\"" : "\"dm\"");
	if (!ret && disk_bus_info(d->bus)->multipath == DISK_MP_DM)
		ret = disk_dm_facts(c, d, base);
	snprintf(path, sizeof(path), "%s.multipath.paths", base);
	snprintf(what, sizeof(what), "disk %s paths", d->id);
	if (!ret)
		ret = fact_uint(c, path, what, d->paths);
	snprintf(path, sizeof(path), "%s.multipath.active", base);
	snprintf(what, sizeof(what), "disk %s paths live", d->id);
	return ret ? ret : fact_uint(c, path, what, d->paths);
}

static int disk_facts(struct facts_ctx *c, const struct disk *d)
{
	char base[64], path[96], what[96], want[64];
	struct machine_fact *f;
	int ret;

	snprintf(base, sizeof(base), "disks.id=%s", d->id);
	snprintf(path, sizeof(path), "%s.id", base);
	snprintf(want, sizeof(want), "\"%s\"", d->id);
	f = fact_new(c, path, "disk %s (%s, %s)", d->id, disk_bus_name(d->bus), d->size);
	if (!f)
		return -ENOMEM;
	snprintf(f->want, sizeof(f->want), "%s", want);
	f->presence = true;
	snprintf(path, sizeof(path), "%s.bus", base);
	snprintf(what, sizeof(what), "disk %s bus", d->id);
	snprintf(want, sizeof(want), "\"%s\"", disk_bus_info(d->bus)->guest_bus);
	ret = fact_json(c, path, what, want);
	snprintf(path, sizeof(path), "%s.size_bytes", base);
	snprintf(what, sizeof(what), "disk %s size (bytes)", d->id);
	if (!ret)
		ret = fact_uint(c, path, what, d->size_bytes);
	snprintf(path, sizeof(path), "%s.logical_block_size", base);
	snprintf(what, sizeof(what), "disk %s logical block size", d->id);
	if (!ret)
		ret = fact_uint(c, path, what, disk_sector_logical(d->sector));
	snprintf(path, sizeof(path), "%s.physical_block_size", base);
	snprintf(what, sizeof(what), "disk %s physical block size", d->id);
	if (!ret)
		ret = fact_uint(c, path, what, disk_sector_physical(d->sector));
	snprintf(path, sizeof(path), "%s.zoned", base);
	snprintf(what, sizeof(what), "disk %s zoned model", d->id);
	if (!ret)
		ret = fact_json(c, path, what, d->zoned ? "\"host-managed\"" : "\"none\"");
	/* only some devices (scsi-hd, ide-hd) tell the guest whether they rotate */
	if (disk_bus_info(d->bus)->rotation) {
		snprintf(path, sizeof(path), "%s.rotational", base);
		snprintf(what, sizeof(what), "disk %s rotational", d->id);
		if (!ret)
			ret = fact_bool(c, path, what, d->rotational);
	}
	return ret ? ret : disk_mp_facts(c, d, base);
}

static int disks_facts(struct facts_ctx *c)
{
	int ret = 0;

	for (unsigned i = 0; i < c->m->disks_count && !ret; i++)
		ret = disk_facts(c, &c->m->disks[i]);
	return ret;
}

/* The balloon is there when virtio_balloon drives it, absent otherwise;
 * free page reporting is a feature the driver negotiates. */
static int balloon_facts(struct facts_ctx *c)
{
	const struct balloon *b = c->m->balloon;
	int ret =
	    fact_bool(c, "balloon.driver", "virtio balloon (driven by virtio_balloon)", b != NULL);

	if (!ret && b)
		ret = fact_bool(c, "balloon.free_page_reporting", "balloon free page reporting",
				b->free_page_reporting);
	return ret;
}

/* S3: "deep" in /sys/power/mem_sleep; S4: "platform" in /sys/power/disk
 * (the kernel offers it only when the firmware's ACPI tables have S4). */
static int sleep_facts(struct facts_ctx *c)
{
	int ret =
	    fact_bool(c, "sleep.s3", "S3 (deep in /sys/power/mem_sleep)", c->m->sleep & SLEEP_S3);

	if (!ret)
		ret = fact_bool(c, "sleep.s4", "S4 (platform in /sys/power/disk)",
				c->m->sleep & SLEEP_S4);
	return ret;
}

/* The display adapter on the guest's PCI bus (class 03), or none: a
 * machine without display: must not have gained one. */
static int display_facts(struct facts_ctx *c)
{
	const char *pci = display_pci_fact(c->m);
	char want[64];

	if (pci)
		snprintf(want, sizeof(want), "[\"%s\"]", pci);
	else
		snprintf(want, sizeof(want), "[]");
	return fact_json(c, "display.pci", "display adapters (PCI vendor:device class)", want);
}

/* Each share mounted at its guest path, read-only or not as declared; the
 * probe lists 9p mounts by their tag (the mount's source). */
static int share_facts(struct facts_ctx *c, unsigned i)
{
	const struct share *sh = &c->m->shares[i];
	char tag[16], path[96], what[48];
	struct machine_fact *f;

	share_tag(i, tag, sizeof(tag));
	snprintf(path, sizeof(path), "shares.tag=%s.path", tag);
	f = fact_new(c, path, "share %s mounted at its guest path", tag);
	if (!f)
		return -ENOMEM;
	/* the guest path is plain (shares_validate): quoted, it is JSON */
	snprintf(f->want, sizeof(f->want), "\"%.180s\"", sh->guest);
	f->presence = true;
	snprintf(path, sizeof(path), "shares.tag=%s.fstype", tag);
	f = fact_new(c, path, "share %s transport (its fstype in /proc/mounts)", tag);
	if (!f)
		return -ENOMEM;
	snprintf(f->want, sizeof(f->want), "\"%s\"", share_transport(sh));
	snprintf(path, sizeof(path), "shares.tag=%s.readonly", tag);
	snprintf(what, sizeof(what), "share %s read-only", tag);
	return fact_bool(c, path, what, !sh->writable);
}

static int shares_facts(struct facts_ctx *c)
{
	int ret = 0;

	for (unsigned i = 0; i < c->m->shares_count && !ret; i++)
		ret = share_facts(c, i);
	return ret;
}

static int (*const part_facts[MACHINE_PART_COUNT])(struct facts_ctx *c) = {
	[MACHINE_PART_CPUS] = cpus_facts,	[MACHINE_PART_MEMORY] = memory_facts,
	[MACHINE_PART_NUMA] = numa_facts,	[MACHINE_PART_DISKS] = disks_facts,
	[MACHINE_PART_BALLOON] = balloon_facts, [MACHINE_PART_HMAT] = hmat_facts,
	[MACHINE_PART_SLEEP] = sleep_facts,	[MACHINE_PART_DISPLAY] = display_facts,
	[MACHINE_PART_SHARES] = shares_facts,
};

int machine_expected_facts(const struct machine *m, struct machine_facts *out)
{
	struct facts_ctx c = { .m = m, .out = out };
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned p = 0; p < MACHINE_PART_COUNT && !ret; p++) {
		c.part = (enum machine_part)p;
		ret = part_facts[p](&c);
	}
	if (ret)
		machine_facts_free(out);
	return ret;
}

void machine_facts_free(struct machine_facts *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}
