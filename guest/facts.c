#include "facts.h"

#include "disk.h"
#include "mpath.h"
#include "sysfs.h"
#include "unread.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define FACTS_MAX_CPUS 1024
#define FACTS_MAX_NODES 64

int facts_kernel(const char *root, struct json_out *j)
{
	char path[PATH_MAX], cmdline[4096];
	struct utsname u;

	if (uname(&u))
		return -errno;
	json_kv_str(j, "release", u.release);
	json_kv_str(j, "version", u.version);
	snprintf(path, sizeof(path), "%s/proc/cmdline", root);
	if (sysfs_read(path, cmdline, sizeof(cmdline)) < 0)
		cmdline[0] = '\0';
	json_kv_str(j, "cmdline", cmdline);
	return 0;
}

/* Counts the CPUs in a cpulist file; -errno when it cannot be read. */
static int facts_count_cpus(const char *root, const char *file, char *list, size_t len)
{
	static unsigned cpus[FACTS_MAX_CPUS];
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s", root, file);
	ret = sysfs_read(path, list, len);
	if (ret < 0)
		return ret;
	return sysfs_parse_cpulist(list, cpus, FACTS_MAX_CPUS);
}

int facts_cpus(const char *root, struct json_out *j)
{
	char online[512], possible[512];
	int n_online, n_possible;

	n_online = facts_count_cpus(root, "online", online, sizeof(online));
	if (n_online < 0) {
		unread_note("cpus", root, "/sys/devices/system/cpu/online", n_online);
		return n_online;
	}
	n_possible = facts_count_cpus(root, "possible", possible, sizeof(possible));
	json_kv_u64(j, "online", (uint64_t)n_online);
	json_kv_str(j, "list", online);
	/* unread is null, not the online count: that would pass a possible: N */
	json_key(j, "possible");
	if (n_possible < 0)
		json_null(j);
	else
		json_u64(j, (uint64_t)n_possible);
	return 0;
}

/* Finds "<key>: <N> kB" in a meminfo-style file; per-node files prefix each
 * line with "Node <n> ", which strstr skips over. */
static int facts_meminfo(const char *path, const char *key, uint64_t *kb)
{
	char line[256], *p;
	size_t klen = strlen(key);
	int ret = -ENOENT;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, key);
		if (!p || p[klen] != ':')
			continue;
		if (sscanf(p + klen + 1, "%" SCNu64, kb) == 1)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int facts_zoneinfo(const char *root, uint64_t *present_kb, int max)
{
	char path[PATH_MAX], line[256], zone[32];
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	uint64_t pages;
	int node = -1, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root);
	f = fopen(path, "re");
	if (!f) {
		int err = -errno;

		unread_note("memory", root, path, err);
		unread_note("numa", root, path, err);
		return err;
	}
	for (int i = 0; i < max; i++)
		present_kb[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &node, zone) == 2) {
			if (node < 0 || node >= max)
				node = -1;
			else if (node + 1 > n)
				n = node + 1;
		} else if (node >= 0 && sscanf(line, " present %" SCNu64, &pages) == 1) {
			present_kb[node] += pages * (uint64_t)page_kb;
		}
	}
	fclose(f);
	return n ? n : -ENODATA;
}

/* Every node's present pages, summed; -errno when zoneinfo cannot be read. */
static int facts_present_total(const char *root, uint64_t *kb)
{
	uint64_t nodes[FACTS_MAX_NODES];
	int n = facts_zoneinfo(root, nodes, FACTS_MAX_NODES);

	*kb = 0;
	for (int i = 0; i < n; i++)
		*kb += nodes[i];
	return n < 0 ? n : 0;
}

int facts_memory(const char *root, struct json_out *j)
{
	uint64_t total, free_kb, avail, present;
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	ret = facts_meminfo(path, "MemTotal", &total);
	if (ret) {
		unread_note("memory", root, path, ret);
		return ret;
	}
	json_kv_u64(j, "total_kb", total);
	json_kv_u64(j, "total_mb", total / 1024);
	ret = facts_present_total(root, &present);
	json_kv_u64_or_null(j, "present_kb", !ret, present);
	/* a line that is missing is null: not 0, not another line's value */
	json_key(j, "free_kb");
	if (facts_meminfo(path, "MemFree", &free_kb))
		json_null(j);
	else
		json_u64(j, free_kb);
	json_key(j, "available_kb");
	if (facts_meminfo(path, "MemAvailable", &avail))
		json_null(j);
	else
		json_u64(j, avail);
	return 0;
}

/* dm's own view of each path comes from `dmsetup status`, its features
 * (queue_if_no_path) from `dmsetup table`, in the guest only (a fake tree
 * in a unit test has no dm to ask). */
static char *facts_dmsetup(const char *root, const char *what, const char *name)
{
	char cmd[128], *buf;
	size_t n = 0;
	FILE *p;

	if (root[0] || !name[0] ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name))
		return NULL;
	snprintf(cmd, sizeof(cmd), "dmsetup %s %s 2>/dev/null", what, name);
	buf = calloc(1, 4096);
	p = buf ? popen(cmd, "re") : NULL;
	if (p) {
		n = fread(buf, 1, 4095, p);
		pclose(p);
	}
	if (!n) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void facts_disk_paths(const struct mpath_info *mp, struct json_out *j)
{
	json_key(j, "list");
	json_arr_begin(j);
	for (int i = 0; i < mp->npaths; i++) {
		const struct mpath_path *p = &mp->paths[i];
		char dm[2] = { p->dm, 0 };

		json_obj_begin(j);
		json_kv_i64(j, "path", p->path);
		json_kv_str(j, "name", p->name);
		json_kv_str(j, "majmin", p->majmin);
		json_kv_str(j, "state", p->state);
		json_kv_str(j, "dm", p->dm ? dm : NULL);
		json_kv_bool(j, "active", p->active);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* "multipath": {kind, name, mode, paths, active, list}, or null. */
static void facts_disk_multipath(const char *root, const struct disk_info *d, struct json_out *j)
{
	struct mpath_info mp;
	char name[64] = "", path[PATH_MAX], *status, *table;
	const char *no_path;

	snprintf(path, sizeof(path), "%s/sys/block/%s/dm/name", root, d->name);
	if (!strncmp(d->name, "dm-", 3) && sysfs_read(path, name, sizeof(name)) < 0)
		name[0] = '\0';
	status = facts_dmsetup(root, "status", name);
	mpath_read(root, d, status, &mp);
	free(status);
	table = mp.kind[0] && !strcmp(mp.kind, "dm") ? facts_dmsetup(root, "table", name) : NULL;
	no_path = mpath_dm_no_path(table);
	free(table);
	json_key(j, "multipath");
	if (!mp.kind[0]) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_str(j, "kind", mp.kind);
	json_kv_str(j, "name", mp.name);
	json_kv_str(j, "mode", mp.mode[0] ? mp.mode : NULL);
	json_kv_str(j, "no_path", no_path);
	json_kv_u64(j, "paths", (uint64_t)mp.npaths);
	json_kv_u64(j, "active", (uint64_t)mp.nactive);
	facts_disk_paths(&mp, j);
	json_obj_end(j);
}

static void facts_disk_members(const char *root, const struct disk_info *d, struct json_out *j)
{
	json_kv_str(j, "id", d->id[0] ? d->id : NULL);
	json_kv_str(j, "name", d->name);
	json_kv_str(j, "dev", d->dev);
	json_kv_u64(j, "size_bytes", d->size_bytes);
	json_kv_u64_or_null(j, "logical_block_size", !(d->unread & DISK_UNREAD_LBS),
			    d->logical_block_size);
	json_kv_u64_or_null(j, "physical_block_size", !(d->unread & DISK_UNREAD_PBS),
			    d->physical_block_size);
	if (d->unread & DISK_UNREAD_ROTATIONAL)
		json_kv_u64_or_null(j, "rotational", false, 0);
	else
		json_kv_bool(j, "rotational", d->rotational);
	json_kv_str(j, "zoned", d->unread & DISK_UNREAD_ZONED ? NULL : d->zoned);
	json_kv_u64_or_null(j, "zones", !(d->unread & DISK_UNREAD_ZONES), d->nr_zones);
	json_kv_str(j, "serial", d->id);
	json_kv_str(j, "transport", d->transport);
	json_kv_str(j, "bus", d->bus);
	json_kv_str(j, "majmin", d->majmin);
	facts_disk_multipath(root, d, j);
}

int facts_disks(const char *root, struct json_out *j)
{
	struct disk_info *d;
	int n, i;

	d = calloc(DISK_MAX, sizeof(*d));
	if (!d)
		return -ENOMEM;
	n = disk_scan(root, d, DISK_MAX);
	if (n < 0)
		unread_note("disks", root, "/sys/block", n);
	json_key(j, "disks");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		json_obj_begin(j);
		facts_disk_members(root, &d[i], j);
		json_obj_end(j);
	}
	json_arr_end(j);
	free(d);
	return n < 0 ? n : 0;
}

int facts_disk(const char *root, const char *id, struct json_out *j)
{
	struct disk_info d;
	int ret;

	ret = disk_find(root, id, &d);
	if (ret)
		return ret;
	facts_disk_members(root, &d, j);
	return 0;
}

static int facts_node_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Node ids from /sys/devices/system/node/node<N>, sorted; -errno when the
 * kernel has no NUMA support at all. */
static int facts_node_ids(const char *root, int *ids, int max)
{
	char path[PATH_MAX], tail;
	struct dirent *de;
	int n = 0, id;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/devices/system/node", root);
	dir = opendir(path);
	if (!dir) {
		int err = -errno;

		/* a kernel without NUMA has no folder: one flat node */
		if (!unread_absent(root, err))
			unread_note("numa", root, path, err);
		return err;
	}
	while (n < max && (de = readdir(dir)))
		if (sscanf(de->d_name, "node%d%c", &id, &tail) == 1)
			ids[n++] = id;
	closedir(dir);
	qsort(ids, n, sizeof(*ids), facts_node_cmp);
	return n;
}

static void facts_u32_array(struct json_out *j, const unsigned *v, int n)
{
	int i;

	json_arr_begin(j);
	for (i = 0; i < n; i++)
		json_u64(j, v[i]);
	json_arr_end(j);
}

/* HMAT as the kernel shows it: nodeN/access0/initiators/ (the best
 * initiator's view of this node's memory) and nodeN/memory_side_cache/. */
static void facts_node_access(const char *root, int id, struct json_out *j)
{
	static const char *const attrs[] = { "read_latency", "write_latency", "read_bandwidth",
					     "write_bandwidth" };
	char path[PATH_MAX];
	struct stat st;
	uint64_t v;
	int ret;

	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d/access0", root, id);
	if (stat(path, &st)) {
		if (errno != ENOENT) /* ENOENT: no HMAT for this node */
			unread_note("hmat", root, path, -errno);
		return;
	}
	json_key(j, "access0");
	json_obj_begin(j);
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path),
			 "%s/sys/devices/system/node/node%d/access0/initiators/%s", root, id,
			 attrs[i]);
		ret = sysfs_read_u64(path, &v);
		if (!ret)
			json_kv_u64(j, attrs[i], v);
		else if (ret != -ENOENT) /* the kernel shows only what HMAT gave */
			unread_note("hmat", root, path, ret);
	}
	json_obj_end(j);
}

static void facts_node_cache(const char *dir, struct json_out *j)
{
	static const char *const attrs[] = { "size", "line_size", "indexing", "write_policy" };
	char path[PATH_MAX + 32];
	uint64_t v;

	json_obj_begin(j);
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, attrs[i]);
		if (!sysfs_read_u64(path, &v))
			json_kv_u64(j, attrs[i], v);
	}
	json_obj_end(j);
}

/* caches: [level 1, level 2, ...] from memory_side_cache/indexN. */
static void facts_node_caches(const char *root, int id, struct json_out *j)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/sys/devices/system/node/node%d/memory_side_cache", root, id);
	if (stat(dir, &st)) {
		if (errno != ENOENT) /* ENOENT: no memory-side cache */
			unread_note("hmat", root, dir, -errno);
		return;
	}
	json_key(j, "caches");
	json_arr_begin(j);
	for (int level = 1; level <= 3; level++) {
		snprintf(dir, sizeof(dir),
			 "%s/sys/devices/system/node/node%d/memory_side_cache/"
			 "index%d",
			 root, id, level);
		if (stat(dir, &st))
			break;
		facts_node_cache(dir, j);
	}
	json_arr_end(j);
}

/* present: each node's present memory (KiB) from zoneinfo, n of them
 * (n < 0: zoneinfo unread) */
static void facts_node(const char *root, int id, const uint64_t *present, int n_present,
		       struct json_out *j)
{
	static unsigned cpus[FACTS_MAX_CPUS];
	char path[PATH_MAX], list[1024];
	uint64_t kb = 0;
	int n = -1, mem;

	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d/cpulist", root, id);
	mem = sysfs_read(path, list, sizeof(list));
	if (mem >= 0)
		n = sysfs_parse_cpulist(list, cpus, FACTS_MAX_CPUS);
	else
		unread_note("numa", root, path, mem);
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d/meminfo", root, id);
	mem = facts_meminfo(path, "MemTotal", &kb);
	if (mem)
		unread_note("numa", root, path, mem);
	json_obj_begin(j);
	json_kv_u64(j, "id", (uint64_t)id);
	/* unread is null: [] would pass for a CPU-less node, 0 for {le: N} */
	json_key(j, "cpus");
	if (n < 0)
		json_null(j);
	else
		facts_u32_array(j, cpus, n);
	json_key(j, "memory_kb");
	mem ? json_null(j) : json_u64(j, kb);
	json_key(j, "memory_mb");
	mem ? json_null(j) : json_u64(j, kb / 1024);
	/* a node zoneinfo does not list has no zones: nothing present */
	json_kv_u64_or_null(j, "present_kb", n_present >= 0, id < n_present ? present[id] : 0);
	facts_node_access(root, id, j);
	facts_node_caches(root, id, j);
	json_obj_end(j);
}

static void facts_distances(const char *root, const int *ids, int n, struct json_out *j)
{
	unsigned dist[FACTS_MAX_NODES];
	char path[PATH_MAX], line[512], *p, *end;
	int i, k, r;

	json_key(j, "distances");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/node/node%d/distance", root,
			 ids[i]);
		k = 0;
		r = sysfs_read(path, line, sizeof(line));
		if (r < 0)
			unread_note("numa", root, path, r);
		else
			for (p = line; k < FACTS_MAX_NODES; p = end) {
				dist[k] = (unsigned)strtoul(p, &end, 10);
				if (end == p)
					break;
				k++;
			}
		facts_u32_array(j, dist, k);
	}
	json_arr_end(j);
}

/* A kernel without CONFIG_NUMA still has one node holding everything. */
static int facts_numa_flat(const char *root, struct json_out *j)
{
	static unsigned cpus[FACTS_MAX_CPUS];
	static const unsigned local = 10;
	char path[PATH_MAX], list[1024];
	uint64_t kb = 0;
	int n;

	n = facts_count_cpus(root, "online", list, sizeof(list));
	sysfs_parse_cpulist(list, cpus, FACTS_MAX_CPUS);
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	facts_meminfo(path, "MemTotal", &kb);
	json_kv_u64(j, "node_count", 1);
	json_key(j, "nodes");
	json_arr_begin(j);
	json_obj_begin(j);
	json_kv_u64(j, "id", 0);
	json_key(j, "cpus");
	facts_u32_array(j, cpus, n < 0 ? 0 : n);
	json_kv_u64(j, "memory_kb", kb);
	json_kv_u64(j, "memory_mb", kb / 1024);
	n = facts_present_total(root, &kb);
	json_kv_u64_or_null(j, "present_kb", !n, kb);
	json_obj_end(j);
	json_arr_end(j);
	json_key(j, "distances");
	json_arr_begin(j);
	facts_u32_array(j, &local, 1);
	json_arr_end(j);
	return 0;
}

int facts_numa(const char *root, struct json_out *j)
{
	int ids[FACTS_MAX_NODES], n, i, n_present;
	uint64_t present[FACTS_MAX_NODES];

	n = facts_node_ids(root, ids, FACTS_MAX_NODES);
	if (n <= 0)
		return facts_numa_flat(root, j);
	n_present = facts_zoneinfo(root, present, FACTS_MAX_NODES);
	json_kv_u64(j, "node_count", (uint64_t)n);
	json_key(j, "nodes");
	json_arr_begin(j);
	for (i = 0; i < n; i++)
		facts_node(root, ids[i], present, n_present, j);
	json_arr_end(j);
	facts_distances(root, ids, n, j);
	return 0;
}

/* Writes the words of a /sys/power file as an array; the [bracketed] word is
 * the current choice and is written, bare, to *current. */
static void facts_power_list(const char *root, const char *file, const char *key, char *current,
			     size_t len, struct json_out *j)
{
	char path[PATH_MAX], buf[512], *word, *save = NULL;
	size_t wl;

	current[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/power/%s", root, file);
	if (sysfs_read(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	json_key(j, key);
	json_arr_begin(j);
	for (word = strtok_r(buf, " \n", &save); word; word = strtok_r(NULL, " \n", &save)) {
		wl = strlen(word);
		if (word[0] == '[' && wl > 2 && word[wl - 1] == ']') {
			word[wl - 1] = '\0';
			word++;
			snprintf(current, len, "%s", word);
		}
		json_str(j, word);
	}
	json_arr_end(j);
}

int facts_sleep(const char *root, struct json_out *j)
{
	char cur[64];

	facts_power_list(root, "state", "states", cur, sizeof(cur), j);
	facts_power_list(root, "mem_sleep", "mem_sleep", cur, sizeof(cur), j);
	json_kv_str(j, "mem_sleep_default", cur[0] ? cur : NULL);
	facts_power_list(root, "disk", "disk", cur, sizeof(cur), j);
	json_kv_str(j, "disk_default", cur[0] ? cur : NULL);
	return 0;
}
